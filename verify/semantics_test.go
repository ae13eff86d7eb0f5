package verify_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

func hostOpts() verify.Options {
	return verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}
}

// setFloor gives the floor row of stem the result (with a reason when not a pass).
func setFloor(b *bundle.Bundle, stem, result string) {
	for i, r := range b.Results.Requirements {
		if r.ID == profiles.FloorRowID(stem) {
			if result == bundle.ExecutedPass {
				b.Results.Requirements[i] = testkit.Row(r.ID, r.Scenario, 3)
			} else {
				b.Results.Requirements[i] = testkit.NonPassRow(r.ID, r.Scenario, result, "floor scenario "+result)
			}
			return
		}
	}
	panic("no floor row " + stem)
}

func dropFloor(b *bundle.Bundle, stems ...string) {
	b.Results.Requirements = slices.DeleteFunc(b.Results.Requirements, func(r bundle.Row) bool {
		return slices.ContainsFunc(stems, func(s string) bool { return r.ID == profiles.FloorRowID(s) })
	})
}

func joined(ss []string) string { return strings.Join(ss, "\n") }

// A certified flag is re-derived from the profile's floor rows (major 2, with a
// registry): a refuting floor row or no witnessed one is certified-not-witnessed,
// profile-scoped; a missing or inapplicable floor row is a note.
func TestCertifiedNotWitnessed(t *testing.T) {
	const core, disc = "openwop-core-standard", "openwop-discovery-core"
	for _, tc := range []struct {
		name      string
		mutate    func(b *bundle.Bundle)
		kinds     []verify.Kind
		certified []string
		detail    string // in the certified-not-witnessed detail
		note      string // in the notes
	}{
		{"untouched", nil, []verify.Kind{}, []string{disc, core}, "", "no floor row for 9 of its 14 floor scenarios"},
		{"failing floor row", func(b *bundle.Bundle) { setFloor(b, "v2-era-key", bundle.ExecutedFail) },
			[]verify.Kind{"certified-not-witnessed"}, []string{disc}, "openwop.floor.v2-era-key is executed-fail", ""},
		{"skipped floor row", func(b *bundle.Bundle) { setFloor(b, "v2-era-key", bundle.Skipped) },
			[]verify.Kind{"certified-not-witnessed"}, []string{disc}, "openwop.floor.v2-era-key is skipped", ""},
		{"blocked floor row", func(b *bundle.Bundle) { setFloor(b, "v2-era-key", bundle.Blocked) },
			[]verify.Kind{"blocked-certified", "certified-not-witnessed"}, []string{}, "openwop.floor.v2-era-key is blocked", ""},
		{"inapplicable floor row is a note", func(b *bundle.Bundle) { setFloor(b, "v2-era-key", bundle.Inapplicable) },
			[]verify.Kind{}, []string{disc, core}, "", "inapplicable floor rows neither witness nor refute it: openwop.floor.v2-era-key"},
		{"every carried floor row inapplicable", func(b *bundle.Bundle) {
			for _, s := range []string{"v2-interrupt-token-scheme", "v2-effect-seam-manifest", "v2-webhook-durable-delivery", "v2-idempotency-key-grammar", "v2-era-key"} {
				setFloor(b, s, bundle.Inapplicable)
			}
		}, []verify.Kind{"certified-not-witnessed"}, []string{disc}, "none of its 14 floor rows is executed-pass", ""},
		{"no floor row at all", func(b *bundle.Bundle) {
			dropFloor(b, "v2-capabilities-root-closed", "v2-preferred-version-default", "v2-version-header-honored")
		}, []verify.Kind{"certified-not-witnessed"}, []string{core}, "none of its 3 floor rows is executed-pass", "no floor row for 3 of its 3"},
		{"a missing floor row is a note", func(b *bundle.Bundle) { dropFloor(b, "v2-version-header-honored") },
			[]verify.Kind{}, []string{disc, core}, "", "openwop-discovery-core: the bundle carries no floor row for 1 of its 3 floor scenarios (v2-version-header-honored)"},
		{"uncertified claims are not judged", func(b *bundle.Bundle) {
			setFloor(b, "v2-era-key", bundle.ExecutedFail)
			b.ClaimedProfiles[1].Certified = false
		}, []verify.Kind{}, []string{disc}, "", ""},
		{"witnessCount is re-derived, with a note", func(b *bundle.Bundle) { b.ClaimedProfiles[1].WitnessCount = 9 },
			[]verify.Kind{}, []string{disc, core}, "", "openwop-core-standard: witnessCount is 9, but 5 of its floor rows are executed-pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testkit.Unsigned("https://h.example")
			if tc.mutate != nil {
				tc.mutate(b)
			}
			v := sealVerify(t, b, hostOpts())
			if !slices.Equal(v.Kinds(), tc.kinds) {
				t.Fatalf("kinds %v, want %v: %+v", v.Kinds(), tc.kinds, v.Rejections)
			}
			if !slices.Equal(v.CertifiedProfiles, tc.certified) {
				t.Errorf("certified %v, want %v", v.CertifiedProfiles, tc.certified)
			}
			for _, r := range v.Rejections {
				if r.Kind == verify.KindCertifiedNotWitnessed && (r.Profile == "" || !strings.Contains(r.Detail, tc.detail)) {
					t.Errorf("rejection %+v: want a profile and %q", r, tc.detail)
				}
			}
			if tc.note != "" && !strings.Contains(joined(v.Notes), tc.note) {
				t.Errorf("notes lack %q:\n%s", tc.note, joined(v.Notes))
			}
			if len(tc.kinds) == 0 && v.Outcome != verify.Verified {
				t.Errorf("outcome %s %v", v.Outcome, v.Unverified)
			}
		})
	}
	// Not at major 1, not without a registry: the floor is the v2 registry's.
	for name, opts := range map[string]verify.Options{
		"no registry": {HostKeys: keys.Set{testkit.HostPublic()}},
	} {
		b := testkit.Unsigned("https://h.example")
		setFloor(b, "v2-era-key", bundle.ExecutedFail)
		if v := sealVerify(t, b, opts); v.HasRejection(verify.KindCertifiedNotWitnessed) {
			t.Errorf("%s: %v", name, v.Rejections)
		}
	}
	b := testkit.Unsigned("https://h.example")
	b.Suite.TargetMajor = 1
	setFloor(b, "v2-era-key", bundle.ExecutedFail)
	if v := sealVerify(t, b, hostOpts()); v.HasRejection(verify.KindCertifiedNotWitnessed) {
		t.Errorf("major 1: %v", v.Rejections)
	}
}

