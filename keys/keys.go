// Package keys is where trust in a bundle's signature comes from: Ed25519 public keys
// loaded from SPKI PEM files, raw base64url strings or a discovery document's
// signingKeys[], private keys from PKCS#8 PEM, and signing and verification through
// github.com/sigstore/sigstore. Every loaded key says where it came from, because a
// verdict must say it too.
package keys

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// Source says where a public key came from. Only keys the user supplied (a file, a
// raw key, a keyring, a document the user fetched) can make a bundle VERIFIED; a key
// found in the bundle's own discovery document is self-published and proves only
// that the bundle is consistent with itself.
type Source string

// Key sources.
const (
	SourcePEMFile       Source = "pem-file"           // --host-key FILE
	SourceRaw           Source = "raw"                // a base64url key given on the command line
	SourceDiscovery     Source = "discovery-document" // a discovery document the user supplied or fetched
	SourceKeyring       Source = "keyring"            // a pinned keyring entry
	SourceSelfPublished Source = "self-published"     // the bundle's own discovery.document
	SourceSigner        Source = "signer"             // the public half of the key that is signing (mint's self-check)
)

// Trusted reports whether a key from this source was supplied by the user.
func (s Source) Trusted() bool { return s != SourceSelfPublished && s != "" }

// KeyIDPattern is the grammar of key ids (ids.schema.json#/$defs/keyId):
// MatchString checks it (bundle.IsKeyID, no regexp to compile at start-up: the
// {1,128} repetition made every process pay 0.3 ms), and it prints as the pattern.
var KeyIDPattern keyIDGrammar

type keyIDGrammar struct{}

// MatchString reports whether s is a well-formed key id.
func (keyIDGrammar) MatchString(s string) bool { return bundle.IsKeyID(s) }

func (keyIDGrammar) String() string { return bundle.KeyIDPattern }

// PublicKey is an Ed25519 public key and its provenance.
type PublicKey struct {
	Key ed25519.PublicKey `json:"-"`
	// KeyID is the key's id when known: from the discovery entry, the keyring, or a
	// file named <keyId>.pub.pem.
	KeyID string `json:"keyId,omitempty"`
	// Source and Origin say where the key came from (Origin: a path or URL).
	Source Source `json:"source"`
	Origin string `json:"origin,omitempty"`
	// RetiredAt is set when the publishing document marks the key retired.
	RetiredAt string `json:"retiredAt,omitempty"`
	// NotBefore is set when a keyring says from when the key signs.
	NotBefore string `json:"notBefore,omitempty"`
	// FromDir is set for a key read from a directory of <keyId>.pub.pem files: the
	// user gave it for the bundles signed under its id, so it is never the lone key
	// of Set.Lone, even when the directory holds only it.
	FromDir bool `json:"-"`
}

// Base64URL returns the raw 32-byte key as unpadded base64url, the form discovery
// documents publish.
func (k PublicKey) Base64URL() string { return base64.RawURLEncoding.EncodeToString(k.Key) }

// Fingerprint returns "SHA256:" and the first 16 hex digits of the SHA-256 of the raw
// key, a short name for the key that is not the key itself.
func (k PublicKey) Fingerprint() string {
	sum := sha256.Sum256(k.Key)
	return "SHA256:" + hex.EncodeToString(sum[:8])
}

// Describe returns a one-line account of the key for people: its fingerprint and
// where it came from, with its id unless the origin (a <keyId>.pub.pem path) names it.
func (k PublicKey) Describe() string {
	where := string(k.Source)
	if k.Origin != "" {
		where += " " + k.Origin
	}
	if k.KeyID == "" || k.Source == SourcePEMFile {
		return fmt.Sprintf("%s (from %s)", k.Fingerprint(), where)
	}
	return fmt.Sprintf("%s %s (from %s)", k.KeyID, k.Fingerprint(), where)
}

// ErrNotEd25519 is returned for a well-formed key of another algorithm.
var ErrNotEd25519 = errors.New("not an Ed25519 key (OpenWOP bundles are signed with Ed25519 only)")

// ParsePublicPEM reads an SPKI ("PUBLIC KEY") PEM block holding an Ed25519 key.
func ParsePublicPEM(data []byte) (ed25519.PublicKey, error) {
	if strings.Contains(string(data), "PRIVATE KEY") {
		return nil, errors.New("this is a private key; give the public key (SPKI PEM, as `bundle keys public` prints it)")
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(data)
	if err != nil {
		return nil, fmt.Errorf("not an SPKI public key PEM: %w", err)
	}
	edPub, ok := pub.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: found %T", ErrNotEd25519, pub)
	}
	return edPub, nil
}

// ParseRawPublic reads a raw 32-byte Ed25519 key written as unpadded base64url
// (43 characters), the form of discovery signingKeys[].publicKey.
func ParseRawPublic(s string) (ed25519.PublicKey, error) {
	if len(s) != 43 {
		return nil, fmt.Errorf("a raw Ed25519 public key is 43 base64url characters, this is %d", len(s))
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("raw public key is not unpadded base64url: %w", err)
	}
	return ed25519.PublicKey(b), nil
}

