package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/schemas"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// walk calls f on every command of the tree.
func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}

// Every flag that takes a value says what it takes (--host-key PEM|DIR|BASE64URL,
// --out FILE), never its Go type (stringArray, string, int).
func TestFlagPlaceholders(t *testing.T) {
	root := newRootCmd(nil, &bytes.Buffer{}, &bytes.Buffer{})
	types := []string{"string", "stringArray", "strings", "int", "duration", "uint", "float64"}
	walk(root, func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" {
				return
			}
			name, _ := pflag.UnquoteUsage(f)
			if name == "" || slices.Contains(types, name) {
				t.Errorf("%s --%s: the placeholder is %q; put what it takes in the usage in backquotes (`FILE`)", c.CommandPath(), f.Name, name)
			}
		})
	})
}

// Every command has its help file, and every help file a command; every
// command that prints a result takes --format (docs/cli.md).
func TestHelpFiles(t *testing.T) {
	root := newRootCmd(nil, &bytes.Buffer{}, &bytes.Buffer{})
	used := map[string]bool{}
	walk(root, func(c *cobra.Command) {
		if c.Name() == "help" {
			return
		}
		name := strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "bundle "), " ", "-")
		used[name+".txt"] = true
		if c.Long == "" || c.Example == "" {
			t.Errorf("%s: no long help or examples (help/%s.txt)", c.CommandPath(), name)
		}
		if !strings.Contains(strings.ToLower(c.Long), "exit") && c.HasParent() && !c.HasSubCommands() {
			t.Errorf("%s: its help does not list its exit codes", c.CommandPath())
		}
		noResult := map[string]bool{"man": true, "completion": true, "keys generate": true, "keys retire": true}
		if c.Runnable() && !c.HasSubCommands() && c.HasParent() && !noResult[strings.TrimPrefix(c.CommandPath(), "bundle ")] && c.Flags().Lookup("format") == nil {
			t.Errorf("%s prints a result but takes no --format", c.CommandPath())
		}
	})
	entries, err := fs.ReadDir(helpFiles, "help")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !used[e.Name()] {
			t.Errorf("help/%s belongs to no command", e.Name())
		}
	}
}

// README's layout: cmd/bundle parses flags, calls a package, renders and sets
// the exit code. It imports certcut's packages that do the work and render the
// result, and no library internals it would need only to redo their work (a
// canonicalizer, a row adapter's parsing, a validator, a generator).
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Skipf("SKIPPED: go list: %v", err)
	}
	allowed := []string{
		"attest", "bundle", "discovery", "gate", "gate/rfc", "internal/atomicfile", "internal/jsonkind",
		"internal/buildinfo", "internal/lazyre", "internal/limitedfile", "internal/panics", "keys", "mint", "profiles", "render", "rows", "schemas",
		"tiers", "timestamp", "verify",
	}
	for _, imp := range strings.Fields(string(out)) {
		rest, ours := strings.CutPrefix(imp, "github.com/certcut/certcut/")
		if !ours {
			if strings.Contains(imp, ".") && !strings.HasPrefix(imp, "github.com/spf13/") && imp != "golang.org/x/term" {
				t.Errorf("cmd/bundle imports %s: a CLI needs cobra, pflag and x/term, and certcut's own packages", imp)
			}
			continue
		}
		if !slices.Contains(allowed, rest) {
			t.Errorf("cmd/bundle imports %s, which is not a package the README's data flow names for it", imp)
		}
	}
	for _, banned := range []string{"encoding/json", "encoding/xml", "encoding/csv", "html/template"} {
		if slices.Contains(strings.Fields(string(out)), banned) {
			t.Errorf("cmd/bundle imports %s: output is render's job (render.WriteJSON and the renderers)", banned)
		}
	}
}

// What --help says and what docs/ says agree where they say the same thing.
func TestHelpAgreesWithDocs(t *testing.T) {
	norm := func(s string) string {
		return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "`", "")), " "))
	}
	doc := func(name string) string {
		data, err := os.ReadFile(filepath.Join(testkit.ModuleRoot(), "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		return norm(string(data))
	}
	root := newRootCmd(nil, &bytes.Buffer{}, &bytes.Buffer{})
	helpOf := func(path ...string) string {
		c, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		return norm(c.Long + "\n" + c.Example)
	}
	for _, c := range []struct {
		cmd    []string
		doc    string
		phrase string
	}{
		{[]string{"verify"}, "verify.md", "a directory is matched by key id only, even when it holds a single file"},
		{[]string{"show"}, "show-report.md", "--color=always"},
		{[]string{"show"}, "show-report.md", "less -r"},
		{[]string{"keys", "generate"}, "guide.md", "outside the repository's work tree"},
	} {
		if !strings.Contains(helpOf(c.cmd...), c.phrase) {
			t.Errorf("bundle %s --help does not say %q", strings.Join(c.cmd, " "), c.phrase)
		}
		if !strings.Contains(doc(c.doc), c.phrase) {
			t.Errorf("docs/%s does not say %q", c.doc, c.phrase)
		}
	}
	for _, name := range schemas.Names() {
		if !strings.Contains(helpOf("schema"), "\n"+name+" ") && !strings.Contains(helpOf("schema"), " "+name+" ") {
			t.Errorf("bundle schema --help does not list the schema %s", name)
		}
		if !strings.Contains(doc("schemas.md"), "bundle schema "+name) && name != "bundle" {
			t.Errorf("docs/schemas.md does not show 'bundle schema %s'", name)
		}
	}
}