// Minting's claim rule (profiles.Assess) and the verifier agree: whatever state a
// floor row is in, a bundle claiming what Assess decides is never refused for its
// certified flags or its witnessCount.
func TestAssessAgreesWithVerify(t *testing.T) {
	reg := profiles.Default()
	for _, state := range []string{bundle.ExecutedPass, bundle.ExecutedFail, bundle.Skipped, bundle.Blocked, bundle.Inapplicable, "vacuous", "missing"} {
		t.Run(state, func(t *testing.T) {
			b := testkit.Unsigned("https://h.example")
			have := map[string]bool{}
			for _, r := range b.Results.Requirements {
				have[r.ID] = true
			}
			for _, p := range reg.Profiles {
				for _, s := range p.FloorScenarios {
					if id := profiles.FloorRowID(s); !have[id] {
						b.Results.Requirements = append(b.Results.Requirements, testkit.Row(id, s+".test.ts", 2))
					}
				}
			}
			switch state {
			case "vacuous":
				for i, r := range b.Results.Requirements {
					if r.ID == profiles.FloorRowID("v2-era-key") {
						b.Results.Requirements[i] = testkit.Row(r.ID, r.Scenario, 0)
					}
				}
			case "missing":
				dropFloor(b, "v2-era-key")
			default:
				setFloor(b, "v2-era-key", state)
			}
			b.ClaimedProfiles = nil
			for _, a := range reg.Assess(*b.Discovery.Document, b.Results.Requirements, nil) {
				b.ClaimedProfiles = append(b.ClaimedProfiles, bundle.ClaimedProfile{ID: a.ID, EvidenceTier: bundle.TierSelf, WitnessCount: a.WitnessCount, Certified: a.Certified})
			}
			v := sealVerify(t, b, hostOpts())
			if v.HasRejection(verify.KindCertifiedNotWitnessed) {
				t.Errorf("Assess claimed what verify refuses: %+v", v.Rejections)
			}
			if strings.Contains(joined(v.Notes), "witnessCount is") {
				t.Errorf("witnessCount disagrees: %v", v.Notes)
			}
			certifiesCore := slices.Contains(v.CertifiedProfiles, "openwop-core-standard")
			if want := state == bundle.ExecutedPass || state == bundle.Inapplicable; certifiesCore != want {
				t.Errorf("core-standard certified %v, want %v (%v)", certifiesCore, want, v.Rejections)
			}
		})
	}
}

