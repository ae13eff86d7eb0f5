package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

func fixture(t testing.TB) (string, verify.Options) {
	t.Helper()
	dir := t.TempDir()
	if err := testkit.SpecRepo(dir); err != nil {
		t.Fatal(err)
	}
	ring, err := keys.LoadKeyring(filepath.Join(dir, "keyring.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, verify.Options{Keyring: ring, Registry: profiles.Default()}
}

func TestExpandIDs(t *testing.T) {
	got, err := gate.ExpandIDs([]string{"0211.a2a-error-data-shape", ".a2a-no-openwop-envelope", "openwop.requirement.0176.era-key", ".discovery"})
	want := []string{"openwop.requirement.0211.a2a-error-data-shape", "openwop.requirement.0211.a2a-no-openwop-envelope", "openwop.requirement.0176.era-key", "openwop.requirement.0176.discovery"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{".leg", "not an id", "0211", "openwop.scenario.x", "0211.*"} {
		if _, err := gate.ExpandIDs([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Each distinct content is verified once, however many files and runs share it.
func TestLoaderJudgesOncePerContent(t *testing.T) {
	dir, opts := fixture(t)
	bundles := filepath.Join(dir, "evidence", "v2-host-bundles")
	data, _ := os.ReadFile(filepath.Join(bundles, "good.json"))
	os.WriteFile(filepath.Join(bundles, "good-copy.json"), data, 0o644)
	os.WriteFile(filepath.Join(bundles, "broken.json"), []byte(`{"a":1,"a":2}`), 0o644)
	l := &gate.Loader{Options: opts}
	var calls int
	l.Progress = func(done, total int) { calls++ }
	entries, err := l.LoadDir(t.Context(), bundles)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 11 || l.Judged() != 10 || calls != 11 {
		t.Fatalf("%d entries, %d judged, %d progress calls", len(entries), l.Judged(), calls)
	}
	if entries[0].File != filepath.Join(bundles, "broken.json") || entries[0].Err == nil || !strings.Contains(entries[0].Err.Error(), "duplicate") {
		t.Errorf("broken file: %+v", entries[0])
	}
	if _, err := l.LoadDir(t.Context(), bundles); err != nil || l.Judged() != 10 {
		t.Errorf("second run judged again: %d", l.Judged())
	}
	if _, err := l.LoadDir(t.Context(), t.TempDir()); err == nil {
		t.Error("empty directory accepted")
	}
}

func TestAcceptedFromRequire(t *testing.T) {
	dir, opts := fixture(t)
	repo, err := gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]gate.Status{
		"openwop.requirement.0901.good":             gate.Pass,
		"openwop.requirement.0902.tier2-only":       gate.Pass,
		"openwop.requirement.0903.relaxed-only":     gate.Fail,
		"openwop.requirement.0904.guard-only":       gate.Fail,
		"openwop.requirement.0905.uncertified-only": gate.Fail,
		"openwop.requirement.0906.tampered-only":    gate.Fail,
		"openwop.requirement.0907.unlisted-only":    gate.Fail,
		"openwop.requirement.0908.retired-only":     gate.Fail,
		"openwop.requirement.0909.revoked-only":     gate.Fail,
		"openwop.requirement.0913.family":           gate.Pass,
		"openwop.requirement.0914.mixed":            gate.Fail,
	} {
		rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{id}})
		if rep.Status != want || rep.ExitCode != want.ExitCode() {
			t.Errorf("%s: %s, want %s: %+v", id, rep.Status, want, rep.Criteria[0])
		}
	}
	// A bundle the verdict does not need never fails it: 0901.shared is also in
	// relaxed.json.
	rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{"openwop.requirement.0901.shared"}})
	if rep.Status != gate.Pass {
		t.Fatalf("%+v", rep.Criteria)
	}
	for _, c := range rep.Criteria {
		if c.Bundle != nil && strings.HasSuffix(c.Bundle.File, "relaxed.json") {
			t.Errorf("relaxed.json judged although good.json witnesses: %+v", c)
		}
	}
}

// BenchmarkGateDir gates a directory of n signed bundles (realistic rows and a
// discovery document of ~40 KB each) for one id carried by every bundle: read,
// verify each once, qualify, decide. Reported per bundle, so growth shows as the
// ns/bundle figure across n.
func BenchmarkGateDir(b *testing.B) {
	for _, n := range []int{100, 300, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			bundles := filepath.Join(dir, "evidence", "v2-host-bundles")
			os.MkdirAll(bundles, 0o755)
			extra := make([]bundle.Row, 0, 300)
			for i := range 300 {
				extra = append(extra, testkit.Pass(fmt.Sprintf("0950.leg-%03d", i)))
			}
			var size int64
			for i := range n {
				bd := testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, extra, func(bd *bundle.Bundle) {
					doc := bd.Discovery.Document.With("padding", bundle.StringValue(strings.Repeat(fmt.Sprintf("bundle %d ", i), 4000)))
					bd.Discovery.Document = &doc
					bd.Host.Build.ID = fmt.Sprintf("%040d", i)
				})
				data := testkit.Encode(bd)
				size += int64(len(data))
				os.WriteFile(filepath.Join(bundles, fmt.Sprintf("b%04d.json", i)), data, 0o644)
			}
			testkit.WriteTiers(filepath.Join(dir, "evidence", "host-tiers.json"), map[string]int{testkit.OriginTier1: 1})
			// The key is pinned with the bundles' origin, which binds their tier.
			opts := verify.Options{Keyring: testkit.SpecRepoKeyring(), Registry: profiles.Default()}
			b.Logf("%d bundles, %d bytes on disk", n, size)
			b.ResetTimer()
			for b.Loop() {
				repo, err := gate.Open(b.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}})
				if err != nil {
					b.Fatal(err)
				}
				rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{"openwop.requirement.0950.leg-150"}})
				if rep.Status != gate.Pass {
					b.Fatal(rep.Criteria[0].Reason)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/bundle")
		})
	}
}
