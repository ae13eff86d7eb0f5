package validate_test

import (
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/schemas/validate"
)

// BenchmarkValidateLargest: schema validation of the largest corpus bundle alone
// (compiled once), for comparison with verify's BenchmarkVerifyLargest.
func BenchmarkValidateLargest(b *testing.B) {
	_, data := testkit.LargestCorpusBundle(b)
	doc, err := bundle.ParseIJSON(data)
	if err != nil {
		b.Fatal(err)
	}
	v := validate.Bundle()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if ps := v.Validate(doc); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
}
