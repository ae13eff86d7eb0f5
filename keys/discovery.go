package keys

import (
	"errors"
	"fmt"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// SigningKey is one entry of a discovery document's signingKeys[]
// (schemas/v2/capabilities.schema.json).
type SigningKey struct {
	KeyID     string `json:"keyId"`
	Alg       string `json:"alg"`
	PublicKey string `json:"publicKey"`
	Use       string `json:"use,omitempty"`
	RetiredAt string `json:"retiredAt,omitempty"`
}

// UseCertificationBundle is the only use a signing key declares.
const UseCertificationBundle = "certification-bundle"

// The ways a key id fails to resolve in a discovery document, kept apart because a
// reviewer acts differently on each (spec §4.2).
var (
	// ErrNoDocument: there is no discovery document to look in; the signature
	// attests integrity only.
	ErrNoDocument = errors.New("no discovery document to resolve the key in")
	// ErrNoSigningKeys: the document publishes no signingKeys[].
	ErrNoSigningKeys = errors.New("the discovery document publishes no signingKeys[]")
)

// KeyNotPublishedError: the document publishes keys, but none with this id.
type KeyNotPublishedError struct {
	KeyID     string
	Published []string
}

func (e *KeyNotPublishedError) Error() string {
	return fmt.Sprintf("key %q is not among the keys the discovery document publishes (%s)", e.KeyID, strings.Join(e.Published, ", "))
}

// SigningKeys returns the document's signingKeys[] entries. Entries that are not
// objects are skipped; members of the wrong type read as empty.
func SigningKeys(doc bundle.Value) ([]SigningKey, bool) {
	arr, ok := doc.Get("signingKeys")
	if !ok || arr.Kind() != bundle.Array {
		return nil, false
	}
	var out []SigningKey
	for _, item := range arr.Items() {
		if item.Kind() != bundle.Object {
			continue
		}
		str := func(name string) string {
			v, _ := item.Get(name)
			s, _ := v.Str()
			return s
		}
		out = append(out, SigningKey{KeyID: str("keyId"), Alg: str("alg"), PublicKey: str("publicKey"), Use: str("use"), RetiredAt: str("retiredAt")})
	}
	return out, true
}

// FromDiscovery resolves keyID in a discovery document's signingKeys[]. A retired key
// resolves (it stays valid for the bundles it signed) with RetiredAt set. The errors
// are ErrNoDocument (doc is nil), ErrNoSigningKeys, *KeyNotPublishedError, or an
// error describing an entry whose alg or publicKey is unusable.
func FromDiscovery(doc *bundle.Value, keyID string, source Source, origin string) (PublicKey, error) {
	if doc == nil {
		return PublicKey{}, ErrNoDocument
	}
	entries, ok := SigningKeys(*doc)
	if !ok || len(entries) == 0 {
		return PublicKey{}, ErrNoSigningKeys
	}
	var ids []string
	for _, e := range entries {
		if e.KeyID != keyID {
			ids = append(ids, e.KeyID)
			continue
		}
		if e.Alg != bundle.AlgEd25519 {
			return PublicKey{}, fmt.Errorf("signingKeys entry %q has alg %q, not ed25519", keyID, e.Alg)
		}
		pub, err := ParseRawPublic(e.PublicKey)
		if err != nil {
			return PublicKey{}, fmt.Errorf("signingKeys entry %q: %w", keyID, err)
		}
		return PublicKey{Key: pub, KeyID: keyID, Source: source, Origin: origin, RetiredAt: e.RetiredAt}, nil
	}
	return PublicKey{}, &KeyNotPublishedError{KeyID: keyID, Published: ids}
}

// Value returns the entry as a discovery document writes it: keyId, alg, publicKey,
// use when set, retiredAt when set.
func (s SigningKey) Value() bundle.Value {
	m := []bundle.Member{
		{Name: "keyId", Value: bundle.StringValue(s.KeyID)},
		{Name: "alg", Value: bundle.StringValue(s.Alg)},
		{Name: "publicKey", Value: bundle.StringValue(s.PublicKey)},
	}
	if s.Use != "" {
		m = append(m, bundle.Member{Name: "use", Value: bundle.StringValue(s.Use)})
	}
	if s.RetiredAt != "" {
		m = append(m, bundle.Member{Name: "retiredAt", Value: bundle.StringValue(s.RetiredAt)})
	}
	return bundle.ObjectValue(m...)
}

// Entry returns the discovery signingKeys[] entry that publishes k.
func (k PublicKey) Entry() SigningKey {
	return SigningKey{KeyID: k.KeyID, Alg: bundle.AlgEd25519, PublicKey: k.Base64URL(), Use: UseCertificationBundle, RetiredAt: k.RetiredAt}
}
