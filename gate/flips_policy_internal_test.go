package gate

import (
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/tiers"
)

// The stricter of two policy files, file by file: a tier is the lower of the
// two, a key's dates the narrower, its origins those both pin, a revocation on
// either side stands, a ledger's executed-pass needs both.
func TestStricterPolicyFiles(t *testing.T) {
	b := &tiers.File{Hosts: []tiers.Host{{Name: "a", Origins: []string{"https://a.example", "https://b.example"}, Tier: 3}, {Name: "c", Origins: []string{"https://c.example"}, Tier: 1}}}
	h := &tiers.File{Hosts: []tiers.Host{{Name: "a", Origins: []string{"https://a.example"}, Tier: 2}, {Name: "c", Origins: []string{"https://c.example"}, Tier: 3}}}
	got := stricterTiers(b, h, "t")
	for origin, want := range map[string]int{"https://a.example": 2, "https://b.example": 0, "https://c.example": 1} {
		m, _ := got.Lookup(origin)
		if m.Tier != want {
			t.Errorf("%s: tier %d, want %d", origin, m.Tier, want)
		}
	}
	if stricterTiers(nil, h, "t") != nil {
		t.Error("a table absent at the base lists nothing")
	}

	base, head := testkit.SpecRepoKeyring(), testkit.SpecRepoKeyring()
	for i := range head.Keys {
		switch head.Keys[i].KeyID {
		case testkit.KeyHost.ID:
			head.Keys[i].RetiredAt = "2026-12-01T00:00:00Z"
			head.Keys[i].Host = keys.KeyringHost{Name: "test-host"}.WithOrigins(testkit.OriginTier1, "https://other.example")
		case testkit.KeyRetired.ID:
			head.Keys[i].RetiredAt = "2027-01-01T00:00:00Z" // the head un-retires it: ignored
		case testkit.KeyRevoked.ID:
			head.Keys[i].RevokedAt, head.Keys[i].RevocationReason = "", ""
		}
	}
	head.Keys = append(head.Keys, keys.KeyringEntry{KeyID: "head-only", Alg: bundle.AlgEd25519, PublicKey: keys.PublicKey{Key: testkit.Public("head-only")}.Base64URL(), Host: keys.KeyringHost{Name: "x"}, Use: keys.UseCertificationBundle})
	ring, err := stricterKeyring(base, head)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := ring.Lookup(testkit.KeyHost.ID); e.RetiredAt != "2026-12-01T00:00:00Z" || e.Host.Pins("https://other.example") || !e.Host.Pins(testkit.OriginTier1) || e.Host.Pins(testkit.OriginUnlisted) {
		t.Errorf("host key: %+v", e)
	}
	if e, _ := ring.Lookup(testkit.KeyRetired.ID); e.RetiredAt != "2026-10-01T00:00:00Z" {
		t.Errorf("retired key: %+v", e)
	}
	if e, _ := ring.Lookup(testkit.KeyRevoked.ID); !e.Revoked() {
		t.Errorf("revoked key: %+v", e)
	}
	if _, ok := ring.Lookup("head-only"); ok {
		t.Error("a key pinned only at the head is trusted")
	}
	// A key only one side pins, revoked there, stays revoked.
	head.Keys = head.Keys[:0]
	if ring, err = stricterKeyring(base, head); err != nil {
		t.Fatal(err)
	}
	if e, ok := ring.Lookup(testkit.KeyRevoked.ID); !ok || !e.Revoked() || len(ring.Keys) != 1 {
		t.Errorf("%+v", ring.Keys)
	}

	pass := []LedgerEntry{{Result: bundle.ExecutedPass}}
	lb := &Ledger{Requirements: map[string][]LedgerEntry{"both": pass, "base-only": pass, "head-fails": pass}}
	lh := &Ledger{Requirements: map[string][]LedgerEntry{"both": pass, "head-only": pass, "head-fails": {{Result: "executed-fail"}}}}
	l := stricterLedger(lb, lh, "l")
	if len(l.Requirements["both"]) != 1 || l.Requirements["base-only"] != nil || l.Requirements["head-only"] != nil || len(l.Requirements["head-fails"]) != 1 || l.Requirements["head-fails"][0].Result != "executed-fail" {
		t.Errorf("%+v", l.Requirements)
	}
}
