package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

// TestCoherenceIDs: on the snapshot the list is the repository's schema (59
// names) and no committed bundle carries a coherence id; with a
// conformance/src/coherence/ directory naming one of a bundle's row prefixes,
// that directory is the list and the bundle FAILs; with neither, the built-in
// list is used and said so.
func TestCoherenceIDs(t *testing.T) {
	dir, opts := specSnapshot(t)
	rep := openSnapshot(t, dir, opts, gate.Config{}).Declared(t.Context())
	cs := criteriaOf(rep, gate.CritCoherenceIDs)
	if len(cs) != 12 {
		t.Fatalf("%d criteria", len(cs))
	}
	for _, c := range cs {
		if c.Status != gate.Pass || !strings.Contains(c.Reason, "the repository's schema") || !strings.Contains(c.Reason, "(59)") {
			t.Fatalf("%s %s", c.Status, c.Reason)
		}
	}
	// Find an openwop.it.<name>.… row of a committed bundle to name in the directory.
	var name string
	for _, e := range openSnapshot(t, dir, opts, gate.Config{}).Entries {
		for _, row := range e.Bundle.Rows {
			if rest, ok := strings.CutPrefix(row.ID, "openwop.it."); ok && strings.Contains(rest, ".") && name == "" {
				name = strings.SplitN(rest, ".", 2)[0]
			}
		}
	}
	coh := filepath.Join(dir, "conformance", "src", "coherence")
	os.MkdirAll(coh, 0o755)
	os.WriteFile(filepath.Join(coh, "bundle-maturity-gate.test.ts"), nil, 0o644)
	if name != "" {
		os.WriteFile(filepath.Join(coh, name+".test.ts"), nil, 0o644)
	}
	rep = openSnapshot(t, dir, opts, gate.Config{}).Declared(t.Context())
	fails := 0
	for _, c := range criteriaOf(rep, gate.CritCoherenceIDs) {
		if !strings.Contains(c.Reason, "conformance/src/coherence of the repository") {
			t.Fatalf("%s", c.Reason)
		}
		if c.Status == gate.Fail {
			fails++
		}
	}
	if name != "" && fails == 0 {
		t.Fatalf("a bundle with openwop.it.%s.… rows passes", name)
	}
	os.RemoveAll(filepath.Join(dir, "conformance", "src"))
	os.Remove(filepath.Join(dir, "schemas", "v2", "certification-bundle.schema.json"))
	for _, c := range criteriaOf(openSnapshot(t, dir, opts, gate.Config{}).Declared(t.Context()), gate.CritCoherenceIDs) {
		if !strings.Contains(c.Reason, "built-in (59)") {
			t.Fatalf("%s", c.Reason)
		}
	}
}
