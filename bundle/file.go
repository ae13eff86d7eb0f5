package bundle

import (
	"github.com/certcut/certcut/internal/limitedfile"
)

// MaxFileSize bounds what ReadFile and ReadAll read. The largest bundle seen is
// 0.94 MB; the bound keeps a wrong or hostile file from exhausting memory.
const MaxFileSize = limitedfile.MaxBundle

// TooLargeError is returned for input beyond MaxFileSize.
type TooLargeError = limitedfile.TooLargeError

// ReadFile reads a regular file of at most MaxFileSize bytes; FIFOs, devices and
// directories are refused (see package limitedfile).
func ReadFile(path string) ([]byte, error) {
	return limitedfile.Read(path, MaxFileSize)
}
