// Package lazyre holds regular expressions compiled at their first use rather
// than at package initialisation: every package a binary links is initialised
// at every start, whichever command runs, so a pattern compiled in a var
// declaration costs every command, and most commands never use it.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call (panicking, as
// regexp.MustCompile does, when expr is not a valid pattern) and returns the
// same *regexp.Regexp on every call. It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
