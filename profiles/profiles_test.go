package profiles_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/profiles"
)

func doc(t *testing.T, s string) bundle.Value {
	v, err := bundle.ParseIJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDerives(t *testing.T) {
	reg := profiles.Default()
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{`{}`, nil},
		{`{"protocolVersions":["2.0"],"preferredVersion":"2.0"}`, []string{"openwop-discovery-core"}},
		{`{"protocolVersions":null,"preferredVersion":null}`, []string{"openwop-discovery-core"}}, // metadata: present is enough
		{`{"interrupt":{},"replay":{},"webhooks":{},"idempotency":{},"eventLog":{}}`, []string{"openwop-core-standard"}},
		{`{"interrupt":{},"replay":{},"webhooks":[],"idempotency":{},"eventLog":{}}`, nil},   // a family must be an object
		{`{"interrupt":{},"replay":{},"webhooks":null,"idempotency":{},"eventLog":{}}`, nil}, // not null
		{`{"conformance":false}`, []string{"openwop-conformance-seams-v2"}},
	} {
		if got := reg.Derived(doc(t, tc.doc)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: derived %v, want %v", tc.doc, got, tc.want)
		}
	}
	if reg.Derives(doc(t, `{}`), "openwop-unknown") {
		t.Error("an unknown profile derived")
	}
}

func TestRelaxedBy(t *testing.T) {
	reg := profiles.Default()
	ids := []string{"openwop-discovery-core", "openwop-core-standard", "openwop-conformance-seams-v2", "openwop-webhooks-legacy"}
	for _, tc := range []struct {
		obligations []string
		want        []string
	}{
		{nil, nil},
		{[]string{"webhooks.egress-guard"}, []string{"openwop-core-standard", "openwop-webhooks-legacy"}}, // family, and substring
		{[]string{"eventLog"}, []string{"openwop-core-standard"}},
		{[]string{"core.x"}, []string{"openwop-discovery-core", "openwop-core-standard"}}, // substring arm
		{[]string{"sandbox.exec"}, nil},
		// The empty family is in every id (String.prototype.includes("") is true):
		// an obligation with no family denies every profile, never none.
		{[]string{""}, ids},
		{[]string{".egress-guard"}, ids},
		{[]string{"sandbox.exec", ".x"}, ids},
	} {
		if got := reg.RelaxedBy(tc.obligations, ids); !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.obligations, got, tc.want)
		}
	}
	var none *profiles.Registry
	if got := none.RelaxedBy([]string{"webhooks.x"}, ids); !slices.Equal(got, []string{"openwop-webhooks-legacy"}) {
		t.Errorf("nil registry: %v", got)
	}
	if got := none.RelaxedBy([]string{".x"}, ids); !slices.Equal(got, ids) {
		t.Errorf("nil registry, empty family: %v", got)
	}
}

func TestObservedRelaxations(t *testing.T) {
	rows := testkit.Rows()
	if got := profiles.ObservedRelaxations(rows); got != nil {
		t.Errorf("guard closed: %v", got)
	}
	for i := range rows {
		if rows[i].ID == profiles.EgressGuardRow {
			rows[i].Result = bundle.ExecutedFail
		}
	}
	if got := profiles.ObservedRelaxations(rows); !slices.Equal(got, []string{"webhooks.egress-guard"}) {
		t.Errorf("guard open: %v", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty.json": `{"profiles":[]}`,
		"dup.json":   `{"profiles":[{"id":"a"},{"id":"a"}]}`,
		"noid.json":  `{"profiles":[{"summary":"x"}]}`,
		"bad.json":   `{`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := profiles.Load(p); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := profiles.Load(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("missing file accepted")
	}
}

// The embedded registry agrees with the corpus's spec/v2/profiles.json on what
// matters: ids, predicates and floors.
func TestEmbeddedMatchesCorpus(t *testing.T) {
	dir := testkit.CorpusDir(t)
	corpus, err := profiles.Load(filepath.Join(dir, "spec", "v2", "profiles.json"))
	if err != nil {
		t.Fatal(err)
	}
	emb := profiles.Default()
	if len(corpus.Profiles) != len(emb.Profiles) {
		t.Fatalf("%d profiles in the corpus, %d embedded", len(corpus.Profiles), len(emb.Profiles))
	}
	for i, p := range corpus.Profiles {
		e := emb.Profiles[i]
		if p.ID != e.ID || !slices.Equal(p.Predicate.Families, e.Predicate.Families) ||
			!slices.Equal(p.Predicate.Metadata, e.Predicate.Metadata) || !slices.Equal(p.FloorScenarios, e.FloorScenarios) {
			t.Errorf("profile %s differs from the corpus registry", p.ID)
		}
	}
}

// Default is the embedded registry file, read by Parse: the generated literal
// (default_gen.go) has not drifted from v2-profiles.json, and each call returns a
// copy of its own.
func TestDefaultIsTheEmbeddedRegistry(t *testing.T) {
	data, err := os.ReadFile("v2-profiles.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := profiles.Parse(data, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	got := profiles.Default()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("profiles.Default() differs from v2-profiles.json: run go generate ./profiles\n got %#v\nwant %#v", got, want)
	}
	got.Profiles[0].FloorScenarios[0] = "changed"
	if profiles.Default().Profiles[0].FloorScenarios[0] == "changed" {
		t.Error("Default returns shared memory")
	}
}
