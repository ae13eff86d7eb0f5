package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every word of a command's help reaches its man page as written: the help is
// plain text, so "OPENWOP_CERTIFIED_<profile>", "*.json" or "NNNN.gaps.md" are
// not taken for Markdown emphasis or tags and lost.
func TestManPageKeepsHelpText(t *testing.T) {
	root := newRootCmd(nil, &bytes.Buffer{}, &bytes.Buffer{})
	fonts := regexp.MustCompile(`\\f[BIRP]`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		page := string(manPage(c, time.Unix(0, 0)))
		plain := strings.NewReplacer(`\&`, "", `\e`, `\`, `\(bu`, "").Replace(fonts.ReplaceAllString(page, ""))
		words := strings.Fields(c.Long + " " + c.Short + " " + c.Example)
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Deprecated == "" {
				words = append(words, strings.Fields(strings.ReplaceAll(f.Usage, "`", ""))...)
			}
		})
		for _, w := range words {
			if !strings.Contains(plain, w) {
				t.Errorf("%s: the man page lost %q", c.CommandPath(), w)
			}
		}
		for _, l := range strings.Split(page, "\n") {
			if strings.HasPrefix(l, "'") || strings.HasPrefix(l, ".") && !regexp.MustCompile(`^\.(nh|TH|SH|PP|IP|nf|fi|EX|EE)( |$)`).MatchString(l) {
				t.Errorf("%s: line %q is a roff request the page does not mean", c.CommandPath(), l)
			}
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
}
