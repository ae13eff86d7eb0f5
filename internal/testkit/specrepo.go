package testkit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
)

// Fixture hosts of SpecRepo.
const (
	OriginTier1    = "https://host.example"
	OriginTier2    = "https://tier2.example"
	OriginUnlisted = "https://unlisted.example"
)

// FixtureKey is a deterministic test key with the id it signs under.
type FixtureKey struct{ Name, ID string }

// Fixture keys: the host key, a tier-2 host's key, a key the keyring retired on
// 2026-10-01 and a key the keyring revoked.
var (
	KeyHost    = FixtureKey{"host", HostKeyID}
	KeyTier2   = FixtureKey{"tier2", "tier2-host-1"}
	KeyRetired = FixtureKey{"old", "old-host-1"}
	KeyRevoked = FixtureKey{"leaked", "leaked-host-1"}
)

// Public returns the key as a trusted PublicKey.
func (k FixtureKey) Public() keys.PublicKey {
	return keys.PublicKey{Key: Public(k.Name), KeyID: k.ID, Source: keys.SourcePEMFile, Origin: "testkit"}
}

// BuildBundle returns a coherent bundle for origin signed with k, with Rows() plus
// extra rows; mutate (may be nil) edits it before it is sealed and signed.
func BuildBundle(origin string, k FixtureKey, extra []bundle.Row, mutate func(*bundle.Bundle)) *bundle.Bundle {
	b := Unsigned(origin)
	doc := Discovery(origin, k.Public().Entry())
	b.Discovery.Document = &doc
	b.Host.SigningKeyID = k.ID
	b.Results.Requirements = append(b.Results.Requirements, extra...)
	if mutate != nil {
		mutate(b)
	}
	if err := b.Seal(); err != nil {
		panic(err)
	}
	return Sign(b, k.Name, k.ID)
}

// Pass is a passing requirement row openwop.requirement.<short> with 2 assertions.
func Pass(short string) bundle.Row {
	return Row("openwop.requirement."+short, "v2-fixture.test.ts", 2)
}

// NonPass is a non-pass requirement row openwop.requirement.<short>.
func NonPass(short, result, reason string) bundle.Row {
	return NonPassRow("openwop.requirement."+short, "v2-fixture.test.ts", result, reason)
}

// SpecRepoBundles returns the fixture bundles of SpecRepo by file name. Each
// carries Rows() and ids of RFC 09xx that only it carries, so a gate over one id
// exercises one reason:
//
//	good.json         tier 1, VERIFIED: 0901.good, 0901.shared, 0910.partial (partial
//	                  witness), 0911.gated (inapplicable with a reason), 0913.family.{a,b},
//	                  0914.mixed.a (pass) and 0914.mixed.b (inapplicable)
//	tier2.json        tier 2: 0902.tier2-only
//	relaxed.json      declares the relaxation sandbox.exec-isolation: 0903.relaxed-only, 0901.shared
//	guard-open.json   0171 egress-guard row executed-fail (claims discovery-core only): 0904.guard-only
//	uncertified.json  openwop-core-standard claimed, not certified: 0905.uncertified-only
//	tampered.json     a row changed after signing (REJECTED): 0906.tampered-only
//	unlisted.json     origin not in host-tiers.json: 0907.unlisted-only
//	retired.json      signed by a key the keyring retired before generatedAt: 0908.retired-only
//	revoked.json      signed by a key the keyring revokes: 0909.revoked-only
func SpecRepoBundles() map[string]*bundle.Bundle {
	out := map[string]*bundle.Bundle{}
	out["good.json"] = BuildBundle(OriginTier1, KeyHost, []bundle.Row{
		Pass("0901.good"), Pass("0901.shared"),
		detailed(Pass("0910.partial"), "partial-witness: one leg was inapplicable"),
		NonPass("0911.gated", bundle.Inapplicable, "the host lists no HTTP+JSON interface"),
		Pass("0913.family.a"), Pass("0913.family.b"),
		Pass("0914.mixed.a"), NonPass("0914.mixed.b", bundle.Inapplicable, "seam not advertised"),
	}, nil)
	out["tier2.json"] = BuildBundle(OriginTier2, KeyTier2, []bundle.Row{Pass("0902.tier2-only")}, nil)
	out["relaxed.json"] = BuildBundle(OriginTier1, KeyHost, []bundle.Row{Pass("0903.relaxed-only"), Pass("0901.shared")}, func(b *bundle.Bundle) {
		b.Host.Relaxations = []bundle.Relaxation{{Obligation: "sandbox.exec-isolation", Durability: "session", Reason: "loopback lane"}}
	})
	out["guard-open.json"] = BuildBundle(OriginTier1, KeyHost, []bundle.Row{Pass("0904.guard-only")}, func(b *bundle.Bundle) {
		for i, r := range b.Results.Requirements {
			if r.ID == "openwop.requirement.0171.webhook-egress-refused" {
				b.Results.Requirements[i] = NonPassRow(r.ID, r.Scenario, bundle.ExecutedFail, "a webhook to 127.0.0.1 was delivered")
			}
		}
		b.ClaimedProfiles = b.ClaimedProfiles[:1]
	})
	out["uncertified.json"] = BuildBundle(OriginTier1, KeyHost, []bundle.Row{Pass("0905.uncertified-only")}, func(b *bundle.Bundle) {
		b.ClaimedProfiles[1].Certified = false
	})
	tampered := BuildBundle(OriginTier1, KeyHost, []bundle.Row{Pass("0906.tampered-only")}, nil)
	rows := tampered.Results.Requirements
	three := int64(3)
	rows[len(rows)-1].Assertions = &three
	tampered.Raw = tampered.Value()
	out["tampered.json"] = tampered
	out["unlisted.json"] = BuildBundle(OriginUnlisted, KeyHost, []bundle.Row{Pass("0907.unlisted-only")}, nil)
	out["retired.json"] = BuildBundle(OriginTier1, KeyRetired, []bundle.Row{Pass("0908.retired-only")}, nil)
	out["revoked.json"] = BuildBundle(OriginTier1, KeyRevoked, []bundle.Row{Pass("0909.revoked-only")}, nil)
	return out
}

