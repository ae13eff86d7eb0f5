package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
)

// schemasDir is the committed schemas' directory.
var schemasDir = filepath.Join(testkit.ModuleRoot(), "schemas")

// TestCommittedSchemasMatchTypes is the drift test: the committed schemas and
// entries.go must be exactly what the generator writes from the Go types today.
func TestCommittedSchemasMatchTypes(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(schemasDir, name))
		if err != nil {
			t.Errorf("schemas/%s: %v (run `go generate ./schemas`)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("schemas/%s differs from what the Go types generate: run `go generate ./schemas` and commit the result", name)
		}
	}
	committed, _ := filepath.Glob(filepath.Join(schemasDir, "*.schema.json"))
	for _, f := range committed {
		if _, ok := files[filepath.Base(f)]; !ok {
			t.Errorf("schemas/%s is committed but no generator target writes it", filepath.Base(f))
		}
	}
}

// The generator is deterministic: two runs write the same bytes.
func TestGenerateDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := generate()
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}
