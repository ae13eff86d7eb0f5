//go:build !unix

package testkit

import "errors"

// Mkfifo makes a named pipe at path; not supported on this system.
func Mkfifo(path string) error { return errors.New("named pipes are not supported here") }