func detailed(r bundle.Row, detail string) bundle.Row {
	r.Detail = &detail
	return r
}

// SpecRepoKeyring returns the fixture keyring, every key pinned with the origins
// its bundles name (so the keyring binds each bundle's discovery.url): the host
// key (https://host.example and https://unlisted.example), the tier-2 key, the
// retired key (retiredAt 2026-10-01, before the bundles' generatedAt) and the
// revoked key.
func SpecRepoKeyring() *keys.Keyring {
	k := keys.NewKeyring()
	entry := func(fk FixtureKey, host string, origins ...string) keys.KeyringEntry {
		return keys.KeyringEntry{KeyID: fk.ID, Alg: bundle.AlgEd25519, PublicKey: fk.Public().Base64URL(),
			Host: keys.KeyringHost{Name: host}.WithOrigins(origins...), Use: keys.UseCertificationBundle}
	}
	retired := entry(KeyRetired, "test-host", OriginTier1)
	retired.RetiredAt = "2026-10-01T00:00:00Z"
	revoked := entry(KeyRevoked, "test-host", OriginTier1)
	revoked.RevokedAt, revoked.RevocationReason = "2026-10-15T00:00:00Z", "private key published by mistake"
	k.Keys = append(k.Keys, entry(KeyHost, "test-host", OriginTier1, OriginUnlisted), entry(KeyTier2, "tier2-host", OriginTier2), retired, revoked)
	return k
}

// SpecRepo writes a fixture OpenWOP spec-repository layout under dir:
//
//	evidence/v2-host-bundles/*.json   SpecRepoBundles
//	evidence/host-tiers.json          host.example tier 1, tier2.example tier 2
//	evidence/corpus-ledger.json       0920.corpus-pass executed-pass, 0921.corpus-blocked blocked
//	spec/v2/harness-trust-anchors.json  an empty list
//	keys/<keyId>.pub.pem              every fixture key
//	keyring.json                      SpecRepoKeyring (keys pinned with their origins)
//
// RFC texts are the tests' own (scripts write them under RFCS/).
func SpecRepo(dir string) error {
	write := func(rel string, data []byte) error {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	for name, b := range SpecRepoBundles() {
		if err := write(filepath.Join("evidence", "v2-host-bundles", name), Encode(b)); err != nil {
			return err
		}
	}
	if err := WriteTiers(filepath.Join(dir, "evidence", "host-tiers.json"), map[string]int{OriginTier1: 1, OriginTier2: 2}); err != nil {
		return err
	}
	ledger := `{"$comment":"fixture","generated":"2026-11-01","suiteVersion":"2.45.30","scenarios":2,"requirements":{
  "openwop.requirement.0920.corpus-pass":[{"result":"executed-pass","scenario":null}],
  "openwop.requirement.0921.corpus-blocked":[{"result":"blocked","scenario":null}]}}
`
	if err := write(filepath.Join("evidence", "corpus-ledger.json"), []byte(ledger)); err != nil {
		return err
	}
	if err := write(filepath.Join("spec", "v2", "harness-trust-anchors.json"), []byte(`{"version":1,"rows":[]}`+"\n")); err != nil {
		return err
	}
	for _, k := range []FixtureKey{KeyHost, KeyTier2, KeyRetired, KeyRevoked} {
		pemBytes, err := keys.MarshalPublicPEM(Public(k.Name))
		if err != nil {
			return err
		}
		if err := write(filepath.Join("keys", k.ID+keys.PEMSuffix), pemBytes); err != nil {
			return err
		}
	}
	return SpecRepoKeyring().Save(filepath.Join(dir, "keyring.json"))
}

// WriteTiers writes a host-tiers file listing each origin at its tier.
func WriteTiers(path string, tiers map[string]int) error {
	type host struct {
		Name    string   `json:"name"`
		Origins []string `json:"origins"`
		Tier    int      `json:"tier"`
	}
	var hosts []host
	for _, o := range sortedOrigins(tiers) {
		hosts = append(hosts, host{Name: fmt.Sprintf("fixture %s", o), Origins: []string{o}, Tier: tiers[o]})
	}
	data, err := json.MarshalIndent(map[string]any{"$comment": "fixture", "hosts": hosts}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func sortedOrigins(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
