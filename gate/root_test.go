package gate_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
)

func TestFindRoot(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"spec/evidence/v2-host-bundles", "spec/RFCS/registers", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rfcFile := filepath.Join(dir, "spec", "RFCS", "0901-x.md")
	if err := os.WriteFile(rfcFile, []byte("# RFC 0901: x\n\n| **Status** | `Draft` |\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		rfcFile: filepath.Join(dir, "spec"),
		filepath.Join(dir, "spec", "evidence", "v2-host-bundles", "a.json"): filepath.Join(dir, "spec"),
		filepath.Join(dir, "spec", "RFCS", "registers"):                     filepath.Join(dir, "spec"),
	} {
		if got, ok := gate.FindRoot(path); !ok || got != want {
			t.Errorf("FindRoot(%s) = %q, %v; want %q", path, got, ok, want)
		}
	}
	if got, ok := gate.FindRoot(filepath.Join(dir, "elsewhere", "x.md")); ok {
		t.Errorf("FindRoot outside a spec repository = %q", got)
	}
	// A relative path gives a relative root.
	t.Chdir(filepath.Join(dir, "spec", "RFCS"))
	if got, ok := gate.FindRoot("0901-x.md"); !ok || got != ".." {
		t.Errorf("FindRoot(0901-x.md) = %q, %v", got, ok)
	}
	if _, err := rfc.Open("0901-x.md"); err != nil {
		t.Errorf("rfc.Open of an RFC: %v", err)
	}
	if err := os.WriteFile("notes.md", []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var nr *rfc.NotRFCError
	if _, err := rfc.Open("notes.md"); !errors.As(err, &nr) {
		t.Errorf("rfc.Open of notes: %v", err)
	}
}
