// Package limitedfile reads whole files under a size cap, the read-side twin of
// atomicfile. Every file certcut reads (bundles, keys, keyrings, policy files,
// discovery documents, files under a repository) goes through it, so that no input
// can exhaust memory or hang the process:
//
//   - only regular files are read: a FIFO, a device, a socket or a directory is
//     refused before it is opened for reading, so nothing waits on a writer that
//     never comes;
//   - the cap holds whatever stat says: a file whose size reads 0 (procfs, a file
//     still growing) is read through a limit of cap+1 bytes, and a file found longer
//     than the cap is refused, never truncated.
package limitedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TooLargeError is returned for input longer than the cap.
type TooLargeError struct {
	Name  string // the file's path, or a description such as "standard input"
	Limit int64  // the cap, in bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most certcut reads for it; is this the right file?", e.Name, Size(e.Limit))
}

// NotRegularError is returned for a path that is not a regular file.
type NotRegularError struct {
	Name string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	what := "not a regular file"
	switch {
	case e.Mode.IsDir():
		what = "a directory, not a file"
	case e.Mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file; certcut does not wait on pipes: save the content to a file first"
	case e.Mode&fs.ModeDevice != 0 || e.Mode&fs.ModeCharDevice != 0:
		what = "a device, not a regular file"
	case e.Mode&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	}
	return fmt.Sprintf("%s is %s", e.Name, what)
}

// Read returns the content of the regular file at path, refusing a file longer than
// limit bytes with *TooLargeError and anything that is not a regular file (after
// following symbolic links) with *NotRegularError. Errors from the file system are
// returned as they are, so errors.Is(err, fs.ErrNotExist) works.
func Read(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Name: path, Mode: info.Mode()}
	}
	if info.Size() > limit {
		return nil, &TooLargeError{Name: path, Limit: limit}
	}
	// O_NONBLOCK keeps open from waiting should the path be swapped for a FIFO
	// between the stat and the open; the second check below then refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err = f.Stat()
	if err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Name: path, Mode: info.Mode()}
	}
	return readSized(f, path, limit, info.Size())
}

// readSized is ReadAll for a file whose size is known: one buffer of that size
// (and a little more, to see EOF or growth), not a doubling one.
func readSized(r io.Reader, name string, limit, size int64) ([]byte, error) {
	if size < 0 || size > limit {
		return ReadAll(r, name, limit)
	}
	data := make([]byte, 0, size+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) { // the file grew: read the rest the general way
			rest, err := ReadAll(r, name, limit-int64(len(data)))
			if err != nil {
				var tl *TooLargeError
				if errors.As(err, &tl) {
					return nil, &TooLargeError{Name: name, Limit: limit}
				}
				return nil, err
			}
			return append(data, rest...), nil
		}
	}
}

// ReadAll reads r to its end, refusing more than limit bytes with *TooLargeError;
// name describes r in the error.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return data, nil
}

// Size renders a byte count for people: "64 MiB", "512 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Caps for the kinds of file certcut reads. A bundle is about 1 MB at most (the
// largest real one is 0.94 MB); the rest are far smaller.
const (
	MaxBundle    = 16 << 20 // a bundle
	MaxPolicy    = 8 << 20  // keyrings, host tiers, registries, gate files, ledgers, lists, RFC text
	MaxDiscovery = 8 << 20  // a discovery document (as discovery.DefaultMaxSize)
	MaxKey       = 64 << 10 // a PEM key file
	MaxInput     = 64 << 20 // run outputs mint reads: a ledger, a vitest report, JUnit XML
)

// OutsideError is returned by ReadIn for a name that would leave its directory.
type OutsideError struct {
	Dir, Name string
	Why       string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%q is not a path inside %s: %s; files named by repository data must stay inside the repository", e.Name, e.Dir, e.Why)
}

// ReadIn reads the file name, a slash-separated path taken from data (a list in a
// repository, say), inside dir, under the same rules as Read. The name must be
// relative and free of ".." elements, and no symbolic link on the way may lead out
// of dir (os.Root enforces it); otherwise the error is *OutsideError.
func ReadIn(dir, name string, limit int64) ([]byte, error) {
	switch {
	case name == "" || filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "":
		return nil, &OutsideError{Dir: dir, Name: name, Why: "an absolute or empty path"}
	case slices.Contains(strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }), ".."):
		return nil, &OutsideError{Dir: dir, Name: name, Why: `it has a ".." element`}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := root.Stat(name)
	if err != nil {
		if strings.Contains(err.Error(), "escapes from parent") {
			return nil, &OutsideError{Dir: dir, Name: name, Why: "a symbolic link leads out of it"}
		}
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Name: filepath.Join(dir, name), Mode: info.Mode()}
	}
	if info.Size() > limit {
		return nil, &TooLargeError{Name: filepath.Join(dir, name), Limit: limit}
	}
	f, err := root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, filepath.Join(dir, name), limit)
}

// Stdin is the path that names standard input on a command line.
const Stdin = "-"

// ReadArg reads an input a command line names: path, or r for Stdin ("-"), at
// most limit bytes either way (a file as Read reads it).
func ReadArg(path string, r io.Reader, limit int64) ([]byte, error) {
	if path == Stdin {
		return ReadAll(r, "standard input", limit)
	}
	return Read(path, limit)
}
