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
			loader := &gate.Loader{Options: opts, Progress: progress(cmd.ErrOrStderr(), "reading bundles")}
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

func renderCensusTable(w io.Writer, c *gate.Census) {
	for _, s := range c.Summary {
		fmt.Fprintln(w, s.Sentence())
	}
	if len(c.Unreadable) > 0 {
		fmt.Fprintf(w, "unreadable, not counted: %s\n", strings.Join(c.Unreadable, ", "))
	}
	if len(c.Rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BUNDLE\tROW\tRESULT\tASSERTIONS\tSUITE\tHOST\tKEY\tVERDICT")
	for _, r := range c.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", filepath.Base(r.Bundle), r.Row, r.Result, r.Assertions, r.Suite, r.Host, r.KeyID, r.Verdict)
	}
	tw.Flush()
}

func renderCensusCSV(w io.Writer, c *gate.Census) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"query", "bundle", "sha256", "row", "scenario", "result", "assertions", "suite", "host", "keyId", "verdict", "verifies"})
	for _, r := range c.Rows {
		cw.Write([]string{r.Query, r.Bundle, r.Sha256, r.Row, r.Scenario, r.Result, strconv.FormatInt(r.Assertions, 10), r.Suite, r.Host, r.KeyID, r.Verdict, strconv.FormatBool(r.Verifies)})
	}
	cw.Flush()
	return cw.Error()
}