// An obligation with an empty family (text before the first '.') denies every
// profile, as the reference's includes("") does.
func TestEmptyFamilyRelaxation(t *testing.T) {
	for _, obligation := range []string{"", ".egress-guard"} {
		b := testkit.Unsigned("https://h.example")
		b.Host.Relaxations = []bundle.Relaxation{{Obligation: obligation, Durability: "session", Reason: "loopback"}}
		v := sealVerify(t, b, hostOpts())
		var scoped []string
		for _, r := range v.Rejections {
			if r.Kind == verify.KindRelaxedProfileCertified {
				scoped = append(scoped, r.Profile)
			}
		}
		if !slices.Equal(scoped, []string{"openwop-discovery-core", "openwop-core-standard"}) || len(v.CertifiedProfiles) != 0 {
			t.Errorf("%q: relaxed-profile-certified for %v, certified %v: %+v", obligation, scoped, v.CertifiedProfiles, v.Rejections)
		}
		// The honest bundle marks both uncertified: nothing to certify, no rejection
		// but the schema's view of the obligation.
		b = testkit.Unsigned("https://h.example")
		b.Host.Relaxations = []bundle.Relaxation{{Obligation: obligation, Durability: "session", Reason: "loopback"}}
		b.ClaimedProfiles[0].Certified, b.ClaimedProfiles[1].Certified = false, false
		v = sealVerify(t, b, hostOpts())
		if v.HasRejection(verify.KindRelaxedProfileCertified) || len(v.CertifiedProfiles) != 0 {
			t.Errorf("%q uncertified: %v %v", obligation, v.Rejections, v.CertifiedProfiles)
		}
	}
}

