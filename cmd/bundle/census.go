package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

func newCensusCmd() *cobra.Command {
	var (
		trust               trustFlags
		out                 output
		root, dir           string
		prefixes, scenarios []string
	)
	cmd := command("census", "census [flags] [ID...]", "Which committed bundles carry a row for given ids, an id prefix or a scenario",
		cobra.ArbitraryArgs, func(cmd *cobra.Command, args []string) error {
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
			if dir == "" {
				dir = filepath.Join(root, "evidence", "v2-host-bundles")
				if _, err := os.Stat(dir); err != nil && !cmd.Flags().Changed("repo") {
					return inputError(fmt.Errorf("--bundles: no %s here: run census in a spec repository, or pass --repo DIR (or --bundles DIR)", dir))
				}
			}
			opts, err := trust.options()
			if err != nil {
				return err
			}
			loader := &gate.Loader{Options: opts, Progress: progress(cmd.ErrOrStderr(), "reading bundles"), KeepRow: gate.RowFilter(queries)}
			entries, err := loader.LoadDir(cmd.Context(), dir)
			if err != nil {
				return inputError(fmt.Errorf("--bundles: %w", err))
			}
			return render.WriteCensus(cmd.OutOrStdout(), gate.TakeCensus(dir, entries, queries), out.f)
		})
	trust.register(cmd, false)
	addOutput(cmd, &out, false, render.CensusFormats...)
	// --format table is the older name of --format text.
	chainPreRun(cmd, func(*cobra.Command) error {
		if out.format == "table" {
			out.format = string(render.Text)
		}
		return nil
	})
	fl := cmd.Flags()
	fl.StringVar(&root, "repo", ".", "spec repository `DIR` whose evidence/v2-host-bundles is read")
	fl.StringVar(&dir, "bundles", "", "bundles `DIR` (default <repo>/evidence/v2-host-bundles)")
	stringsVar(fl, &prefixes, "prefix", "count rows whose id starts with this `PREFIX` (repeatable)")
	stringsVar(fl, &scenarios, "scenario", "count rows of this scenario `FILE` (stem or .test.ts; repeatable)")
	return cmd
}
