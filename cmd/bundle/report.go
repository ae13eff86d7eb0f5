package main

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type reportFlags struct {
	trustFlags
	tiers string
	html  string
	force bool
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report [flags] FILE... --html OUT",
		Short: "Write one self-contained HTML report for one or more bundles",
		Long: `report verifies each bundle (as bundle verify does, with the same key flags) and
writes one HTML file for a reviewer: per bundle the verdict, the header facts,
the claimed profiles with the verifier's decision, and the totals as a chart; one
table of every row, filterable by text, result and bundle; and, for several
bundles, a requirement × host matrix of results.

The page is self-contained: CSS and script are inline and a Content-Security-
Policy forbids loading anything, so it can be mailed, archived or attached to a
CI run. All text from the bundles is HTML-escaped and isolated for bidirectional
text (<bdi>), and its bidi controls are shown, so a host name cannot reorder the
text beside it. Values outside the signature that nothing re-derives are greyed
and tagged "unsigned", with a legend.

OUT is written atomically (a temporary file, then a rename); an existing OUT is
kept unless --force is given. A file that cannot be read stops the command
before anything is written.

Exit codes: 0 the report was written, whatever the verdicts (bundle verify is the
gate); 3 a bundle, key or tiers file cannot be read, or OUT cannot be written;
4 usage, or OUT exists without --force.`,
		Example: `  bundle report --host-key keys/ --html report.html evidence/v2-host-bundles/*.json
  bundle report --tiers evidence/host-tiers.json --html myndhyve.html --force myndhyve.json`,
		Args: minArgs(1, "at least one bundle FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.html == "" {
				return usageErrorf("bundle report: give --html OUT, the file to write (see 'bundle report --help')")
			}
			opts, err := f.options()
			if err != nil {
				return err
			}
			tf, err := loadTiers(f.tiers)
			if err != nil {
				return err
			}
			var reviews []*render.Review
			counts := map[verify.Outcome]int{}
			for _, file := range args {
				r, err := reviewFile(cmd.InOrStdin(), file, opts, tf)
				if err != nil {
					return err
				}
				reviews = append(reviews, r)
				counts[r.Verdict.Outcome]++
			}
			var buf bytes.Buffer
			if err := render.WriteHTML(&buf, reviews, render.HTMLOptions{Generator: "certcut " + versionString()}); err != nil {
				return err
			}
			if err := atomicfile.Write(f.html, buf.Bytes(), 0o644, f.force); err != nil {
				var exists *atomicfile.ExistsError
				if errors.As(err, &exists) {
					return usageErrorf("--html %v", err)
				}
				return inputError(fmt.Errorf("cannot write %s: %w", f.html, err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d bytes): %d bundle(s), %d VERIFIED, %d COHERENT, %d REJECTED\n",
				f.html, buf.Len(), len(reviews), counts[verify.Verified], counts[verify.Coherent], counts[verify.Rejected])
			return nil
		},
	}
	f.registerReference(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.html, "html", "", "the HTML `file` to write (required)")
	fl.BoolVar(&f.force, "force", false, "replace --html OUT if it exists")
	fl.StringVar(&f.tiers, "tiers", "", "OpenWOP evidence/host-tiers.json `file`: show the tier of each discovery URL's origin")
	return cmd
}
