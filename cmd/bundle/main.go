// Command bundle mints, signs, verifies and gates OpenWOP conformance evidence
// bundles. Each subcommand is a thin layer over certcut's packages: it parses flags,
// calls a package, renders the result and sets the exit code.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/certcut/certcut/internal/panics"
	"github.com/spf13/cobra"
)

func main() {
	// A soft limit on the heap, unless GOMEMLIMIT sets one: gate and census keep
	// about 10 KiB of facts per bundle, and the collector's default headroom
	// (twice the live heap) would take a run over tens of thousands of bundles
	// past 512 MiB; near the limit it collects sooner instead. Small runs never
	// come near it (docs/performance.md).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(384 << 20)
	}
	// An interrupt (Ctrl-C) or SIGTERM cancels the command's context: git
	// subprocesses, fetches and KMS calls that take it stop, and the run exits
	// 130; a second signal kills the process as Go's default does.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes shared by every command (docs/exit-codes.md). Commands with a verdict
// (verify, gate) use 0, 1 and 2 for it.
const (
	exitOK         = 0
	exitInput      = 3   // an input could not be read: missing file, not JSON, bad key file
	exitUsage      = 4   // the command line is wrong: unknown flag, missing argument
	exitInternal   = 70  // a defect in certcut (a panic): EX_SOFTWARE, never a verdict
	exitInterrupts = 130 // interrupted (SIGINT, SIGTERM): 128 + SIGINT, as shells report it
)

// envStack, set to 1, makes an internal error print the stack of the panic.
const envStack = "CERTCUT_STACK"

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

// run executes the command line and returns the process exit code. A panic — in
// the command or in a goroutine it started, which carries it back (package
// panics) — is an internal error: one line naming the panic value (with the
// stack when CERTCUT_STACK=1) and exit 70, never the runtime's exit 2, which
// scripts would read as COHERENT.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is run under ctx, which main cancels on an interrupt. A run whose
// context was cancelled exits 130 (exitInterrupts) whatever the command
// returned: what it printed may rest on cancelled subprocesses or fetches, so
// it is no verdict.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		pe, ok := r.(*panics.Error)
		if !ok {
			pe = &panics.Error{Value: r, Stack: debug.Stack()}
		}
		fmt.Fprintf(stderr, "bundle: internal error: %v; this is a defect in certcut, please report it (with the command line; %s=1 prints the stack)\n", pe.Value, envStack)
		if os.Getenv(envStack) == "1" {
			stderr.Write(pe.Stack)
		}
		code = exitInternal
	}()
	hook("run")
	root := newRootCmdFor(args, stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "bundle: interrupted (%v): no verdict\n", context.Cause(ctx))
		return exitInterrupts
	}
	if err == nil {
		return exitOK
	}
	var pe *panics.Error
	if errors.As(err, &pe) {
		panic(pe) // reported by the deferred recover above
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "bundle: %s\n", unprefixed(root, ee.err))
		}
		return ee.code
	}
	// Errors cobra raises itself (unknown command, bad arguments) are usage errors.
	fmt.Fprintf(stderr, "bundle: %s\nRun 'bundle --help' for usage.\n", unprefixed(root, err))
	return exitUsage
}

// unprefixed is an error's message without a leading command path ("bundle
// gate accepted: …" → "gate accepted: …"), which messages that name their
// command with cmd.CommandPath() start with: every message is printed after
// "bundle: " once. A message that starts "bundle FILE" is kept.
func unprefixed(root *cobra.Command, err error) string {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, root.Name()+" ")
	if !ok {
		return msg
	}
	word, _, _ := strings.Cut(rest, " ")
	word = strings.TrimSuffix(word, ":")
	for _, c := range root.Commands() {
		if c.Name() == word {
			return rest
		}
	}
	return msg
}

// testHook, set only by tests, is called at named points ("run", "verify-file",
// "mint") so that a test can force a panic there, or look at the process's state
// there. Atomic: a verify worker may still read it after run has returned.
var testHook atomic.Pointer[func(point string)]

// hook calls testHook, if set, at point.
func hook(point string) {
	if h := testHook.Load(); h != nil {
		(*h)(point)
	}
}