// PEMSuffix names public key files whose stem is the key id: <keyId>.pub.pem.
const PEMSuffix = ".pub.pem"

// LoadPublicPEM reads a public key PEM file. When the file is named <keyId>.pub.pem
// the key id is taken from the name.
func LoadPublicPEM(path string) (PublicKey, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxKey)
	if err != nil {
		return PublicKey{}, err
	}
	pub, err := ParsePublicPEM(data)
	if err != nil {
		return PublicKey{}, fmt.Errorf("%s: %w", path, err)
	}
	k := PublicKey{Key: pub, Source: SourcePEMFile, Origin: path}
	if base := filepath.Base(path); strings.HasSuffix(base, PEMSuffix) {
		if id := strings.TrimSuffix(base, PEMSuffix); KeyIDPattern.MatchString(id) {
			k.KeyID = id
		}
	}
	return k, nil
}

// LoadPublic reads what a user passes as a host or verifier key: a PEM file, a
// directory of <keyId>.pub.pem files, or a raw base64url key.
func LoadPublic(arg string) ([]PublicKey, error) {
	info, statErr := os.Stat(arg)
	switch {
	case statErr == nil && info.IsDir():
		return LoadPublicDir(arg)
	case statErr == nil:
		k, err := LoadPublicPEM(arg)
		if err != nil {
			return nil, err
		}
		return []PublicKey{k}, nil
	case len(arg) == 43 && !strings.ContainsAny(arg, "/."):
		pub, err := ParseRawPublic(arg)
		if err != nil {
			return nil, err
		}
		return []PublicKey{{Key: pub, Source: SourceRaw}}, nil
	case LooksLikeKeyMaterial(arg):
		return nil, fmt.Errorf("the value given is not a file, a directory or a 43-character public key, and it looks like key material, so it is not shown (a private key, perhaps: give the public key's PEM file, a directory of <keyId>.pub.pem files, or its 43-character base64url form)")
	default:
		return nil, fmt.Errorf("%w (give a PEM file, a directory of <keyId>.pub.pem files, or a 43-character base64url key)", statErr)
	}
}

// ShownArg returns a key argument as messages may quote it: the argument itself,
// or a placeholder when it looks like key material (LooksLikeKeyMaterial), which
// no message, log or annotation should carry; a URI or a value with a pin-value
// as ShownRef shows it.
func ShownArg(arg string) string {
	switch {
	case LooksLikeKeyMaterial(arg):
		return "(a value that looks like key material, not shown)"
	case HasPINValue(arg), strings.Contains(arg, "://"):
		return ShownRef(arg)
	}
	return arg
}

// LooksLikeKeyMaterial reports whether s, given where a file name or a public key
// was expected, looks like key material instead: PEM text, or a long run of base64
// or base64url characters and nothing else (a private key's body, a seed; a file
// name has a dot). A 43-character raw public key is not secret and is not matched.
func LooksLikeKeyMaterial(s string) bool {
	if strings.Contains(s, "-----BEGIN") || strings.Contains(s, "PRIVATE KEY") {
		return true
	}
	if len(s) < 40 || len(s) == 43 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '+', r == '/', r == '-', r == '_', r == '=', r == '\n', r == '\r':
		default:
			return false
		}
	}
	return true
}

// LoadPublicDir reads every <keyId>.pub.pem file of a directory, marking each
// FromDir: a directory's keys are chosen by key id only.
func LoadPublicDir(dir string) ([]PublicKey, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*"+PEMSuffix))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s holds no <keyId>%s files", dir, PEMSuffix)
	}
	sort.Strings(matches)
	out := make([]PublicKey, 0, len(matches))
	for _, m := range matches {
		k, err := LoadPublicPEM(m)
		if err != nil {
			return nil, err
		}
		k.FromDir = true
		out = append(out, k)
	}
	return out, nil
}

// Set is the keys a user trusts for a run over one or more bundles.
type Set []PublicKey

// Select picks the key for a bundle signed with keyID: the key of that id (taken
// from a keyring, a discovery document or a <keyId>.pub.pem file name). It reports
// false when no key has that id; it never guesses.
func (s Set) Select(keyID string) (PublicKey, bool) {
	for _, k := range s {
		if k.KeyID != "" && k.KeyID == keyID {
			return k, true
		}
	}
	return PublicKey{}, false
}

// Lone returns the set's only key when the user gave exactly one key as a PEM file
// or a raw key (not from a directory): the reference --verify checks a bundle under
// the one --host-key it is given whatever the bundle's key id, and callers that
// follow it (verify.Options.UnsafeLoneKeyAnyKeyID) fall back to this key after
// Select finds none. It reports false for an empty set, several keys, or a key
// read from a directory.
func (s Set) Lone() (PublicKey, bool) {
	if len(s) == 1 && !s[0].FromDir {
		return s[0], true
	}
	return PublicKey{}, false
}

// MarshalPublicPEM returns the SPKI PEM form of an Ed25519 public key.
func MarshalPublicPEM(pub ed25519.PublicKey) ([]byte, error) {
	return cryptoutils.MarshalPublicKeyToPEM(pub)
}
