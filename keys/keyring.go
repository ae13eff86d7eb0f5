package keys

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/internal/limitedfile"
)

// KeyringVersion is the only keyringVersion this package reads and writes.
const KeyringVersion = 1

// KeyringSchemaID is the $id of the keyring's JSON Schema (schemas/keyring.schema.json).
const KeyringSchemaID = "https://github.com/certcut/certcut/schemas/keyring.schema.json"

// Keyring is a committed JSON file that pins the bundle-signing keys a project
// trusts. It is the durable form of "where trust comes from": a reviewer adds a
// host's keys once (bundle keys trust --from-discovery), commits the file, and every
// later verify or gate resolves signature.keyId there. Retiring and revoking are
// edits to this file, reviewed like any other change.
type Keyring struct {
	// Schema names the JSON Schema the file follows (optional).
	Schema string `json:"$schema,omitempty"`
	// Comment is free text for people reading the file (optional).
	Comment string `json:"$comment,omitempty"`
	// KeyringVersion is 1.
	KeyringVersion int `json:"keyringVersion"`
	// Keys are the pinned keys; keyId is unique among them.
	Keys []KeyringEntry `json:"keys"`

	// Path is the file the keyring was loaded from; it is not stored.
	Path string `json:"-"`
}

// KeyringEntry is one pinned key.
type KeyringEntry struct {
	// KeyID is the id bundles name in signature.keyId (ids.schema.json keyId grammar).
	KeyID string `json:"keyId"`
	// Alg is "ed25519", the only algorithm bundles use.
	Alg string `json:"alg"`
	// PublicKey is the raw 32-byte Ed25519 key, unpadded base64url (43 characters),
	// as discovery documents publish it in signingKeys[].publicKey.
	PublicKey string `json:"publicKey"`
	// Host is the host that publishes the key.
	Host KeyringHost `json:"host"`
	// Use is what the key signs; discovery documents say "certification-bundle".
	Use string `json:"use,omitempty"`
	// NotBefore (RFC 3339) is when the key started signing; a bundle generated
	// earlier is flagged.
	NotBefore string `json:"notBefore,omitempty"`
	// RetiredAt (RFC 3339) is when the key stopped signing. It stays valid for the
	// bundles it signed before then; a bundle generated later is flagged.
	RetiredAt string `json:"retiredAt,omitempty"`
	// RevokedAt (RFC 3339) marks the key as no longer trusted for anything, for
	// example after a compromise. A revoked key never verifies any bundle,
	// whatever its date. RevocationReason is then required.
	RevokedAt string `json:"revokedAt,omitempty"`
	// RevocationReason says why the key was revoked.
	RevocationReason string `json:"revocationReason,omitempty"`
	// Source is where the key was pinned from: a discovery URL or file.
	Source string `json:"source,omitempty"`
	// PinnedAt (RFC 3339) is when the key was added to the keyring.
	PinnedAt string `json:"pinnedAt,omitempty"`
}

// KeyringHost names the host a pinned key belongs to and the discovery origins
// the key is pinned with. An origin pinned here is what binds a bundle's
// discovery.url, which no signature covers: bundle gate takes a host's tier from
// that origin only when the key the bundle verified under is pinned with it
// (docs/gate.md, "What binds the origin").
type KeyringHost struct {
	// Name is the host's name (host.name in its bundles, implementation.name in
	// its discovery document).
	Name string `json:"name"`
	// Origin is the key's one discovery origin, scheme://host[:port], the origin
	// of the bundles' discovery.url. Empty (or absent) pins no origin.
	Origin string `json:"origin,omitempty"`
	// Origins are the key's discovery origins when it is pinned with more than
	// one; a file gives Origin or Origins, never both.
	Origins []string `json:"origins,omitempty"`
}

// PinnedOrigins returns every origin the host is pinned with (none: the key is
// trusted for signatures, but binds no origin).
func (h KeyringHost) PinnedOrigins() []string {
	if h.Origin != "" {
		return append([]string{h.Origin}, h.Origins...)
	}
	return slices.Clone(h.Origins)
}

