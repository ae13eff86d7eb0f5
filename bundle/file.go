package bundle

import (
	"fmt"
	"io"
	"os"
)

// MaxFileSize bounds what ReadFile reads. The largest bundles seen are about 1 MB;
// the bound keeps a wrong or hostile file from exhausting memory.
const MaxFileSize = 64 << 20

// TooLargeError is returned for input beyond MaxFileSize.
type TooLargeError struct {
	Name  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d MiB; bundles are a few MB at most — is this the right file?", e.Name, e.Limit>>20)
}

// ReadAll reads r up to MaxFileSize bytes; name is used in the error.
func ReadAll(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, &TooLargeError{Name: name, Limit: MaxFileSize}
	}
	return data, nil
}

// ReadFile reads a file of at most MaxFileSize bytes.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > MaxFileSize {
		return nil, &TooLargeError{Name: path, Limit: MaxFileSize}
	}
	return ReadAll(f, path)
}
