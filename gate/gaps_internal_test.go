package gate

import (
	"testing"

	"github.com/certcut/certcut/verify"
)

// TestGapsDecideByKind: bundle.verified's deferrals (to bundle.key for key
// dates, the independent-tier allowance) read the verdict's typed gaps, never
// its sentences: a reworded reason decides the same way.
func TestGapsDecideByKind(t *testing.T) {
	indep := &verify.Verdict{Outcome: verify.Coherent, SignatureVerified: true,
		Unverified: []string{"reworded: the verifier signature was not verified"},
		Gaps:       []verify.Gap{{Kind: verify.GapIndependent, Detail: "reworded: the verifier signature was not verified"}}}
	if !onlyIndependent(indep) {
		t.Error("an independent gap, reworded, is not read as one")
	}
	fake := &verify.Verdict{Outcome: verify.Coherent, SignatureVerified: true,
		Unverified: []string{"independent tier claimed, but derivability not checked"},
		Gaps:       []verify.Gap{{Kind: verify.GapDerivability, Detail: "independent tier claimed, but derivability not checked"}}}
	if onlyIndependent(fake) {
		t.Error("a derivability gap whose text starts like an independent one is read as independent")
	}
	kd := &verify.Verdict{Outcome: verify.Coherent, SignatureVerified: true, KeyDates: &verify.KeyDates{Reason: "a"},
		Unverified: []string{"b"}, Gaps: []verify.Gap{{Kind: verify.GapKeyDates, Detail: "b"}}}
	if !keyDatesOnly(kd) {
		t.Error("a key-dates gap is not read as one")
	}
	vk := &verify.Verdict{Outcome: verify.Coherent, SignatureVerified: true, KeyDates: &verify.KeyDates{Reason: "a"},
		Unverified: []string{"a"}, Gaps: []verify.Gap{{Kind: verify.GapVerifierKeyDates, Detail: "a"}}}
	if keyDatesOnly(vk) {
		t.Error("the verifier key's dates are read as the host key's")
	}
}