// Assertion totals that pass 2^63 are an assertion-count rejection, never a wrapped
// total that happens to equal the stored count.
func TestAssertionSumDoesNotWrap(t *testing.T) {
	const maxSafe = 1<<53 - 1
	b := testkit.Unsigned("https://h.example")
	base := b.AssertionCount
	// 2049 rows of 2^53−1 sum to 2^64 + 2^53 − 2049: in int64 that wraps to a small,
	// positive, I-JSON-safe number. Seal refuses to write a wrapped count, so the
	// forger's bundle is sealed with small counts, then given the huge ones, a
	// recomputed witness (signed) and the wrapped assertionCount (not signed).
	for i := range 2049 {
		b.Results.Requirements = append(b.Results.Requirements, testkit.Row(fmt.Sprintf("openwop.requirement.0999.huge-%04d", i), "v2-huge.test.ts", 1))
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	huge := int64(maxSafe)
	for i := range b.Results.Requirements[len(b.Results.Requirements)-2049:] {
		b.Results.Requirements[len(b.Results.Requirements)-2049+i].Assertions = &huge
	}
	if _, ok := bundle.SumAssertions(b.Results.Requirements); ok {
		t.Fatal("the fixture does not pass 2^63")
	}
	if err := b.Seal(); err == nil {
		t.Fatal("Seal wrote a count for assertions that sum past 2^63")
	}
	wrapped := base + 1<<53 - 2049
	b.AssertionCount = wrapped
	witness, err := bundle.WitnessDigest(b.Value())
	if err != nil {
		t.Fatal(err)
	}
	b.WitnessSha256 = witness
	testkit.Sign(b, "host", testkit.HostKeyID)
	v, err := verify.Parse(testkit.Encode(b), hostOpts())
	if err != nil {
		t.Fatal(err)
	}
	if wrapped <= 0 || wrapped > maxSafe {
		t.Fatalf("the wrapped count %d is not a small positive I-JSON integer", wrapped)
	}
	if !slices.Equal(v.Kinds(), []verify.Kind{"assertion-count"}) || v.Outcome != verify.Rejected {
		t.Fatalf("%s %+v", v.Outcome, v.Rejections)
	}
	if d := v.Rejections[0].Detail; !strings.Contains(d, "sum past 9223372036854775807") {
		t.Errorf("detail %q", d)
	}
	// Just below the edge the sum is exact, and a wrong count is named with it.
	b = testkit.Unsigned("https://h.example")
	for i := range 1023 {
		b.Results.Requirements = append(b.Results.Requirements, testkit.Row(fmt.Sprintf("openwop.requirement.0999.big-%04d", i), "v2-huge.test.ts", maxSafe))
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	if b.AssertionCount != base+1023*maxSafe || b.AssertionCount > math.MaxInt64 {
		t.Fatalf("sum %d", b.AssertionCount)
	}
}

// The verifier key must differ from the host key by its bytes, not only by id.
func TestIndependentSelfSignedByBytes(t *testing.T) {
	build := func() *bundle.Bundle {
		b := testkit.Unsigned("https://h.example")
		b.ClaimedProfiles[0].EvidenceTier = bundle.TierIndependent
		if err := b.Seal(); err != nil {
			t.Fatal(err)
		}
		return testkit.Sign(b, "host", testkit.HostKeyID)
	}
	hostSigner, _ := keys.NewSigner(testkit.Key("host"))
	asVerifier := keys.PublicKey{Key: testkit.Public("host"), KeyID: "verifier-1", Source: keys.SourcePEMFile, Origin: "verifier-1.pub.pem"}
	reg := profiles.Default()

	// The host countersigns under another id: Ed25519 is deterministic, so the
	// verifier signature is the host signature itself.
	b := build()
	if err := keys.CountersignBundle(b, hostSigner, "verifier-1"); err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]verify.Options{
		"trusted host key":           {HostKeys: keys.Set{testkit.HostPublic()}, VerifierKeys: keys.Set{asVerifier}, Registry: reg},
		"no keys at all":             {Registry: reg},
		"only the verifier key":      {VerifierKeys: keys.Set{asVerifier}, Registry: reg},
		"host key as a verifier key": {HostKeys: keys.Set{testkit.HostPublic()}, VerifierKeys: keys.Set{testkit.HostPublic()}, Registry: reg, UnsafeLoneKeyAnyKeyID: true},
	} {
		v, _ := verify.Parse(testkit.Encode(b), opts)
		if !slices.Equal(v.Kinds(), []verify.Kind{"independent-self-signed"}) || v.VerifierSignatureVerified {
			t.Errorf("%s: %s %+v", name, v.Outcome, v.Rejections)
		}
	}

	// A verifier signature that is not the host signature, yet verifies under the
	// host's key bytes: here the host signature is damaged, and the verifier
	// signature, named verifier-1, is the host's valid one.
	b = build()
	valid := b.Signature.Sig
	raw, _ := bundle.ParseIJSON(testkit.Encode(b))
	raw = set("verifierSignature", bundle.ObjectValue(
		bundle.Member{Name: "alg", Value: str(bundle.AlgEd25519)},
		bundle.Member{Name: "keyId", Value: str("verifier-1")},
		bundle.Member{Name: "sig", Value: str(valid)},
	))(t, raw)
	raw = flipSig(t, raw)
	for name, opts := range map[string]verify.Options{
		"under the trusted host key":   {HostKeys: keys.Set{testkit.HostPublic()}, VerifierKeys: keys.Set{asVerifier}, Registry: reg},
		"under the self-published key": {VerifierKeys: keys.Set{asVerifier}, Registry: reg},
	} {
		got, _ := bundle.Decode(raw)
		v := verify.Bundle(got, nil, opts)
		if !v.HasRejection(verify.KindIndependentSelfSigned) || v.VerifierSignatureVerified {
			t.Errorf("%s: %s %+v", name, v.Outcome, v.Rejections)
		}
		for _, r := range v.Rejections {
			if r.Kind == verify.KindIndependentSelfSigned && !strings.Contains(r.Detail, "verifies under the host's key") {
				t.Errorf("%s: detail %q", name, r.Detail)
			}
		}
	}
}

// A keyring's revocation applies to verifier keys too: a revoked verifier key
// never verifies, and the verdict says so.
func TestRevokedVerifierKey(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	b.ClaimedProfiles[0].EvidenceTier = bundle.TierIndependent
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	signer, _ := keys.NewSigner(testkit.Key("verifier"))
	if err := keys.CountersignBundle(b, signer, "verifier-1"); err != nil {
		t.Fatal(err)
	}
	verifierKey := keys.PublicKey{Key: testkit.Public("verifier"), KeyID: "verifier-1", Source: keys.SourcePEMFile, Origin: "verifier-1.pub.pem"}
	ring := keys.NewKeyring()
	ring.Path = "ring.json"
	ring.Keys = append(ring.Keys, keys.KeyringEntry{KeyID: "verifier-1", Alg: bundle.AlgEd25519, PublicKey: verifierKey.Base64URL(),
		Host: keys.KeyringHost{Name: "verifier", Origin: "https://verifier.example"}, Use: keys.UseCertificationBundle,
		RevokedAt: "2026-10-15T00:00:00Z", RevocationReason: "lost"})
	opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, VerifierKeys: keys.Set{verifierKey}, Registry: profiles.Default(), Keyring: ring}
	v, _ := verify.Parse(testkit.Encode(b), opts)
	if v.Outcome != verify.Coherent || v.VerifierSignatureVerified || v.VerifierKey != nil || v.RevokedVerifierKey == nil {
		t.Fatalf("%s verified=%v key=%+v revoked=%+v %v", v.Outcome, v.VerifierSignatureVerified, v.VerifierKey, v.RevokedVerifierKey, v.Rejections)
	}
	if !strings.Contains(joined(v.Unverified), "verifier key verifier-1 (SHA256:") || !strings.Contains(joined(v.Unverified), "is revoked in keyring ring.json since 2026-10-15T00:00:00Z (lost); a revoked key never verifies") {
		t.Errorf("reasons %v", v.Unverified)
	}
	// The same key without the keyring verifies.
	opts.Keyring = nil
	if v, _ := verify.Parse(testkit.Encode(b), opts); v.Outcome != verify.Verified {
		t.Errorf("without the keyring: %s %v %v", v.Outcome, v.Rejections, v.Unverified)
	}
}

