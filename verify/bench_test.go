package verify_test

import (
	"encoding/json"
	"os"
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
	return withKey(b, best, data)
}

// referenceCorpusBundle returns the bytes of the reference host's bundle (the one
// the whole-process comparison in bench/ verifies) and its key.
func referenceCorpusBundle(b *testing.B) ([]byte, keys.PublicKey) {
	path := filepath.Join(testkit.CorpusDir(b), "evidence", "v2-host-bundles", "openwop-host-v2-reference.json")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return withKey(b, path, data)
}

func withKey(b *testing.B, best string, data []byte) ([]byte, keys.PublicKey) {
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
	benchVerify(b, data, key)
}

// BenchmarkVerifyReference: the same for the reference host's bundle (132 KB).
func BenchmarkVerifyReference(b *testing.B) {
	data, key := referenceCorpusBundle(b)
	benchVerify(b, data, key)
}

func benchVerify(b *testing.B, data []byte, key keys.PublicKey) {
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
	benchDecodeAny(b, data)
}

// BenchmarkDecodeAnyReference: the yardstick for BenchmarkVerifyReference.
func BenchmarkDecodeAnyReference(b *testing.B) {
	data, _ := referenceCorpusBundle(b)
	benchDecodeAny(b, data)
}

func benchDecodeAny(b *testing.B, data []byte) {
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
