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
				return nil, fmt.Errorf("%s holds %s, not a certificate: give the TSA's certificate or its CA's (PEM, BEGIN CERTIFICATE)", path, what)
			}
			c, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: certificate %d cannot be parsed: %v", path, n+1, err)
			}
			t.add(c)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s holds no PEM certificate: give the TSA's certificate or its CA's (PEM, BEGIN CERTIFICATE)", path)
		}
		t.Files = append(t.Files, path)
	}
	return t, nil
}