// Pins reports whether origin is one the host is pinned with.
func (h KeyringHost) Pins(origin string) bool {
	return origin != "" && slices.Contains(h.PinnedOrigins(), origin)
}

// WithOrigins returns the host pinned with its origins and the given ones, each
// once, in order: one origin is written as "origin" (the form every keyring
// reader knows), several as "origins".
func (h KeyringHost) WithOrigins(origins ...string) KeyringHost {
	var all []string
	for _, o := range append(h.PinnedOrigins(), origins...) {
		if o != "" && !slices.Contains(all, o) {
			all = append(all, o)
		}
	}
	out := KeyringHost{Name: h.Name}
	switch len(all) {
	case 0:
	case 1:
		out.Origin = all[0]
	default:
		out.Origins = all
	}
	return out
}

// KeyringError says what is wrong with a keyring file; Entry is the index of the
// offending key, or -1 for the file as a whole.
type KeyringError struct {
	Path  string
	Entry int
	Msg   string
	// Err is the reader's *bundle.SyntaxError when the text itself was refused.
	Err error
}

func (e *KeyringError) Unwrap() error { return e.Err }

func (e *KeyringError) Error() string {
	where := "keyring"
	if e.Path != "" {
		where = "keyring " + e.Path
	}
	if e.Entry >= 0 {
		return fmt.Sprintf("%s: keys[%d]: %s", where, e.Entry, e.Msg)
	}
	return fmt.Sprintf("%s: %s", where, e.Msg)
}

// NewKeyring returns an empty keyring.
func NewKeyring() *Keyring {
	return &Keyring{Schema: KeyringSchemaID, KeyringVersion: KeyringVersion, Keys: []KeyringEntry{}}
}

// LoadKeyring reads and validates a keyring file. Unknown members are refused, so
// a typo such as "revoked" for "revokedAt" cannot silently leave a key trusted.
func LoadKeyring(path string) (*Keyring, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	k, err := ParseKeyring(data)
	if err != nil {
		var ke *KeyringError
		if errors.As(err, &ke) {
			ke.Path = path
		}
		return nil, err
	}
	k.Path = path
	return k, nil
}

// ParseKeyring reads and validates keyring JSON as strictly as a bundle
// (bundle.DecodeStrict): I-JSON, exact-case member names, duplicates and unknown
// members refused, each with its line and column.
func ParseKeyring(data []byte) (*Keyring, error) {
	var k Keyring
	if err := bundle.DecodeStrict(data, &k); err != nil {
		return nil, &KeyringError{Entry: -1, Msg: err.Error(), Err: err}
	}
	if k.Keys == nil {
		k.Keys = []KeyringEntry{}
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return &k, nil
}

// Validate checks every rule the keyring's JSON Schema states, plus uniqueness of
// key ids and public keys.
func (k *Keyring) Validate() error {
	if k.KeyringVersion != KeyringVersion {
		return &KeyringError{Entry: -1, Msg: fmt.Sprintf("keyringVersion is %d; this certcut reads version %d", k.KeyringVersion, KeyringVersion)}
	}
	ids := map[string]int{}
	pubs := map[string]int{}
	for i, e := range k.Keys {
		bad := func(format string, args ...any) error {
			return &KeyringError{Entry: i, Msg: fmt.Sprintf(format, args...)}
		}
		if !KeyIDPattern.MatchString(e.KeyID) {
			return bad("keyId %q does not match %s", e.KeyID, KeyIDPattern)
		}
		if j, dup := ids[e.KeyID]; dup {
			return bad("keyId %q is pinned twice (also keys[%d])", e.KeyID, j)
		}
		ids[e.KeyID] = i
		if e.Alg != bundle.AlgEd25519 {
			return bad("alg is %q; only ed25519 is defined", e.Alg)
		}
		if _, err := ParseRawPublic(e.PublicKey); err != nil {
			return bad("publicKey: %v", err)
		}
		if j, dup := pubs[e.PublicKey]; dup {
			return bad("the same public key is pinned twice (also keys[%d] %q)", j, k.Keys[j].KeyID)
		}
		pubs[e.PublicKey] = i
		if e.Host.Name == "" {
			return bad("host.name is empty; say whose key this is")
		}
		if e.Host.Origin != "" && len(e.Host.Origins) > 0 {
			return bad("host gives both origin and origins; list every origin in origins")
		}
		if e.Host.Origins != nil && len(e.Host.Origins) == 0 {
			return bad("host.origins is empty; remove it, or list the origins the key is pinned with")
		}
		for j, o := range e.Host.PinnedOrigins() {
			member := "host.origin"
			if e.Host.Origin == "" {
				member = fmt.Sprintf("host.origins[%d]", j)
			}
			if n, err := bundle.Origin(o); err != nil || n != o {
				return bad("%s %q is not an origin (scheme://host[:port], lower case, no path, no default port)", member, o)
			}
			if slices.Index(e.Host.Origins, o) != j && e.Host.Origin == "" {
				return bad("%s %q is listed twice", member, o)
			}
		}
		if e.Use != "" && e.Use != UseCertificationBundle {
			return bad("use is %q; the only use is %q", e.Use, UseCertificationBundle)
		}
		for name, ts := range map[string]string{"notBefore": e.NotBefore, "retiredAt": e.RetiredAt, "revokedAt": e.RevokedAt, "pinnedAt": e.PinnedAt} {
			if ts == "" {
				continue
			}
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
				return bad("%s %q is not an RFC 3339 date-time", name, ts)
			}
		}
		if e.RevokedAt != "" && strings.TrimSpace(e.RevocationReason) == "" {
			return bad("revokedAt is set but revocationReason is empty; say why the key was revoked")
		}
		if e.RevokedAt == "" && e.RevocationReason != "" {
			return bad("revocationReason is set but revokedAt is not")
		}
	}
	return nil
}

