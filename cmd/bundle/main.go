// Command bundle mints, signs, verifies and gates OpenWOP conformance evidence
// bundles. Each subcommand is a thin layer over certcut's packages: it parses flags,
// calls a package, renders the result and sets the exit code.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes shared by every command (docs/exit-codes.md). Commands with a verdict
// (verify, gate) use 0, 1 and 2 for it.
const (
	exitOK         = 0
	exitInput      = 3 // an input could not be read: missing file, not JSON, bad key file
	exitUsage      = 4 // the command line is wrong: unknown flag, missing argument
	exitInterrupts = 130
)

// exitError carries an exit code out of a command. With a nil err nothing more is
// printed: the command has already said what it had to.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func inputError(err error) error { return &exitError{code: exitInput, err: err} }

// run executes the command line and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "bundle: %v\n", ee.err)
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown command, bad arguments) are usage errors.
	fmt.Fprintf(stderr, "bundle: %v\nRun 'bundle --help' for usage.\n", err)
	return exitUsage
}
