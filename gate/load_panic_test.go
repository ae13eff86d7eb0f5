package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/panics"
)

// A panic while a worker judges a file does not kill the process (the runtime's
// exit status 2 would read as a verdict): the file's entry carries it as an
// internal error, and the other files are judged.
func TestLoadFilesRecoversAPanic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(a, []byte("{}"), 0o644)
	os.WriteFile(b, []byte("{}"), 0o644)
	loadHook = func(path string) {
		if path == a {
			panic("boom")
		}
	}
	defer func() { loadHook = nil }()
	entries, err := (&Loader{Workers: 2}).LoadFiles(t.Context(), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var pe *panics.Error
	if !errors.As(entries[0].Err, &pe) || !strings.Contains(entries[0].Err.Error(), "internal error: boom") || !strings.Contains(entries[0].Err.Error(), "please report it") {
		t.Errorf("a: %v", entries[0].Err)
	}
	if entries[0].File != a || entries[1].File != b || entries[1].Bundle == nil {
		t.Errorf("b was not judged: %+v", entries[1])
	}
}
