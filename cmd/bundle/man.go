package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for every command into DIR",
		Long: `man writes one roff man page (section 1) per command into DIR, created if
needed: bundle.1, bundle-verify.1, bundle-show.1, … They are generated from the
same help text --help prints, so they are never out of date with the binary.
Existing pages of the same names are replaced, each atomically. The date in the
pages is today, or SOURCE_DATE_EPOCH when set (for reproducible builds).

Exit codes: 0 written; 3 DIR cannot be created or written; 4 usage.`,
		Example: `  bundle man ./man && man ./man/bundle-verify.1
  SOURCE_DATE_EPOCH=0 bundle man /usr/local/share/man/man1`,
		Args: exactArgs(1, "the DIR to write the man pages into"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return inputError(fmt.Errorf("cannot create %s: %w", dir, err))
			}
			var written []string
			if err := writeManTree(cmd.Root(), dir, &written); err != nil {
				return inputError(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d man pages to %s: %s\n", len(written), dir, strings.Join(written, " "))
			return nil
		},
	}
}

// writeManTree writes the page of c and of every available subcommand, each file
// atomically, as cobra/doc's GenManTree lays them out (bundle-verify.1).
func writeManTree(c *cobra.Command, dir string, written *[]string) error {
	escapeForMarkdown(c)
	header := &doc.GenManHeader{Section: "1", Source: "certcut " + versionString(), Manual: "certcut manual"}
	var buf bytes.Buffer
	if err := doc.GenMan(c, header, &buf); err != nil {
		return err
	}
	name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
	if err := atomicfile.Write(filepath.Join(dir, name), buf.Bytes(), 0o644, true); err != nil {
		return err
	}
	*written = append(*written, name)
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(sub, dir, written); err != nil {
			return err
		}
	}
	return nil
}

// escapeForMarkdown keeps "<keyId>" and the like in the pages: cobra/doc renders
// help text as Markdown, where <word> would be taken for an HTML tag and dropped,
// so "<" is backslash-escaped. It changes the command tree of this run only.
func escapeForMarkdown(c *cobra.Command) {
	r := strings.NewReplacer("<", `\<`)
	c.Long = r.Replace(c.Long)
	c.Short = r.Replace(c.Short)
	c.LocalFlags().VisitAll(func(f *pflag.Flag) { f.Usage = r.Replace(f.Usage) })
}
