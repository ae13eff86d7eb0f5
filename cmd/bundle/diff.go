package main

import (
	"fmt"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

func newDiffCmd() *cobra.Command {
	var (
		trust       trustFlags
		regressions bool
		jsonOut     bool
	)
	cmd := &cobra.Command{
		Use:   "diff [flags] A B",
		Short: "What changed between two cuts: rows, totals, profiles, build, suite, key, discovery",
		Long: `diff compares two bundles, A (before) and B (after): rows added, removed, or
whose result changed (and rows whose assertion count changed); recounted totals;
claimed and re-derived certified profiles; build, suite, signing key, discovery
URL and digest, relaxations, durability rung, and each bundle's verify verdict
(under the keys you supply). A member outside the signature that nothing
re-derives (host.name, generatedAt, discovery.url, …) is marked "(unsigned)": a
change there is the minter's word, not evidence.

A regression is a row that was executed-pass and is now anything else or gone, a
row that became executed-fail or blocked, a certified profile lost, a relaxation
added, or a worse verdict. --regressions-only prints only those and exits 1 when
there is any, so diff can gate CI.

Exit codes: 0 done (with --regressions-only: no regression), 1 regressions
(--regressions-only), 3 a bundle could not be read, 4 usage error.`,
		Example: `  bundle diff old/myndhyve.json evidence/v2-host-bundles/myndhyve-2.45.25.json
  bundle diff --regressions-only --keyring keyring.json main.json pr.json`,
		Args: exactArgs(2, "two bundle files, A (before) and B (after)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := trust.options()
			if err != nil {
				return err
			}
			loader := &gate.Loader{Options: opts}
			entries := loader.LoadFiles(args)
			for _, e := range entries {
				if e.Bundle == nil {
					return inputError(fmt.Errorf("%s: %v", e.File, e.Err))
				}
			}
			d := gate.Diff(entries[0], entries[1])
			format := render.Text
			if jsonOut {
				format = render.JSON
			}
			if err := render.WriteDiff(cmd.OutOrStdout(), d, render.DiffOptions{Format: format, RegressionsOnly: regressions}); err != nil {
				return err
			}
			if regressions && len(d.Regressions) > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	trust.register(cmd)
	cmd.Flags().BoolVar(&regressions, "regressions-only", false, "print only regressions and exit 1 when there is any")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the diff as JSON")
	return cmd
}
