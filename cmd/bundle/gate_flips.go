package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

// gateFlipsOptions are gate flips' flag values.
type gateFlipsOptions struct {
	trust      trustFlags
	repo       repoFlags
	base, head string
	format     string
	sarifFile  string
	att        attestFlags
}

func newGateFlipsCmd() *cobra.Command {
	var o gateFlipsOptions
	cmd := &cobra.Command{
		Use:   "flips --base REF [--head REF] [flags]",
		Short: "CI: gate every RFC Status change between two revisions, and the bundles they change",
		Long: `flips is the CI gate of a change to a spec repository (a pull request): it reads the
repository's history with git and finds every RFCS/NNNN-*.md whose Status differs
between --head and its merge base with --base, reading Status as gate accepted
does (renames followed). For each RFC numbered 0167 or later that the change
sets to Accepted — flipped, or added already Accepted — it runs the Accepted predicate
(see 'bundle gate accepted --help'); every other Status change is listed as not
gated, with why. Each bundle in a subdirectory of evidence/ that the change modifies
is compared with its base version (any regression FAILs, as diff
--regressions-only), and each one it adds must verify under a trusted key.

Stricter for a change under review: the git binder of bundle.tier counts only
history up to the merge base, so a bundle the change adds or replaces is never bound
by history its own author wrote (pin its key with its origin in the keyring, or use
--live); a changed RFC whose Status row cannot be read is BLOCKED; a flip gated while
the change edits the keyring, the host-tier table or the harness-trust-anchor list
is BLOCKED (pin keys and place hosts in a pull request of their own).

The work tree must have --head checked out (the default, HEAD), with nothing
uncommitted under RFCS/ and evidence/. git runs with plumbing only: no hooks,
fsmonitor, textconv or replace objects.

Exit codes: 0 every gated criterion passes (or nothing to gate), 1 any fails, 2
blocked only, 3 an input could not be read (not a git work tree, an unknown
revision, a shallow clone without the base — fetch the whole history with
fetch-depth: 0 —, uncommitted changes, a keyring), 4 usage error.
Documentation: docs/ci.md.`,
		Example: `  bundle gate flips --base origin/main --keyring keyring.json
  bundle gate flips --base "$BASE_SHA" --keyring keyring.json --format github --sarif certcut.sarif
  bundle gate flips --base v2.0.0 --head HEAD --repo spec --keyring spec/keyring.json --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(o.format, render.GateFormats); err != nil {
				return err
			}
			if o.base == "" {
				return usageErrorf("bundle gate flips: give --base REF, the revision the change starts from (in GitHub Actions: ${{ github.event.pull_request.base.sha }})")
			}
			return gateFlipsRun(cmd, &o)
		},
	}
	o.trust.register(cmd)
	o.repo.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&o.base, "base", "", "the `revision` the change starts from: a pull request's base commit, a branch or a tag")
	fl.StringVar(&o.head, "head", "HEAD", "the `revision` under review; the work tree must have it checked out")
	fl.StringVar(&o.format, "format", "text", "output: text, json, github (workflow annotations), sarif (2.1.0) or junit")
	o.att.register(cmd)
	fl.StringVar(&o.sarifFile, "sarif", "", "also write the report as SARIF 2.1.0 to `file` (for code scanning), whatever --format says")
	return cmd
}

func gateFlipsRun(cmd *cobra.Command, o *gateFlipsOptions) error {
	if err := o.att.prepare(cmd, true); err != nil {
		return err
	}
	opts, err := o.trust.options()
	if err != nil {
		return err
	}
	cfg, err := o.repo.config(cmd.ErrOrStderr(), opts, o.trust.keyring)
	if err != nil {
		return err
	}
	rep, err := gate.Flips(context.Background(), cfg, gate.FlipsRequest{Base: o.base, Head: o.head})
	var inErr *gate.InputError
	switch {
	case errors.As(err, &inErr):
		return inputError(fmt.Errorf("gate flips: %w", err))
	case err != nil:
		return err
	}
	if o.sarifFile != "" {
		var buf bytes.Buffer
		if err := render.WriteFlipsSARIF(&buf, rep, versionString()); err != nil {
			return err
		}
		if err := atomicfile.Write(o.sarifFile, buf.Bytes(), 0o644, true); err != nil {
			return inputError(fmt.Errorf("--sarif %s: %w", o.sarifFile, err))
		}
	}
	if err := render.WriteFlips(cmd.OutOrStdout(), rep, render.GateOptions{Format: render.Format(o.format), Version: versionString()}); err != nil {
		return err
	}
	if err := o.att.writeEach(cmd, rep.Reports, o.repo.root); err != nil {
		return err
	}
	return exitFor(rep.ExitCode)
}