// Save writes the keyring to path atomically, as 2-space indented JSON.
func (k *Keyring) Save(path string) error {
	if err := k.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644, true)
}

// Lookup returns the entry pinned under keyID.
func (k *Keyring) Lookup(keyID string) (KeyringEntry, bool) {
	if k == nil {
		return KeyringEntry{}, false
	}
	for _, e := range k.Keys {
		if e.KeyID == keyID {
			return e, true
		}
	}
	return KeyringEntry{}, false
}

// ForKey returns the entry that pins this public key, whatever id it is pinned
// under. The keyring speaks about keys, not names: a key revoked here is revoked
// even when it arrives through --host-key under another file name.
func (k *Keyring) ForKey(pub ed25519.PublicKey) (KeyringEntry, bool) {
	if k == nil {
		return KeyringEntry{}, false
	}
	want := PublicKey{Key: pub}.Base64URL()
	for _, e := range k.Keys {
		if e.PublicKey == want {
			return e, true
		}
	}
	return KeyringEntry{}, false
}

// Revoked reports whether the entry is revoked.
func (e KeyringEntry) Revoked() bool { return e.RevokedAt != "" }

// Key returns the entry as a trusted key whose Source is keyring and whose Origin
// is the keyring's path.
func (e KeyringEntry) Key(keyringPath string) (PublicKey, error) {
	pub, err := ParseRawPublic(e.PublicKey)
	if err != nil {
		return PublicKey{}, err
	}
	return PublicKey{Key: pub, KeyID: e.KeyID, Source: SourceKeyring, Origin: keyringPath, RetiredAt: e.RetiredAt, NotBefore: e.NotBefore}, nil
}

// TrustResult says what Trust did.
type TrustResult struct {
	Added     []string `json:"added"`
	Updated   []string `json:"updated"`
	Unchanged []string `json:"unchanged"`
}

// KeyConflictError is returned when a host publishes, under a pinned key id, a
// different key, or republishes a key the keyring has revoked. Nothing is
// changed: a reviewer must decide.
type KeyConflictError struct {
	KeyID string
	Msg   string
}

func (e *KeyConflictError) Error() string { return fmt.Sprintf("key %s: %s", e.KeyID, e.Msg) }

