package verify_test

import (
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// checkGaps: the typed gaps parallel the JSON list, entry for entry, and their
// kinds are the wanted ones, in order.
func checkGaps(t *testing.T, name string, v *verify.Verdict, want ...verify.GapKind) {
	t.Helper()
	if len(v.Gaps) != len(v.Unverified) || len(v.Gaps) != len(want) {
		t.Fatalf("%s: gaps %+v, unverified %q, want kinds %v", name, v.Gaps, v.Unverified, want)
	}
	for i, g := range v.Gaps {
		if g.Kind != want[i] || g.Detail != v.Unverified[i] {
			t.Errorf("%s: gap %d = %+v, want kind %s and detail %q", name, i, g, want[i], v.Unverified[i])
		}
	}
}

// TestGapKinds: each reason a verdict is COHERENT comes with its kind, so a
// caller tells them apart without reading the sentence.
func TestGapKinds(t *testing.T) {
	signed := testkit.Signed("https://host.example")
	v, _ := verify.Parse(testkit.Encode(signed), verify.Options{Registry: profiles.Default()})
	checkGaps(t, "no key", v, verify.GapHostKey)
	if !v.HasOnlyGaps(verify.GapHostKey) || v.HasOnlyGaps(verify.GapIndependent) {
		t.Errorf("HasOnlyGaps disagrees with %+v", v.Gaps)
	}

	v, _ = verify.Parse(testkit.Encode(signed), verify.Options{HostKeys: keys.Set{testkit.HostPublic()}})
	checkGaps(t, "no registry", v, verify.GapDerivability)

	v, _ = verify.Parse(testkit.Encode(signed), verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()})
	checkGaps(t, "verified", v)
	if v.HasOnlyGaps() {
		t.Error("HasOnlyGaps of a verdict without gaps")
	}

	// The independent tier claimed, the verifier signature unchecked.
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
	v, _ = verify.Parse(testkit.Encode(b), verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, VerifierKeys: keys.Set{verifierKey}, Registry: profiles.Default(), Keyring: ring})
	checkGaps(t, "independent", v, verify.GapIndependent)
}
