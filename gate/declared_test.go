package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// specSnapshot copies ../shared/corpus/openwop-spec into a temporary directory
// (or skips), and returns it with verify options whose keyring pins the
// MyndHyve key with https://api.myndhyve.ai and the openwop-app key with its
// origins, built offline from the committed bundles as docs/ci.md says.
func specSnapshot(t *testing.T) (string, verify.Options) {
	t.Helper()
	src := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop-spec")
	if _, err := os.Stat(filepath.Join(src, "spec", "v2", "declaration.json")); err != nil {
		t.Skipf("SKIPPED: the OpenWOP spec snapshot is not at %s (clone the workspace with ../shared beside the project)", src)
	}
	dir := testkit.CopyTree(t, src, "spec")
	ring := keys.NewKeyring()
	for _, p := range []struct {
		file, name string
		origins    []string
	}{
		{"myndhyve-2.45.25.json", "myndhyve", []string{"https://api.myndhyve.ai"}},
		{"openwop-workflow-engine-image-digest.json", "openwop-app", []string{"https://app.openwop.dev", "https://api.openwop.dev"}},
	} {
		ps, err := gate.PinFromBundle(filepath.Join(dir, "evidence", "v2-host-bundles", p.file), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ring.Trust(*ps.Doc, keys.KeyringHost{Name: p.name}.WithOrigins(p.origins...), ps.Source, time.Now(), nil); err != nil {
			t.Fatal(err)
		}
	}
	return dir, verify.Options{Keyring: ring, Registry: profiles.Default()}
}

func openSnapshot(t *testing.T, dir string, opts verify.Options, cfg gate.Config) *gate.Repo {
	t.Helper()
	cfg.Root = dir
	cfg.Loader = &gate.Loader{Options: opts}
	r, err := gate.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func criteriaOf(rep *gate.Report, id string) []gate.Criterion {
	var out []gate.Criterion
	for _, c := range rep.Criteria {
		if string(c.ID) == id {
			out = append(out, c)
		}
	}
	return out
}

func maturityOf(t *testing.T, rep *gate.Report, file string) gate.Criterion {
	t.Helper()
	for _, c := range criteriaOf(rep, gate.CritMaturity) {
		if c.Bundle != nil && filepath.Base(c.Bundle.File) == file {
			return c
		}
	}
	t.Fatalf("no bundle.maturity criterion for %s", file)
	return gate.Criterion{}
}

// relabel rewrites a committed bundle's suite.version in place (which breaks
// its signature: suite.version is signed).
func relabel(t *testing.T, file, from, to string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`("version":\s*)"` + regexp.QuoteMeta(from) + `"`)
	if !re.Match(data) {
		t.Fatalf("%s: no version %s", file, from)
	}
	if err := os.WriteFile(file, re.ReplaceAll(data, []byte(`${1}"`+to+`"`)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeclaredMaturitySnapshot: on the snapshot as it is, every committed bundle
// is listed with upstream's line; myndhyve.json (suite 2.0.11, 37 overstated) is
// REPORTED and passes, and nothing fails the bound.
func TestDeclaredMaturitySnapshot(t *testing.T) {
	dir, opts := specSnapshot(t)
	rep := openSnapshot(t, dir, opts, gate.Config{}).Declared(t.Context())
	ms := criteriaOf(rep, gate.CritMaturity)
	if len(ms) != 12 {
		t.Fatalf("%d bundle.maturity criteria, want 12", len(ms))
	}
	for _, c := range ms {
		if c.Status != gate.Pass {
			t.Errorf("%s: %s %s", c.Bundle.File, c.Status, c.Reason)
		}
	}
	c := maturityOf(t, rep, "myndhyve.json")
	if !strings.HasPrefix(c.Reason, "suite 2.0.11, 40 family record(s), 37 overstated — REPORTED") || !strings.Contains(c.Reason, "packs(corpus:experimental)") {
		t.Fatalf("%s", c.Reason)
	}
	if c := maturityOf(t, rep, "myndhyve-2.45.25.json"); !strings.HasPrefix(c.Reason, "suite 2.45.25, 41 family record(s), 0 overstated — ok") {
		t.Fatalf("%s", c.Reason)
	}
}

// TestDeclaredMaturityRelabelled: myndhyve.json relabelled to suite 2.36.0
// FAILS with 37 overstated, in audit and as a witness's qualification in gate
// accepted; relabelled to 2.35.1 (still below the bound) the exemption rests on
// an unsigned suite.version, so it is BLOCKED, not REPORTED.
func TestDeclaredMaturityRelabelled(t *testing.T) {
	dir, opts := specSnapshot(t)
	file := filepath.Join(dir, "evidence", "v2-host-bundles", "myndhyve.json")
	relabel(t, file, "2.0.11", "2.36.0")
	r := openSnapshot(t, dir, opts, gate.Config{})
	c := maturityOf(t, r.Declared(t.Context()), "myndhyve.json")
	if c.Status != gate.Fail || !strings.HasPrefix(c.Reason, "suite 2.36.0, 40 family record(s), 37 overstated — FAILS") || !strings.Contains(c.Reason, "did not verify") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	// As a witness: any row of the bundle; its qualification lists the rule.
	var row string
	for _, e := range r.Entries {
		if filepath.Base(e.File) == "myndhyve.json" {
			row = e.Bundle.Rows[0].ID
		}
	}
	found := false
	for _, info := range r.Accepted(context.Background(), gate.AcceptedRequest{RequireCorpus: nil}).Bundles {
		if filepath.Base(info.File) == "myndhyve.json" {
			for _, w := range info.Why {
				found = found || strings.HasPrefix(w, "FAIL advertises no family more mature than the declaration: suite 2.36.0")
			}
		}
	}
	if !found {
		t.Fatalf("gate accepted does not refuse the relabelled bundle on bundle.maturity (row %s)", row)
	}

	relabel(t, file, "2.36.0", "2.35.1")
	r = openSnapshot(t, dir, opts, gate.Config{})
	if c := maturityOf(t, r.Declared(t.Context()), "myndhyve.json"); c.Status != gate.Blocked || !strings.Contains(c.Reason, "REPORTED") || !strings.Contains(c.Reason, "not signed") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	// The first suite is a setting: at 2.0.0 the untouched 2.0.11 bundle fails.
	relabel(t, file, "2.35.1", "2.0.11")
	r = openSnapshot(t, dir, opts, gate.Config{MaturityFirstSuite: "2.0.0"})
	if c := maturityOf(t, r.Declared(t.Context()), "myndhyve.json"); c.Status != gate.Fail || !strings.Contains(c.Reason, "37 overstated — FAILS") || strings.Contains(c.Reason, "did not verify") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	if _, err := gate.Open(t.Context(), gate.Config{Root: dir, MaturityFirstSuite: "next", Loader: &gate.Loader{Options: opts}}); err == nil {
		t.Fatal("a first suite that is not a version was accepted")
	}
}

// Without the host's key, the 2.0.11 exemption is unsigned: BLOCKED; without a
// declaration the rule is BLOCKED in audit and not applied to witnesses.
func TestDeclaredMaturityUnsignedAndAbsent(t *testing.T) {
	dir, _ := specSnapshot(t)
	opts := verify.Options{Registry: profiles.Default()}
	rep := openSnapshot(t, dir, opts, gate.Config{}).Declared(t.Context())
	if c := maturityOf(t, rep, "myndhyve.json"); c.Status != gate.Blocked {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	if c := maturityOf(t, rep, "myndhyve-2.43.0.json"); c.Status != gate.Pass {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	os.Remove(filepath.Join(dir, "spec", "v2", "declaration.json"))
	rep = openSnapshot(t, dir, opts, gate.Config{}).Declared(t.Context())
	ms := criteriaOf(rep, gate.CritMaturity)
	if len(ms) != 1 || ms[0].Status != gate.Blocked || !strings.Contains(ms[0].Reason, "no declaration") {
		t.Fatalf("%+v", ms)
	}
	os.WriteFile(filepath.Join(dir, "spec", "v2", "declaration.json"), []byte(`{"families":[{"key":"a"},{"key":"a"}]}`), 0o644)
	var ie *gate.InputError
	if _, err := gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}}); err == nil || !asInput(err, &ie) {
		t.Fatalf("malformed declaration: %v", err)
	}
}

func asInput(err error, target **gate.InputError) bool {
	e, ok := err.(*gate.InputError)
	if ok {
		*target = e
	}
	return ok
}
