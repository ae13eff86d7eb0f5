//go:build unix

package testkit

import "syscall"

// Mkfifo makes a named pipe at path, for tests that a reader refuses it rather
// than waiting on a writer.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
