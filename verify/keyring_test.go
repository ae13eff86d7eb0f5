package verify_test

import (
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

func ringWith(entries ...keys.KeyringEntry) *keys.Keyring {
	k := keys.NewKeyring()
	k.Keys = append(k.Keys, entries...)
	k.Path = "keyring.json"
	if err := k.Validate(); err != nil {
		panic(err)
	}
	return k
}

func hostEntry() keys.KeyringEntry {
	return keys.KeyringEntry{KeyID: testkit.HostKeyID, Alg: "ed25519", PublicKey: testkit.HostPublic().Base64URL(),
		Host: keys.KeyringHost{Name: "test-host", Origin: "https://h.example"}}
}

func TestKeyringResolvesKey(t *testing.T) {
	b := testkit.Signed("https://h.example")
	v := verify.Bundle(b, nil, verify.Options{Keyring: ringWith(hostEntry()), Registry: profiles.Default()})
	if v.Outcome != verify.Verified || v.HostKey == nil || v.HostKey.Source != string(keys.SourceKeyring) || v.HostKey.Origin != "keyring.json" {
		t.Fatalf("%s %+v %v", v.Outcome, v.HostKey, v.Unverified)
	}
	// A keyring that does not pin the key id: COHERENT, and it says so.
	other := hostEntry()
	other.KeyID, other.PublicKey = "someone-else", keys.PublicKey{Key: testkit.Public("other")}.Base64URL()
	v = verify.Bundle(b, nil, verify.Options{Keyring: ringWith(other), Registry: profiles.Default()})
	if v.Outcome != verify.Coherent || !strings.Contains(strings.Join(v.Unverified, ";"), "keyring keyring.json pins no key test-host-1") {
		t.Fatalf("%s %v", v.Outcome, v.Unverified)
	}
}

func TestRevokedKeyNeverVerifies(t *testing.T) {
	b := testkit.Signed("https://h.example")
	e := hostEntry()
	e.RevokedAt, e.RevocationReason = "2026-10-01T00:00:00Z", "private key leaked"
	ring := ringWith(e)
	for name, opts := range map[string]verify.Options{
		"keyring only":              {Keyring: ring},
		"the same key as a PEM too": {Keyring: ring, HostKeys: keys.Set{testkit.HostPublic()}},
	} {
		opts.Registry = profiles.Default()
		v := verify.Bundle(b, nil, opts)
		if v.Outcome == verify.Verified || v.SignatureVerified || v.HostKey != nil {
			t.Errorf("%s: %s, signatureVerified=%v", name, v.Outcome, v.SignatureVerified)
		}
		if v.RevokedKey == nil || v.RevokedKey.Reason != "private key leaked" {
			t.Errorf("%s: revokedKey %+v", name, v.RevokedKey)
		}
		if !strings.Contains(strings.Join(v.Unverified, ";"), "is revoked in keyring keyring.json since 2026-10-01T00:00:00Z (private key leaked)") {
			t.Errorf("%s: %v", name, v.Unverified)
		}
		if len(v.Rejections) != 0 {
			t.Errorf("%s: revocation is a refusal to use the key, not a rejection: %v", name, v.Rejections)
		}
	}
}
