package main

import (
	"fmt"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/jsonkind"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

func newDiffCmd() *cobra.Command {
	var (
		trust       trustFlags
		out         output
		regressions bool
	)
	cmd := command("diff", "diff [flags] A B", "What changed between two cuts: rows, totals, profiles, build, suite, key, discovery",
		exactArgs(2, "two bundle files, A (before) and B (after)"), func(cmd *cobra.Command, args []string) error {
			opts, err := trust.options()
			if err != nil {
				return err
			}
			entries, err := (&gate.Loader{Options: opts}).LoadFiles(cmd.Context(), args)
			if err != nil {
				return err
			}
			for _, e := range entries {
				switch {
				case e.Bundle == nil:
					return inputError(fmt.Errorf("%s: %v", e.File, e.Err))
				case e.Verdict.NotABundle != "":
					return inputError(fmt.Errorf("%s: %w", e.File, &verify.NotABundleError{Kind: jsonkind.Kind(e.Verdict.NotABundle), File: e.File}))
				}
			}
			d := gate.Diff(entries[0], entries[1])
			if d.OtherHost != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "bundle: warning: %s\n", render.Inline(d.OtherHost))
			}
			quiet := out.quiet && len(d.Regressions) == 0
			if !quiet {
				if err := render.WriteDiff(cmd.OutOrStdout(), d, render.DiffOptions{Format: out.f, RegressionsOnly: regressions || out.quiet}); err != nil {
					return err
				}
			}
			if (regressions || out.quiet) && len(d.Regressions) > 0 {
				return &exitError{code: 1}
			}
			return nil
		})
	trust.register(cmd, false)
	addOutput(cmd, &out, true, render.Text, render.JSON)
	cmd.Flags().BoolVar(&regressions, "regressions-only", false, "print only regressions and exit 1 when there is any")
	return cmd
}
