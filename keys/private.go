package keys

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"

	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// ParsePrivatePEM reads an unencrypted PKCS#8 ("PRIVATE KEY") PEM block holding an
// Ed25519 key. Errors never quote the input.
func ParsePrivatePEM(data []byte) (ed25519.PrivateKey, error) {
	priv, err := cryptoutils.UnmarshalPEMToPrivateKey(data, nil)
	if err != nil {
		return nil, errors.New("not a PKCS#8 private key PEM (expected -----BEGIN PRIVATE KEY-----, as `bundle keys generate` writes)")
	}
	edPriv, ok := priv.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: found %T", ErrNotEd25519, priv)
	}
	return edPriv, nil
}

// InsecureKeyFileError is returned for a private key file that group or others can
// read, which ssh also refuses.
type InsecureKeyFileError struct {
	Path string
	Mode os.FileMode
}

func (e *InsecureKeyFileError) Error() string {
	return fmt.Sprintf("private key %s is readable by others (mode %04o); run `chmod 600 %s`", e.Path, e.Mode.Perm(), e.Path)
}

// LoadPrivatePEM reads a PKCS#8 PEM private key file, refusing one whose mode lets
// group or others read it. The file must be a regular file of at most
// limitedfile.MaxKey bytes: a FIFO or a device is refused, not waited on.
func LoadPrivatePEM(path string) (ed25519.PrivateKey, error) {
	priv, _, err := loadPrivatePEM(path)
	return priv, err
}

// loadPrivatePEM is LoadPrivatePEM, also returning the PEM text it read, so that
// the key is read once.
func loadPrivatePEM(path string) (ed25519.PrivateKey, []byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, nil, &InsecureKeyFileError{Path: path, Mode: info.Mode()}
	}
	data, err := limitedfile.Read(path, limitedfile.MaxKey)
	if err != nil {
		return nil, nil, err
	}
	priv, err := ParsePrivatePEM(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return priv, data, nil
}

// NewSigner returns a sigstore signer for an Ed25519 private key.
func NewSigner(priv ed25519.PrivateKey) (signature.SignerVerifier, error) {
	return signature.LoadED25519SignerVerifier(priv)
}
