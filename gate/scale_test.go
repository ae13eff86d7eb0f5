package gate_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// The scale benchmarks judge n distinct bundles (testkit.ScaleDir: the reference
// corpus bundle signed again for n builds) and report, beside the time, the time
// per bundle (which must stay flat as n grows: linear in the count), the peak of
// the live heap (which must stay bounded: the Loader keeps facts, not trees) and
// the cores kept busy. They run only with -bench, e.g.
//
//	go test ./gate -run '^$' -bench Scale -benchtime 1x
var scaleCounts = []int{1000, 3000, 10000}

// scaleRequire is the requirement the Accepted benchmarks decide: the reference
// bundle carries it executed-pass.
const scaleRequire = "openwop.requirement.0211.a2a-error-data-shape"

func scaleRepo(b *testing.B) (string, verify.Options) {
	repo := b.TempDir()
	if err := testkit.SpecRepo(repo); err != nil {
		b.Fatal(err)
	}
	ring, err := keys.LoadKeyring(filepath.Join(repo, "keyring.json"))
	if err != nil {
		b.Fatal(err)
	}
	return repo, verify.Options{Keyring: ring, Registry: profiles.Default()}
}

func report(b *testing.B, n int, u *testkit.Usage) {
	peak, cores := u.Stop()
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(cores, "cores")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/bundle")
}

// BenchmarkScaleGateAccepted: bundle gate accepted --require ID over n bundles.
func BenchmarkScaleGateAccepted(b *testing.B) {
	for _, n := range scaleCounts {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := testkit.ScaleDir(b, n)
			repo, opts := scaleRepo(b)
			req := gate.AcceptedRequest{Require: []string{scaleRequire}}
			u := testkit.StartUsage()
			for b.Loop() {
				r, err := gate.Open(b.Context(), gate.Config{Root: repo, BundlesDir: dir, KeyringPath: filepath.Join(repo, "keyring.json"),
					Loader: &gate.Loader{Options: opts, KeepRow: req.RowFilter()}})
				if err != nil {
					b.Fatal(err)
				}
				rep := r.Accepted(context.Background(), req)
				if rep.Status != gate.Pass || len(r.Entries) != n {
					b.Fatalf("%s over %d bundles", rep.Status, len(r.Entries))
				}
			}
			report(b, n, u)
		})
	}
}

// BenchmarkScaleCensus: bundle census ID over n bundles.
func BenchmarkScaleCensus(b *testing.B) {
	for _, n := range scaleCounts {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := testkit.ScaleDir(b, n)
			_, opts := scaleRepo(b)
			opts.Keyring = nil
			opts.HostKeys = keys.Set{testkit.KeyHost.Public()}
			queries := []gate.Query{{Kind: gate.QueryID, Value: "openwop.requirement.0211"}}
			u := testkit.StartUsage()
			for b.Loop() {
				l := &gate.Loader{Options: opts, KeepRow: gate.RowFilter(queries)}
				entries, err := l.LoadDir(b.Context(), dir)
				if err != nil {
					b.Fatal(err)
				}
				c := gate.TakeCensus(dir, entries, queries)
				if c.Summary[0].Verified != n {
					b.Fatalf("%d of %d verify", c.Summary[0].Verified, n)
				}
			}
			report(b, n, u)
		})
	}
}
