package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
)

// CensusFormats are the formats WriteCensus writes.
var CensusFormats = []Format{Text, JSON, CSV}

// WriteCensus writes a census: in text, its sentences and a table of the rows;
// as JSON; or as CSV under a header of gate.CensusColumns. Every text value is
// escaped (Inline in the table, CSVCell in the CSV), and the unsigned columns
// are marked in both headers.
func WriteCensus(w io.Writer, c *gate.Census, format Format) error {
	switch format {
	case JSON:
		return WriteJSON(w, c)
	case CSV:
		return writeCensusCSV(w, c)
	}
	sw := SafeWriter(w)
	writeCensusTable(sw, c)
	return sw.(*safeWriter).err
}

func writeCensusTable(w io.Writer, c *gate.Census) {
	in := Inline
	for _, s := range c.Summary {
		fmt.Fprintln(w, in(s.Sentence()))
	}
	if len(c.Unreadable) > 0 {
		files := make([]string, len(c.Unreadable))
		for i, f := range c.Unreadable {
			files[i] = in(f)
		}
		fmt.Fprintf(w, "unreadable, not counted: %s\n", strings.Join(files, ", "))
	}
	if len(c.Rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	head := func(title, column string) string {
		if gate.CensusColumnUnsigned(column) {
			return title + " " + UnsignedMark
		}
		return title
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join([]string{"BUNDLE", head("ROW", "row"), head("RESULT", "result"), head("ASSERTIONS", "assertions"),
		head("SUITE", "suite"), head("HOST", "host"), head("KEY", "keyId"), "VERDICT", "SIGNED AT"}, "\t"))
	for _, r := range c.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", in(filepath.Base(r.Bundle)), in(r.Row), in(r.Result), r.Assertions, in(r.Suite), in(r.Host), in(r.KeyID), r.Verdict,
			in(orDash(r.SignedAt)+" ("+r.TimeSource+")"))
	}
	tw.Flush()
}

// writeCensusCSV writes one line per row under a header of gate.CensusColumns;
// an unsigned column's name carries " (unsigned)". Every text cell goes through
// CSVCell (one line per record, and the formula-injection guard); the numbers
// are certcut's own.
func writeCensusCSV(w io.Writer, c *gate.Census) error {
	cw := csv.NewWriter(w)
	header := make([]string, len(gate.CensusColumns))
	for i, col := range gate.CensusColumns {
		header[i] = col.Name
		if col.Unsigned() {
			header[i] += " " + UnsignedMark
		}
	}
	cw.Write(header)
	text := CSVCell
	for _, r := range c.Rows {
		cw.Write([]string{text(r.Query), text(r.Bundle), text(r.Sha256), text(r.Row), text(r.Scenario), text(r.Result),
			strconv.FormatInt(r.Assertions, 10), text(r.Suite), text(r.Host), text(r.KeyID), text(r.Verdict), strconv.FormatBool(r.Verifies),
			text(r.SignedAt), text(r.TimeSource)})
	}
	cw.Flush()
	return cw.Error()
}

// DiffOptions shape WriteDiff's output.
type DiffOptions struct {
	Format Format // Text or JSON
	// RegressionsOnly prints, in text, only the bundles and the regressions.
	RegressionsOnly bool
}

// WriteDiff prints a diff for a reviewer (or as JSON). Every interpolated value
// goes through Inline (no text from a bundle or a file name starts a line), and a
// member that nothing binds is marked "(unsigned)".
func WriteDiff(w io.Writer, d *gate.DiffReport, opts DiffOptions) error {
	if opts.Format == JSON {
		return WriteJSON(w, d)
	}
	sw := SafeWriter(w)
	writeDiffText(sw, d, opts.RegressionsOnly)
	return sw.(*safeWriter).err
}

func writeDiffText(w io.Writer, d *gate.DiffReport, regressionsOnly bool) {
	in := Inline
	fmt.Fprintf(w, "A: %s (sha256 %s) %s\n", in(d.A.File), d.A.Sha256, d.A.Verdict)
	fmt.Fprintf(w, "B: %s (sha256 %s) %s\n", in(d.B.File), d.B.Sha256, d.B.Verdict)
	if regressionsOnly {
		for _, r := range d.Regressions {
			fmt.Fprintf(w, "regression: %s\n", in(r))
		}
		fmt.Fprintf(w, "%d regression(s)\n", len(d.Regressions))
		return
	}
	ta, tb := d.A.Totals, d.B.Totals
	fmt.Fprintf(w, "totals: executedPass %d → %d, executedFail %d → %d, skipped %d → %d, inapplicable %d → %d, blocked %d → %d\n",
		ta.ExecutedPass, tb.ExecutedPass, ta.ExecutedFail, tb.ExecutedFail, ta.Skipped, tb.Skipped, ta.Inapplicable, tb.Inapplicable, ta.Blocked, tb.Blocked)
	for _, f := range d.Fields {
		mark := ""
		if f.Binding == bundle.Unsigned {
			mark = " " + UnsignedMark
		}
		fmt.Fprintf(w, "%s%s: %s → %s\n", f.Field, mark, in(orDash(f.From)), in(orDash(f.To)))
	}
	fmt.Fprintf(w, "rows: %d added, %d removed, %d result changed, %d assertion count changed\n", len(d.Added), len(d.Removed), len(d.Changed), len(d.AssertionsChanged))
	for _, r := range d.Added {
		fmt.Fprintf(w, "  + %s %s (%d)\n", in(r.ID), in(r.Result), r.Assertions)
	}
	for _, r := range d.Removed {
		fmt.Fprintf(w, "  - %s %s (%d)\n", in(r.ID), in(r.Result), r.Assertions)
	}
	for _, c := range d.Changed {
		mark := "~"
		if c.Regress {
			mark = "!"
		}
		fmt.Fprintf(w, "  %s %s %s → %s%s\n", mark, in(string(c.ID)), in(c.From), in(c.To), DetailSuffix(c.ToWhy))
	}
	for _, r := range d.Regressions {
		fmt.Fprintf(w, "regression: %s\n", in(r))
	}
	fmt.Fprintf(w, "%d regression(s)\n", len(d.Regressions))
}
