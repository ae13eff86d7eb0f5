package attest_test

import (
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// BenchmarkAttestLargest: what attesting the largest corpus bundle costs over
// verifying it (verify), for each predicate: judge, build, encode and sign
// (attest-*), and check the envelope (check-*).
func BenchmarkAttestLargest(b *testing.B) {
	_, data := testkit.LargestCorpusBundle(b)
	hostKeys, err := keys.LoadPublic(filepath.Join(testkit.CorpusDir(b), "keys"))
	if err != nil {
		b.Fatal(err)
	}
	opts := verify.Options{HostKeys: hostKeys, Registry: profiles.Default()}
	sv, err := keys.NewSigner(testkit.Key("attestor"))
	if err != nil {
		b.Fatal(err)
	}
	signer := &keys.Signer{Signer: sv, Public: testkit.Public("attestor"), Ref: "testkit"}
	trusted := keys.Set{{Key: testkit.Public("attestor"), KeyID: "bench-1", Source: keys.SourcePEMFile}}
	b.Run("verify", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := verify.Parse(data, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, p := range []struct{ name, uri string }{{"vsa", attest.PredicateVSA}, {"bundle", attest.PredicateBundle}} {
		req := attest.BundleRequest{Options: attest.Options{Version: "bench", Time: at}, Data: data, Name: "largest.json",
			Verify: opts, Predicate: p.uri, AllowCoherent: true}
		var env []byte
		b.Run("attest-"+p.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				a, err := attest.Bundle(req)
				if err != nil {
					b.Fatal(err)
				}
				if env, err = attest.Sign(a.Statement, signer, "bench-1"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("check-"+p.name, func(b *testing.B) {
			b.SetBytes(int64(len(env)))
			for b.Loop() {
				if _, err := attest.Verify(env, attest.Policy{Keys: trusted}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
