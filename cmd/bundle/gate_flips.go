package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

// gateFlipsOptions are gate flips' flag values.
type gateFlipsOptions struct {
	trust      trustFlags
	repo       repoFlags
	out        output
	att        attestFlags
	base, head string
	sarifFile  string
}

func newGateFlipsCmd() *cobra.Command {
	var o gateFlipsOptions
	cmd := command("gate-flips", "flips --base REF [--head REF] [flags]", "CI: gate every RFC Status change between two revisions, and the bundles they change",
		cobra.NoArgs, func(cmd *cobra.Command, _ []string) error { return runGateFlips(cmd, &o) })
	o.trust.register(cmd, false)
	o.repo.register(cmd, true)
	gateOutput(cmd, &o.out)
	fl := cmd.Flags()
	fl.StringVar(&o.base, "base", "", "the `REF` the change starts from: a pull request's base commit, a branch or a tag")
	fl.StringVar(&o.head, "head", "HEAD", "the `REF` under review; the work tree must have it checked out")
	o.att.register(cmd)
	fl.StringVar(&o.sarifFile, "sarif", "", "also write the report as SARIF 2.1.0 to `FILE` (for code scanning; - for standard output), whatever --format says")
	return cmd
}

func runGateFlips(cmd *cobra.Command, o *gateFlipsOptions) error {
	if o.base == "" {
		return usageErrorf("bundle gate flips: give --base REF, the revision the change starts from (in GitHub Actions: ${{ github.event.pull_request.base.sha }})")
	}
	if err := o.att.prepare(cmd, true); err != nil {
		return err
	}
	cfg, err := o.repo.config(cmd, &o.trust)
	if err != nil {
		return err
	}
	rep, err := gate.Flips(cmd.Context(), cfg, gate.FlipsRequest{Base: o.base, Head: o.head})
	if cause := context.Cause(cmd.Context()); cause != nil {
		return cause // interrupted: no report, no verdict (exit 130)
	}
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
		if err := writeOut(cmd.OutOrStdout(), "--sarif", o.sarifFile, buf.Bytes(), true); err != nil {
			return err
		}
	}
	if err := render.WriteFlips(cmd.OutOrStdout(), rep, o.out.gateOptions(cmd)); err != nil {
		return err
	}
	if err := o.att.write(cmd, rep.Reports, o.repo.root, ""); err != nil {
		return err
	}
	return exitFor(rep.ExitCode)
}
