package gate_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

func extOutcomes(t *testing.T, r *gate.Repo) map[string]string {
	t.Helper()
	fs, err := r.ExtStatus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range fs {
		out[f.Dir] = f.Outcome
	}
	return out
}

func dirsWith(m map[string]string, outcome string) []string {
	var out []string
	for d, o := range m {
		if o == outcome {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

func editFile(t *testing.T, file, from, to string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), from) {
		t.Fatalf("%s has no %q", file, from)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExtStatusSnapshot: upstream's findings on the snapshot — grpc-transport
// and provider-idempotency FAIL (Draft without a declared family), twelve
// families GRADUABLE, all through the MyndHyve bundles, whose tier-2 origin the
// keyring pin binds; the audit's report FAILs on the two.
func TestExtStatusSnapshot(t *testing.T) {
	dir, opts := specSnapshot(t)
	r := openSnapshot(t, dir, opts, gate.Config{})
	got := extOutcomes(t, r)
	if f := dirsWith(got, "FAIL"); strings.Join(f, ",") != "grpc-transport,provider-idempotency" {
		t.Errorf("FAIL: %v", f)
	}
	want := "brand,canvas,chat,coordination,dataIntegration,entities,kanban,knowledge,launchStudio,messaging,restTransport,webResearch"
	if g := dirsWith(got, "GRADUABLE"); strings.Join(g, ",") != want {
		t.Errorf("GRADUABLE: %v", g)
	}
	if ok := dirsWith(got, "ok"); strings.Join(ok, ",") != "a2uiSurface,portability,sandbox-runtime-notes" {
		t.Errorf("ok: %v", ok)
	}
	fs, _ := r.ExtStatus(t.Context())
	for _, f := range fs {
		for _, w := range f.Witnesses {
			if w.Qualifies && !strings.HasPrefix(filepath.Base(w.File), "myndhyve") {
				t.Errorf("%s: qualifying witness %s", f.Dir, w.File)
			}
		}
	}
	rep := r.Declared(t.Context())
	if rep.Status != gate.Fail || len(criteriaOf(rep, gate.CritExtGraduable)) != 12 || len(criteriaOf(rep, gate.CritExtStatus)) != 17 {
		t.Fatalf("%s, %d graduable, %d ext-status", rep.Status, len(criteriaOf(rep, gate.CritExtGraduable)), len(criteriaOf(rep, gate.CritExtStatus)))
	}
	for _, c := range criteriaOf(rep, gate.CritExtGraduable) {
		if !c.Warning {
			t.Errorf("GRADUABLE is not a warning: %+v", c)
		}
	}
}

// Unlike upstream, the tier comes only from a bound origin: without the pin
// (no key: nothing verifies, nothing binds the origin) the twelve are NOT YET.
func TestExtStatusUnboundOrigin(t *testing.T) {
	dir, _ := specSnapshot(t)
	r := openSnapshot(t, dir, verify.Options{Registry: profiles.Default()}, gate.Config{})
	got := extOutcomes(t, r)
	if n := len(dirsWith(got, "NOT YET")); n != 12 || len(dirsWith(got, "GRADUABLE")) != 0 {
		t.Fatalf("%v", got)
	}
}

// Real READMEs with their Status edited, and the declaration edited: each
// incoherence FAILs.
func TestExtStatusEdited(t *testing.T) {
	dir, opts := specSnapshot(t)
	ext := filepath.Join(dir, "spec", "v2", "ext")
	editFile(t, filepath.Join(ext, "chat", "README.md"), "Status: Draft", "Status: Stable")            // Stable, technical experimental
	editFile(t, filepath.Join(ext, "kanban", "README.md"), "Status: Draft", "Status: Retired")         // Retired while declared
	editFile(t, filepath.Join(ext, "brand", "README.md"), "Status: Draft", "Status: Note")             // Note for a family
	editFile(t, filepath.Join(ext, "sandbox-runtime-notes", "README.md"), "not a declared family", "") // Note without saying so
	editFile(t, filepath.Join(ext, "grpc-transport", "README.md"), "Status: Draft", "Status: Note")    // fixed: a note
	editFile(t, filepath.Join(ext, "a2uiSurface", "README.md"), "Status: Draft", "Status: Stable")     // Stable without evidence
	decl := filepath.Join(dir, "spec", "v2", "declaration.json")
	data, _ := os.ReadFile(decl)
	i := strings.Index(string(data), `"key": "canvas"`)
	j := i + strings.Index(string(data[i:]), `"technical": "experimental"`)
	os.WriteFile(decl, []byte(string(data[:j])+`"technical": "stable"`+string(data[j+len(`"technical": "experimental"`):])), 0o644)
	r := openSnapshot(t, dir, opts, gate.Config{})
	fs, err := r.ExtStatus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"chat":                  "FAIL: Status is Stable, but the declaration's maturity.technical for chat is experimental",
		"kanban":                "FAIL: Status is Retired, but the declaration",
		"brand":                 "FAIL: Status is Note, but brand is a declared extension family",
		"sandbox-runtime-notes": "FAIL: Status is Note, but the README does not say",
		"grpc-transport":        "ok: Status Note",
		"a2uiSurface":           "FAIL: Status is Stable without tier-2 or higher certified evidence",
		"canvas":                "FAIL: Status is Draft, but the declaration's maturity.technical for canvas is stable",
		"provider-idempotency":  "FAIL: Status is Draft, but provider-idempotency is not a declared extension family",
	}
	for _, f := range fs {
		if w, ok := want[f.Dir]; ok && !strings.HasPrefix(f.Outcome+": "+f.Reason, w) {
			t.Errorf("%s: %s: %s, want %s", f.Dir, f.Outcome, f.Reason, w)
		}
	}
}
