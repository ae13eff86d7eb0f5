package declaration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/declaration"
	"github.com/certcut/certcut/internal/testkit"
)

// specCorpus returns ../shared/corpus/openwop-spec, or skips.
func specCorpus(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop-spec")
	if _, err := os.Stat(filepath.Join(dir, "spec", "v2", "declaration.json")); err != nil {
		t.Skipf("SKIPPED: the OpenWOP spec snapshot is not at %s (clone the workspace with ../shared beside the project)", dir)
	}
	return dir
}

func readBundle(t testing.TB, path string) *bundle.Bundle {
	t.Helper()
	data, err := bundle.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func snapshotPolicy(t testing.TB) (string, *declaration.Declaration, declaration.FamilyKeys) {
	dir := specCorpus(t)
	decl, err := declaration.Load(filepath.Join(dir, "spec", "v2", "declaration.json"))
	if err != nil {
		t.Fatal(err)
	}
	caps, err := declaration.LoadCapabilities(filepath.Join(dir, "schemas", "v2", "capabilities.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, decl, declaration.KeysOf(caps, decl)
}

// TestMaturitySnapshot: upstream's counts on the snapshot (73 family keys, 87
// families; every committed bundle's records and overstated count), and
// myndhyve.json's 37 overstated records REPORTED at suite 2.0.11, FAILS when
// relabelled to 2.36.0 (and to 2.36.9: the patch is ignored), REPORTED at
// 2.35.99.
func TestMaturitySnapshot(t *testing.T) {
	dir, decl, fk := snapshotPolicy(t)
	if fk.Len() != 73 || len(decl.Families) != 87 || len(decl.ExtFamilies()) != 13 {
		t.Fatalf("%d family keys, %d families, %d ext", fk.Len(), len(decl.Families), len(decl.ExtFamilies()))
	}
	want := map[string]string{
		"myndhyve-2.43.0.json":                                 "suite 2.43.0, 42 family record(s), 0 overstated — ok",
		"myndhyve-2.45.2-coordination.json":                    "suite 2.45.2, 42 family record(s), 0 overstated — ok",
		"myndhyve-2.45.25.json":                                "suite 2.45.25, 41 family record(s), 0 overstated — ok",
		"myndhyve.json":                                        "suite 2.0.11, 40 family record(s), 37 overstated — REPORTED",
		"openwop-app-colocated-companion-2.41.0.json":          "suite 2.41.0, 21 family record(s), 0 overstated — ok",
		"openwop-app-colocated-companion.json":                 "suite 2.38.0, 19 family record(s), 0 overstated — ok",
		"openwop-host-v2-reference.json":                       "suite 2.39.2, 24 family record(s), 0 overstated — ok",
		"openwop-workflow-engine-2.44.5.json":                  "suite 2.44.5, 22 family record(s), 0 overstated — ok",
		"openwop-workflow-engine-2.45.30-7643ddb8e.json":       "suite 2.45.30, 42 family record(s), 0 overstated — ok",
		"openwop-workflow-engine-image-digest.json":            "suite 2.41.0, 21 family record(s), 0 overstated — ok",
		"openwop-workflow-engine-side-rev-rfc0199-2.42.2.json": "suite 2.42.2, 25 family record(s), 0 overstated — ok",
		"openwop-workflow-engine.json":                         "suite 2.0.11, 7 family record(s), 0 overstated — ok",
	}
	for file, line := range want {
		b := readBundle(t, filepath.Join(dir, "evidence", "v2-host-bundles", file))
		m := declaration.CheckMaturity(b, fk, decl, "")
		if !strings.HasPrefix(m.Line(), line) {
			t.Errorf("%s: %q, want %q", file, m.Line(), line)
		}
	}
	b := readBundle(t, filepath.Join(dir, "evidence", "v2-host-bundles", "myndhyve.json"))
	m := declaration.CheckMaturity(b, fk, decl, "")
	if m.Outcome() != declaration.MaturityReported || len(m.Overstated) != 37 || !strings.Contains(m.OverstatedList(), "packs(corpus:experimental)") {
		t.Fatalf("%+v", m)
	}
	for v, outcome := range map[string]string{"2.36.0": declaration.MaturityFails, "2.36.9": declaration.MaturityFails, "3.0.0": declaration.MaturityFails, "2.35.99": declaration.MaturityReported} {
		b.Suite.Version = v
		m := declaration.CheckMaturity(b, fk, decl, "")
		if m.Outcome() != outcome || len(m.Overstated) != 37 {
			t.Errorf("relabelled %s: %s with %d overstated, want %s with 37", v, m.Outcome(), len(m.Overstated), outcome)
		}
	}
	// The first suite is a setting (upstream's OPENWOP_0197_FIRST_SUITE).
	b.Suite.Version = "2.0.11"
	if m := declaration.CheckMaturity(b, fk, decl, "2.0.0"); m.Outcome() != declaration.MaturityFails {
		t.Errorf("first suite 2.0.0: %s", m.Outcome())
	}
	b.Suite.Version = "next"
	if m := declaration.CheckMaturity(b, fk, decl, ""); !m.SuiteUnreadable || m.Bound {
		t.Errorf("unreadable suite: %+v", m)
	}
}

// Without a capabilities schema the declaration's keys are the family keys: the
// same counts for every v2 bundle of the snapshot.
func TestMaturityDeclarationFallback(t *testing.T) {
	dir, decl, fk := snapshotPolicy(t)
	fb := declaration.KeysOf(nil, decl)
	if !strings.Contains(fb.From, "no capabilities schema") {
		t.Fatal(fb.From)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "v2-host-bundles", "*.json"))
	for _, f := range files {
		b := readBundle(t, f)
		a, c := declaration.CheckMaturity(b, fk, decl, ""), declaration.CheckMaturity(b, fb, decl, "")
		if a.Line() != c.Line() {
			t.Errorf("%s: schema %q, fallback %q", f, a.Line(), c.Line())
		}
	}
}

// A declaration is read strictly: not I-JSON, a family listed twice, or a
// member of the wrong type is refused with the file and member named.
func TestParseDeclarationStrict(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"families":[{"key":"a"}],"families":[]}`, "duplicate"},
		{`{"families":[{"key":"a"},{"key":"a"}]}`, `family "a" is already declared`},
		{`{"families":[{"key":"a","maturity":{"technical":1}}]}`, "families[0].maturity.technical must be a string"},
		{`{"families":[{"key":""}]}`, "families[0].key must be a non-empty string"},
		{`{"families":"x"}`, "families must be an array or an object"},
		{`[]`, "top level must be an object"},
		{`{}`, "no families member"},
	} {
		_, err := declaration.Parse([]byte(tc.text), "d.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "d.json") {
			t.Errorf("%s: %v, want %q", tc.text, err, tc.want)
		}
	}
	d, err := declaration.Parse([]byte(`{"families":{"chat":{"anchor":"ext","maturity":{"technical":"stable"}}}}`), "d.json")
	if err != nil || d.ExtFamilies()["chat"].Technical != "stable" {
		t.Fatalf("%v %+v", err, d)
	}
	if _, err := declaration.ParseCapabilities([]byte(`{"properties":{"a":{"required":"status"}}}`), "c.json"); err == nil || !strings.Contains(err.Error(), "properties.a.required must be an array") {
		t.Errorf("%v", err)
	}
}
