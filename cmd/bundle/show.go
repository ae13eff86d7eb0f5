package main

import (
	"fmt"

	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/tiers"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type showOptions struct {
	trust     trustFlags
	out       output
	tiers     string
	selection render.Selection
}

func newShowCmd() *cobra.Command {
	var o showOptions
	cmd := command("show", "show [flags] FILE", "A reviewer's summary of one bundle: who, what build, totals, profiles, non-pass rows",
		exactArgs(1, "one bundle FILE (or - for standard input)"), func(cmd *cobra.Command, args []string) error {
			opts, tf, err := o.trust.reviewOptions(o.tiers)
			if err != nil {
				return err
			}
			r, err := reviewFile(cmd, args[0], opts, tf)
			if err != nil {
				return err
			}
			if o.selection.Results != nil || o.selection.IDs != nil {
				if err := r.Select(o.selection); err != nil {
					return usageErrorf("show: %v", err)
				}
			}
			stdout := cmd.OutOrStdout()
			switch {
			case !o.out.text():
				err = render.WriteJSON(stdout, r)
			case o.out.quiet:
				err = render.WriteVerdictWith(stdout, r.File, r.Verdict, render.VerdictOptions{Quiet: true, Color: useColor(stdout)})
			default:
				err = render.WriteText(stdout, r, render.TextOptions{Color: useColor(stdout)})
			}
			if err != nil {
				return err
			}
			return exitFor(r.Verdict.ExitCode())
		})
	o.trust.register(cmd, true)
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	fl := cmd.Flags()
	fl.StringVar(&o.tiers, "tiers", "", "OpenWOP evidence/host-tiers.json `FILE`: show the tier of the discovery URL's origin")
	stringsVar(fl, &o.selection.Results, "result", "list the rows of this `RESULT` (repeatable; executed-pass too; default: every result but executed-pass)")
	stringsVar(fl, &o.selection.IDs, "id", "list only the rows whose id matches this `GLOB` (repeatable; * ? [..] as in path.Match)")
	return cmd
}

// reviewOptions loads the trust flags and --tiers, if given.
func (t *trustFlags) reviewOptions(tiersFile string) (verify.Options, *tiers.File, error) {
	opts, err := t.options()
	if err != nil || tiersFile == "" {
		return opts, nil, err
	}
	tf, err := tiers.Load(tiersFile)
	if err != nil {
		return opts, nil, inputError(fmt.Errorf("--tiers %s: %w (give OpenWOP's evidence/host-tiers.json)", tiersFile, err))
	}
	return opts, tf, nil
}

// reviewFile reads one bundle and the time-stamp tokens beside it, verifies it
// and builds its review. A file that cannot be read or is not I-JSON is an
// input error (exit 3).
func reviewFile(cmd *cobra.Command, file string, opts verify.Options, tf *tiers.File) (*render.Review, error) {
	b, problems, ts, err := verify.ReadBundle(file, cmd.InOrStdin())
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %s", file, describeReadError(err)))
	}
	return render.NewReview(file, b, verify.Judge(b, problems, opts, ts), tf), nil
}