// Trust adds the keys a discovery document publishes in signingKeys[] to the
// keyring, for the host name and origins given. A key already pinned with the
// same public key gains the document's retiredAt when the keyring has none, and
// any origin of host it is not yet pinned with; a key id pinned with another
// public key, or a revoked key, is a *KeyConflictError and nothing is changed.
// only, when non-empty, restricts which key ids are taken.
//
// The caller vouches for host's origins: Trust records them as given. Never pass
// an origin read from a bundle's discovery.url, which no signature covers.
func (k *Keyring) Trust(doc bundle.Value, host KeyringHost, source string, now time.Time, only []string) (TrustResult, error) {
	host = host.WithOrigins()
	res := TrustResult{Added: []string{}, Updated: []string{}, Unchanged: []string{}}
	published, ok := SigningKeys(doc)
	if !ok || len(published) == 0 {
		return res, ErrNoSigningKeys
	}
	next := slices.Clone(k.Keys)
	for _, id := range only {
		if !slices.ContainsFunc(published, func(p SigningKey) bool { return p.KeyID == id }) {
			return res, &KeyNotPublishedError{KeyID: id, Published: keyIDs(published)}
		}
	}
	for _, p := range published {
		if len(only) > 0 && !slices.Contains(only, p.KeyID) {
			continue
		}
		if p.Alg != bundle.AlgEd25519 {
			return res, fmt.Errorf("signingKeys entry %q has alg %q, not ed25519", p.KeyID, p.Alg)
		}
		if _, err := ParseRawPublic(p.PublicKey); err != nil {
			return res, fmt.Errorf("signingKeys entry %q: %w", p.KeyID, err)
		}
		i := slices.IndexFunc(next, func(e KeyringEntry) bool { return e.KeyID == p.KeyID })
		if j := slices.IndexFunc(next, func(e KeyringEntry) bool { return e.PublicKey == p.PublicKey }); j >= 0 && next[j].Revoked() {
			return res, &KeyConflictError{KeyID: p.KeyID, Msg: fmt.Sprintf("the host publishes a key this keyring revoked at %s as %s (%s); remove it from the discovery document or edit the keyring by hand", next[j].RevokedAt, next[j].KeyID, next[j].RevocationReason)}
		}
		if i < 0 {
			next = append(next, KeyringEntry{
				KeyID: p.KeyID, Alg: p.Alg, PublicKey: p.PublicKey, Host: host, Use: p.Use,
				RetiredAt: p.RetiredAt, Source: source, PinnedAt: now.UTC().Format(time.RFC3339),
			})
			res.Added = append(res.Added, p.KeyID)
			continue
		}
		e := &next[i]
		if e.PublicKey != p.PublicKey {
			return res, &KeyConflictError{KeyID: p.KeyID, Msg: "the keyring pins this key id with a different public key; a host must never reuse a key id. Investigate before trusting it: revoke or remove the pinned entry by hand if the host really rotated"}
		}
		updated := false
		if e.RetiredAt == "" && p.RetiredAt != "" {
			e.RetiredAt = p.RetiredAt
			updated = true
		}
		if with := e.Host.WithOrigins(host.PinnedOrigins()...); len(with.PinnedOrigins()) != len(e.Host.PinnedOrigins()) {
			e.Host = with
			updated = true
		}
		if updated {
			res.Updated = append(res.Updated, p.KeyID)
		} else {
			res.Unchanged = append(res.Unchanged, p.KeyID)
		}
	}
	k.Keys = next
	return res, nil
}

// TrustKey pins one key a reviewer holds directly (a PEM file, say), exactly as
// Trust pins a published one: pub.KeyID names it, host says whose it is and with
// which origins, source where it came from.
func (k *Keyring) TrustKey(pub PublicKey, host KeyringHost, source string, now time.Time) (TrustResult, error) {
	if !KeyIDPattern.MatchString(pub.KeyID) {
		return TrustResult{}, fmt.Errorf("key id %q does not match %s", pub.KeyID, KeyIDPattern)
	}
	doc := bundle.ObjectValue(bundle.Member{Name: "signingKeys", Value: bundle.ArrayValue(pub.Entry().Value())})
	return k.Trust(doc, host, source, now, []string{pub.KeyID})
}

func keyIDs(ks []SigningKey) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.KeyID
	}
	return out
}