// Keys are chosen by id; the lone-key fallback is an explicit option, for one file
// or raw key only, and the verdict says when the ids differ.
func TestKeyChoice(t *testing.T) {
	data := testkit.Encode(testkit.Signed("https://h.example"))
	pub := testkit.Public("host")
	named := keys.PublicKey{Key: pub, KeyID: "host-old", Source: keys.SourcePEMFile, Origin: "host-old.pub.pem"}
	anonymous := keys.PublicKey{Key: pub, Source: keys.SourceRaw}
	inDir := named
	inDir.Origin, inDir.FromDir = "keys/host-old.pub.pem", true
	other := keys.PublicKey{Key: testkit.Public("other"), KeyID: "other", Source: keys.SourcePEMFile, Origin: "other.pub.pem"}
	for _, tc := range []struct {
		name    string
		set     keys.Set
		lone    bool
		outcome verify.Outcome
		match   string
		text    string // in the notes (VERIFIED) or the reasons (COHERENT)
		not     string
	}{
		{"one file of another id, by id only", keys.Set{named}, false, verify.Coherent, "",
			"the supplied host key is not named test-host-1 (given: host-old.pub.pem)", "no --host-key was given"},
		{"one file of another id, lone-key rule", keys.Set{named}, true, verify.Verified, verify.MatchLoneKey,
			"the only --host-key given, host-old.pub.pem, is named host-old, not test-host-1 (signature.keyId)", ""},
		{"a raw key, lone-key rule: no id to differ", keys.Set{anonymous}, true, verify.Verified, verify.MatchLoneKey, "", "is named"},
		{"a directory's only key is chosen by id", keys.Set{inDir}, true, verify.Coherent, "",
			"the supplied host key is not named test-host-1 (given: keys/host-old.pub.pem)", ""},
		{"two keys: no fallback", keys.Set{named, other}, true, verify.Coherent, "",
			"none of the 2 supplied host keys is named test-host-1 (given: host-old.pub.pem, other.pub.pem)", ""},
		{"none", nil, true, verify.Coherent, "", "host signature not checked: no --host-key was given", ""},
		{"by id", keys.Set{other, testkit.HostPublic()}, false, verify.Verified, verify.MatchKeyID, "", "is named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := verify.Parse(data, verify.Options{HostKeys: tc.set, Registry: profiles.Default(), UnsafeLoneKeyAnyKeyID: tc.lone})
			if v.Outcome != tc.outcome {
				t.Fatalf("outcome %s %v %v", v.Outcome, v.Rejections, v.Unverified)
			}
			all := joined(v.Notes) + "\n" + joined(v.Unverified)
			if tc.text != "" && !strings.Contains(all, tc.text) {
				t.Errorf("lacks %q:\n%s", tc.text, all)
			}
			if tc.not != "" && strings.Contains(all, tc.not) {
				t.Errorf("says %q:\n%s", tc.not, all)
			}
			if tc.match != "" && (v.HostKey == nil || v.HostKey.Match != tc.match) {
				t.Errorf("hostKey %+v, want match %s", v.HostKey, tc.match)
			}
			if tc.outcome == verify.Coherent && (v.HostKey != nil || v.NoTrustedKey == "") {
				t.Errorf("hostKey %+v noTrustedKey %q", v.HostKey, v.NoTrustedKey)
			}
		})
	}
}

