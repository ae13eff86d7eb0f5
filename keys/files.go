package keys

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/internal/atomicfile"
)

// PrivateSuffix names the private key files GenerateFiles writes: <keyId>.key.pem.
const PrivateSuffix = ".key.pem"

// KeyFiles are the files of a key pair GenerateFiles wrote.
type KeyFiles struct {
	Private, Public string
	Key             PublicKey
}

// GenerateFiles makes an Ed25519 key pair and writes it into dir (created, mode
// 0700, if needed): <keyID>.key.pem, the private key as unencrypted PKCS#8 PEM,
// mode 0600, and <keyID>.pub.pem, the SPKI PEM public key. An existing file is an
// *atomicfile.ExistsError unless force; nothing partial is left: a private key
// whose public half could not be written is removed.
func GenerateFiles(dir, keyID string, force bool) (*KeyFiles, error) {
	if !KeyIDPattern.MatchString(keyID) {
		return nil, fmt.Errorf("key id %q does not match %s", keyID, KeyIDPattern)
	}
	out := &KeyFiles{Private: filepath.Join(dir, keyID+PrivateSuffix), Public: filepath.Join(dir, keyID+PEMSuffix)}
	if !force {
		for _, p := range []string{out.Private, out.Public} {
			if _, err := os.Lstat(p); err == nil {
				return nil, &atomicfile.ExistsError{Path: p}
			}
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	priv, err := Generate(nil)
	if err != nil {
		return nil, err
	}
	privPEM, err := MarshalPrivatePEM(priv)
	if err != nil {
		return nil, err
	}
	out.Key = PublicKey{Key: priv.Public().(ed25519.PublicKey), KeyID: keyID}
	pubPEM, err := MarshalPublicPEM(out.Key.Key)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(out.Private, privPEM, 0o600, force); err != nil {
		return nil, fmt.Errorf("writing %s: %w", out.Private, err)
	}
	if err := atomicfile.Write(out.Public, pubPEM, 0o644, force); err != nil {
		os.Remove(out.Private)
		return nil, fmt.Errorf("writing %s: %w", out.Public, err)
	}
	return out, nil
}

// KeyIDFromRef guesses a key id from a signing key reference: the stem of a
// <keyId>.key.pem file, or the object= label of a pkcs11: URI ('bundle keys
// generate --pkcs11' labels a key with its id); "" otherwise.
func KeyIDFromRef(ref string) string {
	ref = TrimRef(ref)
	if HasPINValue(ref) && !IsPKCS11(ref) {
		return ""
	}
	if IsPKCS11(ref) {
		if u, err := ParsePKCS11URI(ref); err == nil && KeyIDPattern.MatchString(u.Object) {
			return u.Object
		}
		return ""
	}
	if IsKMS(ref) || strings.HasPrefix(ref, EnvPrefix) {
		return ""
	}
	if id, ok := strings.CutSuffix(filepath.Base(ref), PrivateSuffix); ok && KeyIDPattern.MatchString(id) {
		return id
	}
	return ""
}
