package mint

import (
	"testing"

	"github.com/certcut/certcut/verify"
)

// TestMissingSignatureTyped: an unsigned bundle's tolerated schema complaint is
// recognised by the rejection's typed MissingMember, not by its wording.
func TestMissingSignatureTyped(t *testing.T) {
	for _, tc := range []struct {
		r    verify.Rejection
		want bool
	}{
		{verify.Rejection{Kind: verify.KindSchema, Pointer: "/signature", Detail: "/signature: absent", MissingMember: true}, true},
		{verify.Rejection{Kind: verify.KindSchema, Pointer: "/verifierSignature", Detail: "reworded", MissingMember: true}, true},
		{verify.Rejection{Kind: verify.KindSchema, Pointer: "/signature", Detail: "/signature: must be an object; required member is missing"}, false},
		{verify.Rejection{Kind: verify.KindSchema, Pointer: "/host", Detail: "/host: required member is missing", MissingMember: true}, false},
	} {
		if got := missingSignature(tc.r); got != tc.want {
			t.Errorf("missingSignature(%+v) = %v, want %v", tc.r, got, tc.want)
		}
	}
}
