package main

import (
	"bytes"
	"fmt"

	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type reportOptions struct {
	trust trustFlags
	out   output
	tiers string
	html  string
	force bool
}

// reportSummary is what report prints once the page is written.
type reportSummary struct {
	HTML     string `json:"html"`
	Bytes    int    `json:"bytes"`
	Bundles  int    `json:"bundles"`
	Verified int    `json:"verified"`
	Coherent int    `json:"coherent"`
	Rejected int    `json:"rejected"`
}

func newReportCmd() *cobra.Command {
	var o reportOptions
	cmd := command("report", "report [flags] FILE... --html OUT", "Write one self-contained HTML report for one or more bundles",
		minArgs(1, "at least one bundle FILE"), func(cmd *cobra.Command, args []string) error {
			if o.html == "" {
				return usageErrorf("bundle report: give --html OUT, the file to write, or - for standard output (see 'bundle report --help')")
			}
			if err := oneStdin("report", append(args, o.html)...); err != nil {
				return err
			}
			if err := refuseExisting(o.force, o.html); err != nil {
				return err
			}
			opts, tf, err := o.trust.reviewOptions(o.tiers)
			if err != nil {
				return err
			}
			var reviews []*render.Review
			tally := render.Tally{}
			for _, file := range args {
				r, err := reviewFile(cmd, file, opts, tf)
				if err != nil {
					return err
				}
				reviews = append(reviews, r)
				tally[r.Verdict.Outcome]++
			}
			var buf bytes.Buffer
			if err := render.WriteHTML(&buf, reviews, render.HTMLOptions{Generator: "certcut " + versionString()}); err != nil {
				return err
			}
			if err := writeOut(cmd.OutOrStdout(), "report", o.html, buf.Bytes(), o.force); err != nil {
				return err
			}
			if o.html == limitedfile.Stdin || o.out.quiet {
				return nil // standard output holds the page
			}
			if !o.out.text() {
				return render.WriteJSON(cmd.OutOrStdout(), reportSummary{o.html, buf.Len(), len(reviews), tally[verify.Verified], tally[verify.Coherent], tally[verify.Rejected]})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d bytes): %d bundle(s), %s\n", render.Inline(o.html), buf.Len(), len(reviews), tally.Line())
			return nil
		})
	o.trust.register(cmd, true)
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	fl := cmd.Flags()
	fl.StringVar(&o.html, "html", "", "the HTML `FILE` to write (required; - for standard output)")
	fl.BoolVar(&o.force, "force", false, "replace --html OUT if it exists")
	fl.StringVar(&o.tiers, "tiers", "", "OpenWOP evidence/host-tiers.json `FILE`: show the tier of each discovery URL's origin")
	return cmd
}
