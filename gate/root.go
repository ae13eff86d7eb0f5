package gate

import (
	"os"
	"path/filepath"
)

// FindRoot finds the spec repository that holds path: the nearest directory
// above it (path's own, for a directory) with an evidence/ directory. The root
// is returned relative to the working directory when path is relative, and
// false when there is none.
func FindRoot(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	dir := abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, "evidence")); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	if filepath.IsAbs(path) {
		return dir, true
	}
	wd, err := os.Getwd()
	if err != nil {
		return dir, true
	}
	if rel, err := filepath.Rel(wd, dir); err == nil {
		return rel, true
	}
	return dir, true
}
