package verify_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// largestCorpusBundle returns the bytes of the largest corpus bundle and its key.
func largestCorpusBundle(b *testing.B) ([]byte, keys.PublicKey) {
	best, data := testkit.LargestCorpusBundle(b)
	dir := testkit.CorpusDir(b)
	parsed, _, err := bundle.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	key, err := keys.LoadPublicPEM(filepath.Join(dir, "keys", parsed.Signature.KeyID+keys.PEMSuffix))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s, %d bytes", filepath.Base(best), len(data))
	return data, key
}

// BenchmarkVerifyLargest: read, decode and judge the largest corpus bundle, with
// signature, witness and discovery digests, derivability and attribution.
func BenchmarkVerifyLargest(b *testing.B) {
	data, key := largestCorpusBundle(b)
	opts := verify.Options{HostKeys: keys.Set{key}, Registry: profiles.Default()}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := verify.Parse(data, opts)
		if err != nil || len(v.Rejections) > 0 {
			b.Fatal(err, v.Rejections)
		}
	}
}

// BenchmarkDecodeAnyLargest: the yardstick — encoding/json merely decoding the same
// file into any, checking nothing.
func BenchmarkDecodeAnyLargest(b *testing.B) {
	data, _ := largestCorpusBundle(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseIJSONLargest: the strict reader alone.
func BenchmarkParseIJSONLargest(b *testing.B) {
	data, _ := largestCorpusBundle(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bundle.ParseIJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