// What no signature covers is listed, with its value; host.signingKeyId naming
// another key than signature.keyId is a note; discovery.protocolVersions and
// preferredVersion are re-derived from the signed document.
func TestUnsignedClaims(t *testing.T) {
	data := testkit.Encode(testkit.Signed("https://h.example"))
	v, _ := verify.Parse(data, hostOpts())
	for member, want := range map[string]string{
		"generatedAt":                    `"2026-11-01T12:00:00.000Z"`,
		"host.name":                      `"test-host"`,
		"host.vendor":                    `"certcut tests"`,
		"discovery.url":                  `"https://h.example/.well-known/openwop"`,
		"claimedProfiles[].evidenceTier": `["self","self"]`,
		"claimedProfiles[].witnessCount": `[3,5]`,
		"suite.targetMajor":              `2`,
	} {
		if got := string(v.Unsigned[member]); got != want {
			t.Errorf("unsigned %s = %s, want %s", member, got, want)
		}
	}
	if got := string(v.Unsigned["detail.nonPass"]); got != "1" {
		t.Errorf("detail.nonPass is listed by its number of entries: %s", got)
	}
	for _, member := range []string{"discovery.protocolVersions", "discovery.preferredVersion", "host.build", "witnessSha256", "claimedProfiles[].certified"} {
		if _, ok := v.Unsigned[member]; ok {
			t.Errorf("%s listed as unsigned", member)
		}
	}
	out, err := json.Marshal(v)
	if err != nil || !strings.Contains(string(out), `"unsigned":{"claimedProfiles[].evidenceTier":["self","self"]`) {
		t.Errorf("JSON: %v %.300s", err, out)
	}

	base, _ := bundle.ParseIJSON(data)
	for _, tc := range []struct {
		name  string
		mut   mutation
		kinds []verify.Kind
		note  string
	}{
		{"signingKeyId differs", set("host/signingKeyId", str("someone-else")), []verify.Kind{}, "host.signingKeyId is someone-else, but signature.keyId is test-host-1"},
		{"protocolVersions restated wrongly", set("discovery/protocolVersions", bundle.StringsValue([]string{"1.0", "2.0"})), []verify.Kind{"discovery-versions-mismatch"}, ""},
		{"preferredVersion restated wrongly", set("discovery/preferredVersion", str("1.0")), []verify.Kind{"discovery-versions-mismatch"}, ""},
		{"generatedAt edited: nothing notices", set("generatedAt", str("2020-01-01T00:00:00Z")), []verify.Kind{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, problems := bundle.Decode(tc.mut(t, base))
			v := verify.Bundle(b, problems, hostOpts())
			if !slices.Equal(v.Kinds(), tc.kinds) {
				t.Fatalf("kinds %v: %+v", v.Kinds(), v.Rejections)
			}
			if tc.note != "" && !strings.Contains(joined(v.Notes), tc.note) {
				t.Errorf("notes lack %q: %v", tc.note, v.Notes)
			}
		})
	}
	// A document that does not carry the members: they stay unsigned.
	doc := testkit.Discovery("https://h.example").Without("protocolVersions")
	b := testkit.Unsigned("https://h.example")
	b.Discovery.Document = &doc
	v = sealVerify(t, b, hostOpts())
	if _, ok := v.Unsigned["discovery.protocolVersions"]; !ok || v.HasRejection(verify.KindDiscoveryVersionsMismatch) {
		t.Errorf("protocolVersions not derivable: %v %v", v.Unsigned, v.Rejections)
	}
}

// A hostile bundle with very many bad rows keeps the first MaxRejectionsPerKind of
// each kind and counts the rest; the outcome and exit code are those of the full
// list.
func TestRejectionsAreBounded(t *testing.T) {
	const n = 200_000
	base, _ := bundle.ParseIJSON(testkit.Encode(testkit.Signed("https://h.example")))
	rows := slices.Clone(get(t, base, "results/requirements").Items())
	for i := range n {
		rows = append(rows, bundle.ObjectValue(
			bundle.Member{Name: "id", Value: str(fmt.Sprintf("openwop.requirement.0999.bad-%06d", i))},
			bundle.Member{Name: "scenario", Value: str("v2-bad.test.ts")},
			bundle.Member{Name: "result", Value: str(bundle.ExecutedFail)},
			bundle.Member{Name: "extra", Value: bundle.BoolValue(true)},
		))
	}
	b, problems := bundle.Decode(set("results/requirements", bundle.ArrayValue(rows...))(t, base))
	v := verify.Bundle(b, problems, hostOpts())
	if v.Outcome != verify.Rejected || v.ExitCode() != 1 {
		t.Fatalf("outcome %s", v.Outcome)
	}
	perKind := map[verify.Kind]int{}
	summaries := 0
	for _, r := range v.Rejections {
		perKind[r.Kind]++
		if r.Omitted > 0 {
			summaries++
			if r.Profile != "" || !strings.Contains(r.Detail, "more "+string(r.Kind)+" rejections are not listed") {
				t.Errorf("summary %+v", r)
			}
		}
	}
	for k, c := range perKind {
		if c > verify.MaxRejectionsPerKind+1 {
			t.Errorf("%d %s rejections listed", c, k)
		}
	}
	if perKind[verify.KindReasonMissing] != verify.MaxRejectionsPerKind+1 || perKind[verify.KindSchema] != verify.MaxRejectionsPerKind+1 {
		t.Errorf("per kind %v", perKind)
	}
	// Every row lacks a reason and has a member the schema does not know: n of each.
	if v.OmittedRejections < 2*(n-verify.MaxRejectionsPerKind) || v.ProblemCount() != len(v.Rejections)-summaries+v.OmittedRejections {
		t.Errorf("omitted %d, problems %d", v.OmittedRejections, v.ProblemCount())
	}
	if len(v.CertifiedProfiles) != 0 {
		t.Errorf("certified %v", v.CertifiedProfiles)
	}
	// The summary follows the last listed rejection of its kind.
	for i, r := range v.Rejections {
		if r.Omitted > 0 && (i == 0 || v.Rejections[i-1].Kind != r.Kind) {
			t.Errorf("summary %d of %s does not follow its kind", i, r.Kind)
		}
	}
}

