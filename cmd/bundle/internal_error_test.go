package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
)

// A panic is an internal error: exit 70 (never the runtime's 2, read as COHERENT),
// one line asking for a report, the stack only with CERTCUT_STACK=1. It holds for a
// panic in the command's goroutine and in a verify worker.
func TestPanicIsAnInternalError(t *testing.T) {
	dir := t.TempDir()
	files := make([]string, 3)
	for i := range files {
		files[i] = filepath.Join(dir, "b"+string(rune('0'+i))+".json")
		if err := os.WriteFile(files[i], testkit.Encode(testkit.Signed("https://host.example")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, point := range []string{"run", "verify-file"} {
		for _, stack := range []bool{false, true} {
			forced := func(p string) {
				if p == point {
					panic("forced at " + p)
				}
			}
			testHook.Store(&forced)
			if stack {
				t.Setenv(envStack, "1")
			} else {
				t.Setenv(envStack, "")
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"verify"}, files...), strings.NewReader(""), &stdout, &stderr)
			testHook.Store(nil)
			if code != exitInternal {
				t.Errorf("%s: exit %d, want %d (stderr %q)", point, code, exitInternal, stderr.String())
			}
			first, rest, _ := strings.Cut(stderr.String(), "\n")
			if first != "bundle: internal error: forced at "+point+"; this is a defect in certcut, please report it (with the command line; CERTCUT_STACK=1 prints the stack)" {
				t.Errorf("%s: stderr %q", point, first)
			}
			if hasStack := strings.Contains(rest, "goroutine "); hasStack != stack {
				t.Errorf("%s: stack printed %v, want %v", point, hasStack, stack)
			}
		}
	}
	// Without the hook the same command verifies (exit 2: COHERENT, no key given).
	if code := run(append([]string{"verify"}, files...), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Errorf("without a panic: exit %d", code)
	}
}
