package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

func newCensusCmd() *cobra.Command {
	var (
		trust     trustFlags
		dir       string
		prefixes  []string
		scenarios []string
		format    string
	)
	cmd := &cobra.Command{
		Use:   "census [flags] [ID...]",
		Short: "Which committed bundles carry a row for given ids, an id prefix or a scenario",
		Long: `census answers the question RFCs quote ("0 of 3 committed bundles carry a row
for …"): across a directory of bundles, which carry rows for each id (the id or a
leg under it), each --prefix, or each --scenario file, with the row's result and
assertions, the bundle's suite version, host and key, and whether the bundle
verifies (VERIFIED under the keys you supply).

Ids may use the RFC shorthand: 0211.a2a-error-data-shape, then .a2a-no-openwop-envelope.
A --prefix like 0211. expands to openwop.requirement.0211.

The host and key id columns are unsigned (the minter's claims; anyone can edit
them without breaking the signature): the table and the CSV header say so, and
JSON lists them in unsignedColumns. SIGNED AT (signedAt, timeSource) says when
the host signature was made and where that comes from: rfc3161, a time-stamp
token beside the bundle (FILE.tsr) that chains to a --tsa-cert, or
generatedAt (unsigned), the bundle's own word. Every CSV text cell stays on one line and a
cell that a spreadsheet would evaluate (starting with =, +, -, @) gets a leading '.

Exit codes: 0 done (whatever the counts), 3 an input could not be read, 4 usage error.`,
		Example: `  bundle census --keyring keyring.json 0211.a2a-error-data-shape .a2a-no-openwop-envelope
  bundle census --prefix 0235. --format csv
  bundle census --scenario v2-a2a-operation-map --scenario a2a-1-0-agent-card --bundles evidence/v2-host-bundles`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, []string{"table", "json", "csv"}); err != nil {
				return err
			}
			ids, err := gate.ExpandIDs(args)
			if err != nil {
				return usageErrorf("%v", err)
			}
			var queries []gate.Query
			for _, id := range ids {
				queries = append(queries, gate.Query{Kind: gate.QueryID, Value: id})
			}
			for _, p := range prefixes {
				if !strings.HasPrefix(p, "openwop.") {
					p = rfc.RequirementPrefix + p
				}
				queries = append(queries, gate.Query{Kind: gate.QueryPrefix, Value: p})
			}
			for _, s := range scenarios {
				queries = append(queries, gate.Query{Kind: gate.QueryScenario, Value: s})
			}
			if len(queries) == 0 {
				return usageErrorf("bundle census: give at least one ID, --prefix or --scenario (see --help)")
			}
			opts, err := trust.options()
			if err != nil {
				return err
			}
			loader := &gate.Loader{Options: opts, Progress: progress(cmd.ErrOrStderr(), "reading bundles"), KeepRow: gate.RowFilter(queries)}
			entries, err := loader.LoadDir(dir)
			if err != nil {
				return inputError(fmt.Errorf("--bundles: %w", err))
			}
			c := gate.TakeCensus(dir, entries, queries)
			switch format {
			case "json":
				return writeJSON(cmd.OutOrStdout(), c)
			case "csv":
				return renderCensusCSV(cmd.OutOrStdout(), c)
			}
			renderCensusTable(render.SafeWriter(cmd.OutOrStdout()), c)
			return nil
		},
	}
	trust.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&dir, "bundles", "evidence/v2-host-bundles", "bundles `dir`")
	fl.StringArrayVar(&prefixes, "prefix", nil, "count rows whose id starts with this `prefix` (repeatable)")
	fl.StringArrayVar(&scenarios, "scenario", nil, "count rows of this scenario `file` (stem or .test.ts; repeatable)")
	fl.StringVar(&format, "format", "table", "output: table, json or csv")
	return cmd
}

// renderCensusTable prints the sentences and the rows. Every value goes through
// render.Inline (no tab or line break from a bundle or a file name can shift a
// column or start a line), and the header marks the unsigned columns.
func renderCensusTable(w io.Writer, c *gate.Census) {
	in := render.Inline
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
			return title + " " + render.UnsignedMark
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

// renderCensusCSV writes one line per row under a header of gate.CensusColumns;
// an unsigned column's name carries " (unsigned)". Every text cell goes through
// render.CSVCell (one line per record, and the formula-injection guard); the
// numbers are certcut's own.
func renderCensusCSV(w io.Writer, c *gate.Census) error {
	cw := csv.NewWriter(w)
	header := make([]string, len(gate.CensusColumns))
	for i, col := range gate.CensusColumns {
		header[i] = col.Name
		if col.Unsigned() {
			header[i] += " " + render.UnsignedMark
		}
	}
	cw.Write(header)
	text := render.CSVCell
	for _, r := range c.Rows {
		cw.Write([]string{text(r.Query), text(r.Bundle), text(r.Sha256), text(r.Row), text(r.Scenario), text(r.Result),
			strconv.FormatInt(r.Assertions, 10), text(r.Suite), text(r.Host), text(r.KeyID), text(r.Verdict), strconv.FormatBool(r.Verifies),
			text(r.SignedAt), text(r.TimeSource)})
	}
	cw.Flush()
	return cw.Error()
}