// A bundle that claims more profiles or declares more relaxations than certcut
// judges is rejected at once (too-many-claims), instead of keeping the verifier
// busy comparing claims with claims; the discovery digest is still checked.
func TestTooManyClaims(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	for i := range verify.MaxClaimedProfiles {
		b.ClaimedProfiles = append(b.ClaimedProfiles, bundle.ClaimedProfile{ID: fmt.Sprintf("openwop-extra-%d", i), EvidenceTier: bundle.TierSelf, Certified: true})
	}
	v := sealVerify(t, b, hostOpts())
	if !v.HasRejection(verify.KindTooManyClaims) || len(v.CertifiedProfiles) != 0 || v.Outcome != verify.Rejected {
		t.Fatalf("%s %v %v", v.Outcome, v.Kinds(), v.CertifiedProfiles)
	}
	if v.DiscoveryRecomputed == "" || v.HasRejection(verify.KindDiscoveryDigest) {
		t.Errorf("the discovery digest was not checked: %q %v", v.DiscoveryRecomputed, v.Kinds())
	}
	b = testkit.Unsigned("https://h.example")
	for i := range verify.MaxRelaxations + 1 {
		b.Host.Relaxations = append(b.Host.Relaxations, bundle.Relaxation{Obligation: fmt.Sprintf("f%d.x", i), Durability: "session", Reason: "r"})
	}
	if v := sealVerify(t, b, hostOpts()); !v.HasRejection(verify.KindTooManyClaims) {
		t.Fatalf("%v", v.Kinds())
	}
	b = testkit.Unsigned("https://h.example")
	for i := range verify.MaxRelaxations {
		b.Host.Relaxations = append(b.Host.Relaxations, bundle.Relaxation{Obligation: fmt.Sprintf("f%d.x", i), Durability: "session", Reason: "r"})
	}
	if v := sealVerify(t, b, hostOpts()); v.HasRejection(verify.KindTooManyClaims) {
		t.Fatalf("%d relaxations are within the bound: %v", verify.MaxRelaxations, v.Kinds())
	}
}

// The claimed list is unsigned: dropping a claim the signed document derives (to
// hide a profile that is not certified) is a rejection, not a cleaner bundle.
func TestDroppedClaimRejected(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	if len(b.ClaimedProfiles) < 2 {
		t.Fatalf("the fixture claims %d profiles", len(b.ClaimedProfiles))
	}
	dropped := b.ClaimedProfiles[1].ID
	b.ClaimedProfiles = b.ClaimedProfiles[:1]
	v := sealVerify(t, b, hostOpts())
	if !v.HasRejection(verify.KindProfileClaimMissing) || v.Outcome != verify.Rejected || len(v.CertifiedProfiles) != 0 {
		t.Fatalf("%s %v %v", v.Outcome, v.Kinds(), v.CertifiedProfiles)
	}
	if d := v.Rejections[0].Detail; !strings.Contains(d, "derives "+dropped) {
		t.Errorf("detail %q", d)
	}
	// Without a registry nothing is derived, so nothing is missing (COHERENT).
	b = testkit.Unsigned("https://h.example")
	b.ClaimedProfiles = b.ClaimedProfiles[:1]
	opts := hostOpts()
	opts.Registry = nil
	if v := sealVerify(t, b, opts); v.HasRejection(verify.KindProfileClaimMissing) {
		t.Fatalf("no registry: %v", v.Kinds())
	}
}

