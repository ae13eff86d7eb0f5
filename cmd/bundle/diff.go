package main

import (
	"fmt"
	"io"

	"github.com/certcut/certcut/bundle"
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
			out := cmd.OutOrStdout()
			if jsonOut {
				if err := writeJSON(out, d); err != nil {
					return err
				}
			} else {
				renderDiffText(render.SafeWriter(out), d, regressions)
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

// renderDiffText prints a diff for a reviewer. Every interpolated value goes
// through render.Inline (no text from a bundle or a file name starts a line), and
// a member that nothing binds is marked "(unsigned)".
func renderDiffText(w io.Writer, d *gate.DiffReport, regressionsOnly bool) {
	in := render.Inline
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
			mark = " " + render.UnsignedMark
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
		fmt.Fprintf(w, "  %s %s %s → %s%s\n", mark, in(c.ID), in(c.From), in(c.To), detailSuffix(c.ToWhy))
	}
	for _, r := range d.Regressions {
		fmt.Fprintf(w, "regression: %s\n", in(r))
	}
	fmt.Fprintf(w, "%d regression(s)\n", len(d.Regressions))
}
