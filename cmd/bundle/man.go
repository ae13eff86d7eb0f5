package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newManCmd() *cobra.Command {
	return command("man", "man DIR", "Write a man page for every command into DIR",
		exactArgs(1, "the DIR to write the man pages into"), func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			date, err := manDate()
			if err != nil {
				return inputError(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return inputError(fmt.Errorf("cannot create %s: %w", dir, err))
			}
			var written []string
			if err := writeManTree(cmd.Root(), dir, date, &written); err != nil {
				return inputError(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d man pages to %s: %s\n", len(written), dir, strings.Join(written, " "))
			return nil
		})
}

// manDate is the date the pages carry: now, or SOURCE_DATE_EPOCH (seconds since
// 1970) for reproducible pages.
func manDate() (time.Time, error) {
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		return time.Now(), nil
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid SOURCE_DATE_EPOCH: %v", err)
	}
	return time.Unix(secs, 0), nil
}

// writeManTree writes the page of c and of every available subcommand, each file
// atomically, one file per command named by its path (bundle-verify.1).
func writeManTree(c *cobra.Command, dir string, date time.Time, written *[]string) error {
	name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
	if err := atomicfile.Write(filepath.Join(dir, name), manPage(c, date), 0o644, true); err != nil {
		return err
	}
	*written = append(*written, name)
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(sub, dir, date, written); err != nil {
			return err
		}
	}
	return nil
}

// manPage renders the man(7) page of c: NAME, SYNOPSIS, DESCRIPTION (the long
// help), OPTIONS (own and inherited), EXAMPLE and SEE ALSO, the sections and
// layout of cobra/doc's pages. The help text is taken as plain text, never as
// Markdown, so every character of it reaches the page: paragraphs are split at
// blank lines, a paragraph of "- " items is a bulleted list, one with indented
// lines (a table of verdicts, a column of flags) is set as written, and a
// `quoted` word in a flag's usage is set in bold.
func manPage(c *cobra.Command, date time.Time) []byte {
	c.InitDefaultHelpFlag()
	var b bytes.Buffer
	dashed := strings.ReplaceAll(c.CommandPath(), " ", "-")
	fmt.Fprintf(&b, ".nh\n.TH %s \"1\" %s %s \"certcut manual\"\n\n",
		manQuote(strings.ToUpper(dashed)), manQuote(date.Format("Jan 2006")), manQuote("certcut "+versionString()))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n\n", manText(dashed), manText(c.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n\\fB%s\\fP\n\n", manText(c.UseLine()))
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	b.WriteString(".SH DESCRIPTION\n")
	manParagraphs(&b, desc)
	for _, s := range []struct {
		title string
		flags *pflag.FlagSet
	}{{"OPTIONS", c.NonInheritedFlags()}, {"OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags()}} {
		if !s.flags.HasAvailableFlags() {
			continue
		}
		fmt.Fprintf(&b, "\n.SH %s\n", s.title)
		first := true
		s.flags.VisitAll(func(f *pflag.Flag) {
			if f.Deprecated != "" || f.Hidden {
				return
			}
			if !first {
				b.WriteString(".PP\n")
			}
			first = false
			b.WriteString(manFlag(f))
		})
	}
	if c.Example != "" {
		b.WriteString("\n.SH EXAMPLE\n.EX\n")
		for _, line := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			b.WriteString(manLine(line) + "\n")
		}
		b.WriteString(".EE\n")
	}
	var see []string
	if c.HasParent() {
		see = append(see, strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"))
	}
	subs := slices.Clone(c.Commands())
	slices.SortFunc(subs, func(x, y *cobra.Command) int { return strings.Compare(x.Name(), y.Name()) })
	for _, sub := range subs {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			see = append(see, dashed+"-"+sub.Name())
		}
	}
	if len(see) > 0 {
		for i, s := range see {
			see[i] = "\\fB" + manText(s) + "(1)\\fP"
		}
		fmt.Fprintf(&b, "\n.SH SEE ALSO\n%s\n", strings.Join(see, ", "))
	}
	return b.Bytes()
}

// manFlag is one flag's entry, as cobra/doc lays it out: the names in bold, the
// default, and the usage on the next line.
func manFlag(f *pflag.Flag) string {
	var b strings.Builder
	if f.Shorthand != "" && f.ShorthandDeprecated == "" {
		fmt.Fprintf(&b, "\\fB-%s\\fP, ", manText(f.Shorthand))
	}
	fmt.Fprintf(&b, "\\fB--%s\\fP", manText(f.Name))
	def := f.DefValue
	if def == "" && f.Value.Type() == "stringArray" {
		def = "[]" // stringsVar's empty default
	}
	if f.Value.Type() == "string" {
		def = strconv.Quote(def)
	}
	if f.NoOptDefVal != "" {
		fmt.Fprintf(&b, "[=%s]", manText(def))
	} else {
		fmt.Fprintf(&b, "=%s", manText(def))
	}
	// A `quoted` word is the flag's value name (pflag.UnquoteUsage): bold.
	parts := strings.Split(f.Usage, "`")
	b.WriteString("\n\t")
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("\\fB" + manText(p) + "\\fR")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(manText(strings.ReplaceAll(p, "\n", " ")))
	}
	b.WriteString("\n\n")
	return b.String()
}

// manParagraphs writes help text: a paragraph per run of non-blank lines.
func manParagraphs(b *bytes.Buffer, text string) {
	var para []string
	first := true
	flush := func() {
		if len(para) == 0 {
			return
		}
		if !first {
			b.WriteString("\n")
		}
		switch {
		case strings.HasPrefix(strings.TrimLeft(para[0], " \t"), "- "):
			// A list: items start with "- ", continuation lines join the item.
			for _, l := range para {
				if item, ok := strings.CutPrefix(strings.TrimLeft(l, " \t"), "- "); ok {
					b.WriteString(".IP \\(bu 2\n")
					l = item
				}
				b.WriteString(manLine(strings.TrimLeft(l, " \t")) + "\n")
			}
		case slices.ContainsFunc(para, func(l string) bool { return strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") }):
			// Indented lines are laid out by hand: set them as written.
			if !first {
				b.WriteString(".PP\n")
			}
			b.WriteString(".nf\n")
			for _, l := range para {
				b.WriteString(manLine(l) + "\n")
			}
			b.WriteString(".fi\n")
		default:
			if !first {
				b.WriteString(".PP\n")
			}
			for _, l := range para {
				b.WriteString(manLine(l) + "\n")
			}
		}
		first = false
		para = para[:0]
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		para = append(para, strings.TrimRight(l, " \t"))
	}
	flush()
}

// manText escapes text for roff: a backslash is \e.
func manText(s string) string { return strings.ReplaceAll(s, `\`, `\e`) }

// manLine escapes a whole input line: as manText, and a line that starts with a
// period or an apostrophe (a request to roff) starts with \& instead.
func manLine(s string) string {
	s = manText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// manQuote is a quoted argument of a roff request.
func manQuote(s string) string { return `"` + strings.ReplaceAll(manText(s), `"`, `\(dq`) + `"` }