// A profile claimed twice — the minted certified: false claim, and a second one
// marked certified: true appended to the unsigned list — is REJECTED
// (profile-claim-duplicate, bundle-wide: nothing certified), and the floor rule
// judges the repeated claim too (certified-not-witnessed). The real myndhyve.json
// is the case: its openwop-core-standard floor has an executed-fail row.
func TestRepeatedClaimRejected(t *testing.T) {
	dir := testkit.CorpusDir(t)
	path := filepath.Join(dir, "evidence", "v2-host-bundles", "myndhyve.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := bundle.ParseIJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	b0, _, _ := bundle.Parse(data)
	opts := verify.Options{HostKeys: keys.Set{corpusKey(t, dir, b0)}, Registry: profiles.Default()}
	const core = "openwop-core-standard"
	extra := bundle.ObjectValue(
		bundle.Member{Name: "id", Value: str(core)},
		bundle.Member{Name: "evidenceTier", Value: str("self")},
		bundle.Member{Name: "witnessCount", Value: num(12)},
		bundle.Member{Name: "certified", Value: bundle.BoolValue(true)},
	)
	edited := appendTo("claimedProfiles", func(*testing.T, bundle.Value) bundle.Value { return extra })(t, root)
	out, err := bundle.Indent(edited)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.Parse(out, opts)
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != verify.Rejected || len(v.CertifiedProfiles) != 0 {
		t.Fatalf("outcome %s, certified %v, kinds %v", v.Outcome, v.CertifiedProfiles, v.Kinds())
	}
	if !v.HasRejection(verify.KindProfileClaimDuplicate) || !v.HasRejection(verify.KindCertifiedNotWitnessed) {
		t.Fatalf("kinds %v", v.Kinds())
	}
	for _, r := range v.Rejections {
		if r.Kind == verify.KindProfileClaimDuplicate && (r.Profile != "" || !strings.Contains(r.Detail, "claimedProfiles[2] claims "+core+" again (first claimed at claimedProfiles[1]")) {
			t.Errorf("rejection %+v", r)
		}
	}
	// An uncertified repeat is still a repeat (one that equals the first claim
	// exactly is a schema rejection too: uniqueItems).
	same := set("claimedProfiles/2/certified", bundle.BoolValue(false))(t, edited)
	same = set("claimedProfiles/2/witnessCount", num(3))(t, same)
	out, _ = bundle.Indent(same)
	if v, _ := verify.Parse(out, opts); !slices.Equal(v.Kinds(), []verify.Kind{verify.KindProfileClaimDuplicate}) {
		t.Errorf("an uncertified repeat: kinds %v", v.Kinds())
	}
	// Untouched, the bundle still verifies.
	if v, _ := verify.Parse(data, opts); v.Outcome != verify.Verified {
		t.Errorf("untouched: %s %v", v.Outcome, v.Kinds())
	}
}

// Deploy binding (Options.Expect): a bundle that is not the cut of the expected
// build and major is REJECTED with a kind each, beside every other check.
func TestDeployBinding(t *testing.T) {
	b := testkit.Signed("https://h.example")
	commit := bundle.Build{Kind: bundle.BuildCommit, ID: b.Host.Build.ID}
	for _, tc := range []struct {
		name   string
		expect *verify.Expect
		want   []verify.Kind
	}{
		{"none", nil, []verify.Kind{}},
		{"this build and major", &verify.Expect{Build: commit, Major: 2}, []verify.Kind{}},
		{"major only", &verify.Expect{Major: 2}, []verify.Kind{}},
		{"another commit", &verify.Expect{Build: bundle.Build{Kind: bundle.BuildCommit, ID: strings.Repeat("f", 40)}}, []verify.Kind{verify.KindBuildMismatch}},
		{"another kind", &verify.Expect{Build: bundle.Build{Kind: bundle.BuildImageDigest, ID: "sha256:" + strings.Repeat("a", 64)}}, []verify.Kind{verify.KindBuildKind}},
		{"another major", &verify.Expect{Build: commit, Major: 1}, []verify.Kind{verify.KindTargetMajor}},
		{"all wrong", &verify.Expect{Build: bundle.Build{Kind: bundle.BuildArtifactSHA256, ID: "x"}, Major: 3}, []verify.Kind{verify.KindBuildKind, verify.KindTargetMajor}},
	} {
		opts := hostOpts()
		opts.Expect = tc.expect
		v := verify.Bundle(b, nil, opts)
		if !slices.Equal(v.Kinds(), tc.want) {
			t.Errorf("%s: kinds %v, want %v", tc.name, v.Kinds(), tc.want)
		}
		if len(tc.want) == 0 && v.Outcome != verify.Verified {
			t.Errorf("%s: %s %v", tc.name, v.Outcome, v.Unverified)
		}
	}
	// An abbreviated commit in the bundle is not the commit.
	short := testkit.Unsigned("https://h.example")
	short.Host.Build.ID = commit.ID[:9]
	if err := short.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(short, "host", testkit.HostKeyID)
	opts := hostOpts()
	opts.Expect = &verify.Expect{Build: commit}
	v := verify.Bundle(short, nil, opts)
	if !slices.Equal(v.Kinds(), []verify.Kind{verify.KindBuildMismatch}) || !strings.Contains(v.Rejections[0].Detail, "an abbreviated id names no build exactly") {
		t.Errorf("abbreviated: %v", v.Rejections)
	}
	// Beside every other check: a tampered total is still found.
	tampered := testkit.Signed("https://h.example")
	tampered.Results.Totals.ExecutedPass++
	opts.Expect = &verify.Expect{Major: 1}
	if v := verify.Bundle(tampered, nil, opts); !slices.Equal(v.Kinds(), []verify.Kind{verify.KindTotalsMismatch, verify.KindTargetMajor}) {
		t.Errorf("tampered: %v", v.Kinds())
	}
}
