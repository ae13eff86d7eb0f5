// Package atomicfile writes files so that a reader sees either the old content or
// the new, never a part: the data goes to a temporary file in the same directory,
// is synced, then renamed over the target.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ExistsError is returned when the target exists and overwriting was not allowed.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists; pass --force to overwrite it", e.Path)
}

// Write writes data to path with mode perm. Unless overwrite is set, an existing
// path is refused with *ExistsError. On any error nothing is left behind.
func Write(path string, data []byte, perm fs.FileMode, overwrite bool) error {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return &ExistsError{Path: path}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if !overwrite {
		// Link fails if the target appeared meanwhile; rename would replace it.
		if err := os.Link(name, path); err != nil {
			os.Remove(name)
			ok = true
			if errors.Is(err, fs.ErrExist) {
				return &ExistsError{Path: path}
			}
			return err
		}
		ok = true
		return os.Remove(name)
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	return nil
}
