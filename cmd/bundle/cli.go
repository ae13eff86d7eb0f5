package main

// The grammar every command follows (docs/cli.md): --format and its --json alias,
// --quiet, --color, "-" for standard input and output.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// output holds the flags of a command that prints a result.
type output struct {
	format  string
	json    bool
	quiet   bool
	allowed []render.Format
	// f is the format chosen, once the flags are checked.
	f render.Format
}

// addOutput gives cmd --format (the first allowed format is the default),
// --json (an alias of --format json, when JSON is allowed) and, with quiet,
// --quiet. They are checked before the command runs.
func addOutput(cmd *cobra.Command, o *output, quiet bool, allowed ...render.Format) {
	o.allowed = allowed
	words := make([]string, len(allowed))
	for i, f := range allowed {
		words[i] = string(f)
	}
	fl := cmd.Flags()
	fl.StringVar(&o.format, "format", words[0], "print the result as `"+strings.Join(words, "|")+"`")
	if strings.Contains(strings.Join(words, " "), string(render.JSON)) {
		fl.BoolVar(&o.json, "json", false, "print the result as JSON (--format json)")
	}
	if quiet {
		fl.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing on success, else only the verdict and its reasons")
	}
	chainPreRun(cmd, func(cmd *cobra.Command) error {
		if o.json {
			if cmd.Flags().Changed("format") && o.format != string(render.JSON) {
				return usageErrorf("--json is --format json; drop one of --json and --format %s", o.format)
			}
			o.format = string(render.JSON)
		}
		f, err := render.ParseFormat(o.format, o.allowed...)
		if err != nil {
			return usageErrorf("%v", err)
		}
		if o.quiet && f != render.Text {
			return usageErrorf("--quiet shortens the text output; --format %s prints the whole result (drop --quiet)", f)
		}
		o.f = f
		return nil
	})
}

// text reports whether the result is printed for people.
func (o *output) text() bool { return o.f == render.Text }

// chainPreRun runs f before the command's own PreRunE.
func chainPreRun(cmd *cobra.Command, f func(*cobra.Command) error) {
	prev := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := f(cmd); err != nil {
			return err
		}
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
}

// isTerminal reports whether w is a terminal; tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorMode is --color (a flag of every command); checked by the root command.
var colorMode = "auto"

// useColor decides --color for w: always, never, or auto — colour only when w
// is a terminal and NO_COLOR is unset or empty (no-color.org).
func useColor(w io.Writer) bool {
	switch colorMode {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

func checkColor() error {
	switch colorMode {
	case "auto", "always", "never":
		return nil
	}
	return usageErrorf("--color must be auto, always or never, not %q", colorMode)
}

// oneStdin refuses "-" (standard input) named more than once among paths.
func oneStdin(name string, paths ...string) error {
	n := 0
	for _, p := range paths {
		if p == limitedfile.Stdin {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("%s: - (standard input) is given %d times; standard input is read once, so give - once", name, n)
	}
	return nil
}

// refuseExisting is the --force pre-check of the files a command will write
// ("-", standard output, is never refused).
func refuseExisting(force bool, paths ...string) error {
	for _, p := range paths {
		if p == limitedfile.Stdin || force {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			return usageErrorf("%v", &atomicfile.ExistsError{Path: p})
		}
	}
	return nil
}

// reportWriter is where a command that writes a file reports on it: standard
// output, unless the file itself went there ("-"), then standard error.
func reportWriter(cmd *cobra.Command, written string) io.Writer {
	if written == limitedfile.Stdin {
		return cmd.ErrOrStderr()
	}
	return cmd.OutOrStdout()
}

// writeOut writes data to path atomically, or to stdout for "-": an existing
// path without force is a usage error, a failed write an input error.
func writeOut(stdout io.Writer, name, path string, data []byte, force bool) error {
	if path == limitedfile.Stdin {
		_, err := stdout.Write(data)
		return err
	}
	err := atomicfile.Write(path, data, 0o644, force)
	var exists *atomicfile.ExistsError
	switch {
	case errors.As(err, &exists):
		return usageErrorf("%v", err)
	case err != nil:
		return inputError(fmt.Errorf("%s: cannot write %s: %w", name, path, err))
	}
	return nil
}

// progress returns a progress printer for long runs when stderr is a terminal,
// and nil (quiet) otherwise.
func progress(stderr io.Writer, what string) func(done, total int) {
	if !isTerminal(stderr) {
		return nil
	}
	return func(done, total int) {
		switch {
		case total < 20:
		case done == total:
			fmt.Fprintf(stderr, "\r\033[K")
		case done%10 == 0:
			fmt.Fprintf(stderr, "\r\033[Kbundle: %s %d/%d", what, done, total)
		}
	}
}

// describeReadError says why a bundle could not be read.
func describeReadError(err error) string {
	var syn *bundle.SyntaxError
	switch {
	case errors.As(err, &syn):
		return "not a bundle: the file is not valid I-JSON: " + syn.Error()
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	}
	return err.Error()
}

// aliases is a flag normalizer that reads older flag names as their current ones.
func aliases(old map[string]string) func(*pflag.FlagSet, string) pflag.NormalizedName {
	return func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if cur, ok := old[name]; ok {
			name = cur
		}
		return pflag.NormalizedName(name)
	}
}
