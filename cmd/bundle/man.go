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
	return command("man", "man DIR", "Write a man page for every command into DIR",
		exactArgs(1, "the DIR to write the man pages into"), func(cmd *cobra.Command, args []string) error {
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
		})
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
