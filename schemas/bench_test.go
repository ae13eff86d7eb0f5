package schemas_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/schemas"
)

// BenchmarkValidateLargest: schema validation of the largest corpus bundle alone
// (compiled once), for comparison with verify's BenchmarkVerifyLargest.
func BenchmarkValidateLargest(b *testing.B) {
	dir := testkit.CorpusDir(b)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	var best string
	var size int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil && info.Size() > size {
			best, size = f, info.Size()
		}
	}
	data, err := os.ReadFile(best)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := bundle.ParseIJSON(data)
	if err != nil {
		b.Fatal(err)
	}
	v := schemas.Bundle()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if ps := v.Validate(doc); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
}
