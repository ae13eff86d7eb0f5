package keys_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/schemas"
	"github.com/certcut/certcut/schemas/validate"
)

func entry(name, id string) keys.KeyringEntry {
	return keys.KeyringEntry{KeyID: id, Alg: "ed25519", PublicKey: keys.PublicKey{Key: testkit.Public(name)}.Base64URL(),
		Host: keys.KeyringHost{Name: "h", Origin: "https://h.example"}, Use: keys.UseCertificationBundle}
}

func TestKeyringRoundTripAndLookup(t *testing.T) {
	k := keys.NewKeyring()
	k.Keys = append(k.Keys, entry("host", "k1"), entry("old", "k0"))
	k.Keys[1].RetiredAt = "2026-01-01T00:00:00Z"
	path := filepath.Join(t.TempDir(), "keyring.json")
	if err := k.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := keys.LoadKeyring(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != path || len(got.Keys) != 2 {
		t.Fatalf("%+v", got)
	}
	e, ok := got.Lookup("k0")
	if !ok || e.RetiredAt == "" {
		t.Fatalf("lookup k0: %+v", e)
	}
	if _, ok := got.ForKey(testkit.Public("host")); !ok {
		t.Error("ForKey by bytes")
	}
	pk, err := e.Key(path)
	if err != nil || pk.Source != keys.SourceKeyring || pk.Origin != path || pk.RetiredAt != e.RetiredAt {
		t.Errorf("%+v %v", pk, err)
	}
}

func TestKeyringRefusals(t *testing.T) {
	good := entry("host", "k1")
	for name, tc := range map[string]struct {
		mut  func(*keys.Keyring)
		want string
	}{
		"version":            {func(k *keys.Keyring) { k.KeyringVersion = 2 }, "keyringVersion is 2"},
		"bad id":             {func(k *keys.Keyring) { k.Keys[0].KeyID = "a b" }, "does not match"},
		"dup id":             {func(k *keys.Keyring) { e := entry("other", "k1"); k.Keys = append(k.Keys, e) }, "pinned twice"},
		"dup key":            {func(k *keys.Keyring) { e := good; e.KeyID = "k2"; k.Keys = append(k.Keys, e) }, "same public key"},
		"alg":                {func(k *keys.Keyring) { k.Keys[0].Alg = "rsa" }, "only ed25519"},
		"short key":          {func(k *keys.Keyring) { k.Keys[0].PublicKey = "abc" }, "43 base64url"},
		"no host":            {func(k *keys.Keyring) { k.Keys[0].Host.Name = "" }, "host.name is empty"},
		"origin with path":   {func(k *keys.Keyring) { k.Keys[0].Host.Origin = "https://h.example/x" }, "not an origin"},
		"bad date":           {func(k *keys.Keyring) { k.Keys[0].RetiredAt = "yesterday" }, "not an RFC 3339"},
		"revoked no why":     {func(k *keys.Keyring) { k.Keys[0].RevokedAt = "2026-01-01T00:00:00Z" }, "revocationReason is empty"},
		"why not revoked":    {func(k *keys.Keyring) { k.Keys[0].RevocationReason = "x" }, "revokedAt is not"},
		"use":                {func(k *keys.Keyring) { k.Keys[0].Use = "tls" }, "the only use"},
		"origin and origins": {func(k *keys.Keyring) { k.Keys[0].Host.Origins = []string{"https://b.example"} }, "both origin and origins"},
		"origins empty": {func(k *keys.Keyring) {
			k.Keys[0].Host = keys.KeyringHost{Name: "h", Origins: []string{}}
		}, "host.origins is empty"},
		"origins twice": {func(k *keys.Keyring) {
			k.Keys[0].Host = keys.KeyringHost{Name: "h", Origins: []string{"https://a.example", "https://a.example"}}
		}, `host.origins[1] "https://a.example" is listed twice`},
		"origins path": {func(k *keys.Keyring) {
			k.Keys[0].Host = keys.KeyringHost{Name: "h", Origins: []string{"https://a.example", "https://b.example/x"}}
		}, `host.origins[1] "https://b.example/x" is not an origin`},
		"origin upper case": {func(k *keys.Keyring) { k.Keys[0].Host.Origin = "https://H.example" }, "not an origin"},
	} {
		k := keys.NewKeyring()
		k.Keys = append(k.Keys, good)
		tc.mut(k)
		err := k.Validate()
		var ke *keys.KeyringError
		if !errors.As(err, &ke) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	for name, text := range map[string]string{
		"unknown member": `{"keyringVersion":1,"keys":[],"revoked":[]}`,
		"duplicate":      `{"keyringVersion":1,"keyringVersion":1,"keys":[]}`,
		"not json":       `keys`,
	} {
		if _, err := keys.ParseKeyring([]byte(text)); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

func TestKeyringTrust(t *testing.T) {
	host := keys.PublicKey{Key: testkit.Public("host"), KeyID: "k1"}
	old := keys.PublicKey{Key: testkit.Public("old"), KeyID: "k0", RetiredAt: "2026-01-01T00:00:00Z"}
	doc := testkit.Discovery("https://h.example", host.Entry(), old.Entry())
	k := keys.NewKeyring()
	now := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	hostRef := keys.KeyringHost{Name: "h", Origin: "https://h.example"}
	res, err := k.Trust(doc, hostRef, "https://h.example/.well-known/openwop", now, nil)
	if err != nil || !slices.Equal(res.Added, []string{"k1", "k0"}) {
		t.Fatalf("%+v %v", res, err)
	}
	if e, _ := k.Lookup("k0"); e.RetiredAt != old.RetiredAt || e.PinnedAt != "2026-11-02T00:00:00Z" || e.Host.Name != hostRef.Name || e.Host.Origin != hostRef.Origin || e.Host.Origins != nil {
		t.Errorf("k0 entry %+v", e)
	}
	res, err = k.Trust(doc, hostRef, "again", now, nil)
	if err != nil || len(res.Unchanged) != 2 {
		t.Errorf("second trust: %+v %v", res, err)
	}
	// The host reuses key id k1 for another key: refused, nothing changed.
	swapped := keys.PublicKey{Key: testkit.Public("attacker"), KeyID: "k1"}
	bad := testkit.Discovery("https://h.example", swapped.Entry())
	var conflict *keys.KeyConflictError
	if _, err := k.Trust(bad, hostRef, "x", now, nil); !errors.As(err, &conflict) {
		t.Errorf("reused key id: %v", err)
	}
	if e, _ := k.Lookup("k1"); e.PublicKey != host.Base64URL() {
		t.Error("conflicting trust changed the keyring")
	}
	// A revoked key that reappears is refused.
	k.Keys[0].RevokedAt, k.Keys[0].RevocationReason = "2026-10-01T00:00:00Z", "leaked"
	if _, err := k.Trust(doc, hostRef, "x", now, nil); !errors.As(err, &conflict) || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("revoked key republished: %v", err)
	}
	// --key-id restricts; an unknown id is an error.
	k2 := keys.NewKeyring()
	if res, err := k2.Trust(doc, hostRef, "x", now, []string{"k1"}); err != nil || len(res.Added) != 1 {
		t.Errorf("only k1: %+v %v", res, err)
	}
	var notPub *keys.KeyNotPublishedError
	if _, err := k2.Trust(doc, hostRef, "x", now, []string{"k9"}); !errors.As(err, &notPub) {
		t.Errorf("only k9: %v", err)
	}
	if _, err := k2.Trust(testkit.Discovery("https://h.example"), hostRef, "x", now, nil); !errors.Is(err, keys.ErrNoSigningKeys) {
		t.Errorf("no keys: %v", err)
	}
}

// A keyring certcut writes is one its published JSON Schema (generated from these
// types) accepts, and the schema's $id is the one the file names.
func TestKeyringMatchesItsSchema(t *testing.T) {
	raw, err := schemas.Get("keyring")
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.ID != keys.KeyringSchemaID {
		t.Fatalf("$id %q, want %q (%v)", head.ID, keys.KeyringSchemaID, err)
	}
	v, err := validate.Compile("keyring")
	if err != nil {
		t.Fatal(err)
	}
	k := keys.NewKeyring()
	host := keys.KeyringHost{Name: "h", Origin: "https://h.example"}
	doc := testkit.Discovery("https://h.example", keys.PublicKey{Key: testkit.Public("host"), KeyID: "k1"}.Entry())
	if _, err := k.Trust(doc, host, "https://h.example/.well-known/openwop", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "keyring.json")
	if err := k.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	parsed, err := bundle.ParseIJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if problems := v.Validate(parsed); len(problems) > 0 {
		t.Errorf("a saved keyring breaks its schema: %v", problems)
	}
	pinned, _ := parsed.Get("keys")
	hostV, _ := pinned.Items()[0].Get("host")
	several := parsed.With("keys", bundle.ArrayValue(pinned.Items()[0].With("host", hostV.Without("origin").With("origins", bundle.ArrayValue(bundle.StringValue("https://h.example"), bundle.StringValue("http://127.0.0.1:3838"))))))
	if problems := v.Validate(several); len(problems) > 0 {
		t.Errorf("a key pinned with two origins breaks the schema: %v", problems)
	}
	if problems := v.Validate(parsed.With("keys", bundle.ArrayValue(pinned.Items()[0].With("host", hostV.With("origins", bundle.ArrayValue(bundle.StringValue("https://b.example"))))))); len(problems) == 0 {
		t.Error("host.origin and host.origins together pass the schema")
	}
	revoked := parsed.With("keys", bundle.ArrayValue(pinned.Items()[0].With("revokedAt", bundle.StringValue("2026-11-02T00:00:00Z"))))
	if problems := v.Validate(revoked); len(problems) == 0 {
		t.Error("a revocation without a reason passes the schema")
	}
}

// A key pinned with several origins: one origin is written as host.origin (what
// every reader knows), several as host.origins; an older file's empty origin
// still reads and pins nothing; trusting again with a new origin adds it.
func TestKeyringOrigins(t *testing.T) {
	h := keys.KeyringHost{Name: "h"}
	if got := h.WithOrigins("https://a.example"); got.Origin != "https://a.example" || got.Origins != nil {
		t.Errorf("one origin: %+v", got)
	}
	two := h.WithOrigins("https://a.example", "https://b.example", "https://a.example")
	if two.Origin != "" || !slices.Equal(two.Origins, []string{"https://a.example", "https://b.example"}) {
		t.Errorf("two origins: %+v", two)
	}
	if !two.Pins("https://b.example") || two.Pins("https://c.example") || two.Pins("") || h.Pins("") {
		t.Error("Pins")
	}
	for name, tc := range map[string]struct {
		text string
		pins []string
	}{
		"old empty origin": {`{"keyringVersion":1,"keys":[{"keyId":"k1","alg":"ed25519","publicKey":"8babQHGzpbq76nGBRHtNSPwCqrUakRz1aCLQo3GxNZc","host":{"name":"h","origin":""}}]}`, nil},
		"old one origin":   {`{"keyringVersion":1,"keys":[{"keyId":"k1","alg":"ed25519","publicKey":"8babQHGzpbq76nGBRHtNSPwCqrUakRz1aCLQo3GxNZc","host":{"name":"h","origin":"https://a.example"}}]}`, []string{"https://a.example"}},
		"no origin":        {`{"keyringVersion":1,"keys":[{"keyId":"k1","alg":"ed25519","publicKey":"8babQHGzpbq76nGBRHtNSPwCqrUakRz1aCLQo3GxNZc","host":{"name":"h"}}]}`, nil},
		"origins":          {`{"keyringVersion":1,"keys":[{"keyId":"k1","alg":"ed25519","publicKey":"8babQHGzpbq76nGBRHtNSPwCqrUakRz1aCLQo3GxNZc","host":{"name":"h","origins":["https://a.example","http://127.0.0.1:3838"]}}]}`, []string{"https://a.example", "http://127.0.0.1:3838"}},
	} {
		k, err := keys.ParseKeyring([]byte(tc.text))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := k.Keys[0].Host.PinnedOrigins(); !slices.Equal(got, tc.pins) {
			t.Errorf("%s: pins %v, want %v", name, got, tc.pins)
		}
	}

	k := keys.NewKeyring()
	now := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	pub := keys.PublicKey{Key: testkit.Public("host"), KeyID: "k1"}
	res, err := k.TrustKey(pub, keys.KeyringHost{Name: "h", Origin: "https://a.example"}, "pem-file k1.pub.pem", now)
	if err != nil || !slices.Equal(res.Added, []string{"k1"}) {
		t.Fatalf("TrustKey: %+v %v", res, err)
	}
	if e, _ := k.Lookup("k1"); e.PublicKey != pub.Base64URL() || e.Source != "pem-file k1.pub.pem" || e.Use != keys.UseCertificationBundle || e.Host.Origin != "https://a.example" {
		t.Errorf("pinned from a PEM: %+v", e)
	}
	res, err = k.TrustKey(pub, keys.KeyringHost{Name: "h", Origins: []string{"https://b.example"}}, "again", now)
	if err != nil || !slices.Equal(res.Updated, []string{"k1"}) {
		t.Fatalf("a second origin: %+v %v", res, err)
	}
	if e, _ := k.Lookup("k1"); !slices.Equal(e.Host.Origins, []string{"https://a.example", "https://b.example"}) || e.Host.Origin != "" || e.Source != "pem-file k1.pub.pem" {
		t.Errorf("after a second origin: %+v", e.Host)
	}
	if res, err = k.TrustKey(pub, keys.KeyringHost{Name: "h", Origin: "https://b.example"}, "again", now); err != nil || len(res.Unchanged) != 1 {
		t.Errorf("an origin already pinned: %+v %v", res, err)
	}
	if err := k.Validate(); err != nil {
		t.Error(err)
	}
	if _, err := k.TrustKey(keys.PublicKey{Key: testkit.Public("host"), KeyID: "a b"}, h, "x", now); err == nil {
		t.Error("a bad key id was pinned")
	}
}
