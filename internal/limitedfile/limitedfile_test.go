package limitedfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/internal/testkit"

	"github.com/certcut/certcut/internal/limitedfile"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "ok"), "hello")
	if got, err := limitedfile.Read(filepath.Join(dir, "ok"), 5); err != nil || string(got) != "hello" {
		t.Errorf("at the cap: %q %v", got, err)
	}
	var tooLarge *limitedfile.TooLargeError
	if _, err := limitedfile.Read(filepath.Join(dir, "ok"), 4); !errors.As(err, &tooLarge) || tooLarge.Limit != 4 {
		t.Errorf("over the cap: %v", err)
	}
	if _, err := limitedfile.Read(filepath.Join(dir, "missing"), 4); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	var notRegular *limitedfile.NotRegularError
	if _, err := limitedfile.Read(dir, 4); !errors.As(err, &notRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("directory: %v", err)
	}
	// A FIFO is refused at once, not waited on.
	fifo := filepath.Join(dir, "fifo")
	if err := testkit.Mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := limitedfile.Read(fifo, 4); done <- err }()
	select {
	case err := <-done:
		if !errors.As(err, &notRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read waited on a FIFO")
	}
}

// A file whose size stat reports as 0 is still read through the cap.
func TestReadZeroSizeFile(t *testing.T) {
	const procFile = "/proc/self/status"
	info, err := os.Stat(procFile)
	if err != nil || info.Size() != 0 {
		t.Skip("no procfs file that stats as empty here")
	}
	if data, err := limitedfile.Read(procFile, 1<<20); err != nil || len(data) == 0 {
		t.Errorf("read %d bytes, %v", len(data), err)
	}
	var tooLarge *limitedfile.TooLargeError
	if _, err := limitedfile.Read(procFile, 8); !errors.As(err, &tooLarge) {
		t.Errorf("a zero-size file longer than its cap: %v", err)
	}
}

// Names taken from repository data stay inside their directory.
func TestReadIn(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo", "scenarios")
	write(t, filepath.Join(repo, "a.test.ts"), "ok")
	write(t, filepath.Join(repo, "sub", "b.test.ts"), "ok too")
	write(t, filepath.Join(dir, "secret"), "outside")
	if err := os.Symlink(filepath.Join(dir, "secret"), filepath.Join(repo, "abs-link.test.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../secret", filepath.Join(repo, "rel-link.test.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.test.ts", filepath.Join(repo, "inner-link.test.ts")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.test.ts": "ok", "sub/b.test.ts": "ok too", "inner-link.test.ts": "ok"} {
		if got, err := limitedfile.ReadIn(repo, name, 100); err != nil || string(got) != want {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	for name, why := range map[string]string{
		"../../secret":     `".." element`,
		"sub/../../x":      `".." element`,
		"/etc/passwd":      "absolute",
		"":                 "absolute or empty",
		"abs-link.test.ts": "symbolic link",
		"rel-link.test.ts": "symbolic link",
		`..\secret`:        `".." element`,
	} {
		var outside *limitedfile.OutsideError
		if _, err := limitedfile.ReadIn(repo, name, 100); !errors.As(err, &outside) || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want an OutsideError saying %q", name, err, why)
		}
	}
	var tooLarge *limitedfile.TooLargeError
	if _, err := limitedfile.ReadIn(repo, "sub/b.test.ts", 3); !errors.As(err, &tooLarge) {
		t.Errorf("over the cap: %v", err)
	}
}
