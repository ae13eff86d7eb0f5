package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// CopyTree copies the directory src into a new directory dir/name under the
// test's temporary directory and returns its path. Files come out writable
// whatever their mode in src (CI lays ../shared out read-only); a symbolic link
// or other irregular file inside src fails the test.
func CopyTree(t testing.TB, src, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	return dir
}
