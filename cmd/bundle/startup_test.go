package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every command starts by initialising every package the binary links, so the
// binary links no package that only a few commands need and that costs at start
// when certcut can do without it: a Markdown engine (bundle man renders its
// pages itself). Vault keys go through sigstore's KMS provider, as the design
// card asks, and its client is linked. docs/performance.md has the start-up
// figures.
func TestStartupLinksNoHeavyPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("SKIPPED: go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{
			"github.com/russross/blackfriday",
			"github.com/cpuguy83/go-md2man",
			"github.com/spf13/cobra/doc",
		} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("bundle links %s: its initialisation runs at every start of every command", dep)
			}
		}
	}
}

// certcut's own packages compile no regular expression and build no large table
// when the binary starts: a pattern is compiled at its first use
// (internal/lazyre), since every package is initialised at every start of every
// command; gate's rule registry is built at the first lookup. Each package
// allocates at most 4 KiB in its initialisation, as GODEBUG=inittrace=1 reports
// it.
func TestStartupInitialisesLittle(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("SKIPPED: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "bundle") // testscript.Main runs run() under this name
	if err := os.Symlink(exe, bin); err != nil {
		t.Skipf("SKIPPED: %v", err)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bundle version: %v\n%s", err, stderr.String())
	}
	line := regexp.MustCompile(`(?m)^init (github\.com/certcut/certcut/\S+|main) @.*, (\d+) bytes, (\d+) allocs$`)
	seen := 0
	for _, m := range line.FindAllStringSubmatch(stderr.String(), -1) {
		pkg := m[1]
		seen++
		if n, _ := strconv.Atoi(m[2]); n > 4096 {
			t.Errorf("%s allocates %d bytes (%s allocations) in its initialisation: compile patterns at first use (internal/lazyre), build tables at first use", pkg, n, m[3])
		}
	}
	if seen < 5 {
		t.Fatalf("inittrace listed %d certcut packages:\n%s", seen, stderr.String())
	}
}

// A command line that starts with a command's name builds the root with that
// command alone; every command of it is the same as in the whole tree: its
// place, help, usage and flags.
func TestRootForOneCommandIsTheSame(t *testing.T) {
	full := newRootCmd(nil, &bytes.Buffer{}, &bytes.Buffer{})
	var names []string
	for _, c := range full.Commands() {
		if c.Name() != "help" {
			names = append(names, c.Name())
		}
	}
	var listed []string
	for _, s := range subcommands {
		listed = append(listed, s.name)
	}
	slices.Sort(listed)
	if !slices.Equal(names, listed) {
		t.Fatalf("the tree's commands %q, subcommands lists %q", names, listed)
	}
	describe := func(c *cobra.Command) string {
		c.InitDefaultHelpFlag()
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n%s\n%s\n%s\n", c.CommandPath(), c.Long, c.Example, c.UsageString())
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				fmt.Fprintf(&b, "%s %s %q %q %v %s\n", f.Name, f.Shorthand, f.DefValue, f.NoOptDefVal, f.Hidden, f.Value.Type())
			})
		}
		return b.String()
	}
	var walk func(c *cobra.Command, f func(*cobra.Command))
	walk = func(c *cobra.Command, f func(*cobra.Command)) {
		f(c)
		for _, sub := range c.Commands() {
			walk(sub, f)
		}
	}
	want := map[string]string{}
	walk(full, func(c *cobra.Command) { want[c.CommandPath()] = describe(c) })
	for _, name := range names {
		args := []string{name}
		root := newRootCmdFor(args, nil, &bytes.Buffer{}, &bytes.Buffer{})
		if name == "man" || name == "completion" {
			if len(root.Commands()) < len(names) {
				t.Errorf("%s reads the whole tree, but got %d commands", name, len(root.Commands()))
			}
			continue
		}
		seen := 0
		walk(root, func(c *cobra.Command) {
			if c == root || c.Name() == "help" {
				return
			}
			seen++
			if got := describe(c); got != want[c.CommandPath()] {
				t.Errorf("%s differs from the whole tree's:\n%s\nwant:\n%s", c.CommandPath(), got, want[c.CommandPath()])
			}
		})
		if seen == 0 {
			t.Errorf("bundle %s: the command is not in its tree", name)
		}
	}
	if got := newRootCmdFor([]string{"--color", "never", "version"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); len(got.Commands()) < len(names) {
		t.Error("a command line that starts with a flag does not get the whole tree")
	}
}
