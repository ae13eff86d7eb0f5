package main

import (
	"fmt"
	"strings"

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
			if format == "table" {
				format = "text"
			}
			if err := checkFormat(format, render.CensusFormats); err != nil {
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
			return render.WriteCensus(cmd.OutOrStdout(), c, render.Format(format))
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
