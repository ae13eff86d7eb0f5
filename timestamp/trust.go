package timestamp

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/certcut/certcut/internal/limitedfile"
)

// MaxCertFile bounds a PEM file of TSA certificates.
const MaxCertFile = 1 << 20

// Trust is the set of TSA certificates a caller trusts: each is an anchor, a
// TSA's own certificate or a CA above it. A token counts only when its signer
// chains to one of them. The zero Trust and a nil *Trust trust nothing.
type Trust struct {
	certs []*x509.Certificate
	pool  *x509.CertPool
	// Files are the files the certificates were read from, for messages.
	Files []string
}

// NewTrust trusts the given certificates.
func NewTrust(certs ...*x509.Certificate) *Trust {
	t := &Trust{pool: x509.NewCertPool()}
	for _, c := range certs {
		t.add(c)
	}
	return t
}

func (t *Trust) add(c *x509.Certificate) {
	t.certs = append(t.certs, c)
	t.pool.AddCert(c)
}

// Len is the number of trusted certificates (0 for a nil Trust).
func (t *Trust) Len() int {
	if t == nil {
		return 0
	}
	return len(t.certs)
}

// Subjects lists the trusted certificates' subjects.
func (t *Trust) Subjects() []string {
	if t == nil {
		return nil
	}
	out := make([]string, len(t.certs))
	for i, c := range t.certs {
		out[i] = c.Subject.String()
	}
	return out
}

func (t *Trust) describe() string {
	if len(t.Files) > 0 {
		return "--tsa-cert " + strings.Join(t.Files, ", ")
	}
	return strings.Join(t.Subjects(), "; ")
}

// LoadTrust reads PEM files of certificates (one or more CERTIFICATE blocks
// each). A file that cannot be read, holds no certificate, or holds anything
// else (a private key given by mistake is named, never shown) is an error.
func LoadTrust(paths ...string) (*Trust, error) {
	t := NewTrust()
	for _, path := range paths {
		data, err := limitedfile.Read(path, MaxCertFile)
		if err != nil {
			return nil, err
		}
		if err := t.addPEM(path, data); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// ParseTrust is LoadTrust over one file's content already read (a revision of
// it from git, say); name is the file, for messages and Files.
func ParseTrust(name string, data []byte) (*Trust, error) {
	if len(data) > MaxCertFile {
		return nil, fmt.Errorf("%s is larger than %d bytes, the cap for a PEM file of TSA certificates", name, MaxCertFile)
	}
	t := NewTrust()
	if err := t.addPEM(name, data); err != nil {
		return nil, err
	}
	return t, nil
}

// Certificates returns the trusted certificates (nil for a nil Trust).
func (t *Trust) Certificates() []*x509.Certificate {
	if t == nil {
		return nil
	}
	return append([]*x509.Certificate(nil), t.certs...)
}

func (t *Trust) addPEM(path string, data []byte) error {
	n := 0
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			what := "a " + block.Type + " block"
			if strings.Contains(block.Type, "PRIVATE KEY") {
				what = "a private key"
			}
			return fmt.Errorf("%s holds %s, not a certificate: give the TSA's certificate or its CA's (PEM, BEGIN CERTIFICATE)", path, what)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return fmt.Errorf("%s: certificate %d cannot be parsed: %v", path, n+1, err)
		}
		t.add(c)
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s holds no PEM certificate: give the TSA's certificate or its CA's (PEM, BEGIN CERTIFICATE)", path)
	}
	t.Files = append(t.Files, path)
	return nil
}
