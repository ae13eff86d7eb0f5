package main

import (
	"encoding/json"

	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type showFlags struct {
	trustFlags
	tiers string
	color string
	json  bool
}

func newShowCmd() *cobra.Command {
	var f showFlags
	cmd := &cobra.Command{
		Use:   "show [flags] FILE",
		Short: "A reviewer's summary of one bundle: who, what build, totals, profiles, non-pass rows",
		Long: `show prints what a reviewer reads first about one bundle: the host and build,
the suite, the discovery URL with its origin's tier, the key the signature was
checked under, the totals as a bar, the claimed profiles with the verifier's
decision on each, relaxations, the durability rung, and every row that did not
pass, grouped by result with its reason (the row's own, signed detail; never
the unsigned detail.nonPass list).

Every value outside the signature that the verifier does not re-derive (host
name, version and vendor, generatedAt, discovery URL, target major, signing key
id, profile tiers and witness counts) is followed by "(unsigned)": it is the
minter's claim. Text from the bundle never starts a line of its own and never
acts on the terminal: line breaks, controls and bidi overrides are shown as
\u{XXXX}.

The verdict is bundle verify's, computed the same way with the same key flags:
show never judges on its own. Without --host-key it is at best COHERENT.

--tiers FILE places the discovery URL's origin in OpenWOP's
evidence/host-tiers.json; an origin the file does not list is unknown and never
qualifies for a tier.

Colour is used when standard output is a terminal and NO_COLOR is unset
(--color=always|never overrides). Every mark also has its own glyph, so plain
text loses nothing.

Exit codes: the verdict's — 0 VERIFIED, 1 REJECTED, 2 COHERENT; 3 the file, a key
or the tiers file cannot be read; 4 usage.`,
		Example: `  bundle show --host-key keys/ --tiers evidence/host-tiers.json evidence/v2-host-bundles/myndhyve.json
  bundle show bundle.json | less -R
  bundle show --json --host-key host.pub.pem bundle.json | jq '.nonPass[].result'`,
		Args: exactArgs(1, "one bundle FILE (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.options()
			if err != nil {
				return err
			}
			tf, err := loadTiers(f.tiers)
			if err != nil {
				return err
			}
			color, err := useColor(f.color, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			r, err := reviewFile(cmd.InOrStdin(), args[0], opts, tf)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if f.json {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				err = enc.Encode(r)
			} else {
				err = render.WriteText(out, r, render.TextOptions{Color: color})
			}
			if err != nil {
				return err
			}
			return verdictExit(r.Verdict)
		},
	}
	fl := cmd.Flags()
	f.registerReference(cmd)
	fl.StringVar(&f.tiers, "tiers", "", "OpenWOP evidence/host-tiers.json `file`: show the tier of the discovery URL's origin")
	fl.StringVar(&f.color, "color", "auto", "colour: auto (a terminal without NO_COLOR), always, never")
	fl.BoolVar(&f.json, "json", false, "print the summary as JSON (the verdict, tier, profiles, non-pass rows, unsigned members)")
	return cmd
}

// verdictExit returns the verdict's exit code as an error (nil for VERIFIED).
func verdictExit(v *verify.Verdict) error {
	if code := v.ExitCode(); code != 0 {
		return &exitError{code: code}
	}
	return nil
}
