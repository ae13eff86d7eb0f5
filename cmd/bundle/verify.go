package main

import (
	"io"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type verifyOptions struct {
	trust trustFlags
	out   output
	// hostToken and verifierToken name token files for a single bundle
	// (--timestamp, --verifier-timestamp) instead of FILE.tsr beside it.
	hostToken, verifierToken string
}

func newVerifyCmd() *cobra.Command {
	var o verifyOptions
	cmd := command("verify", "verify [flags] FILE...", "Re-derive every claim of a bundle and check its signature",
		minArgs(1, "at least one bundle FILE (or - for standard input)"), func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd, &o, args)
		})
	o.trust.register(cmd, true)
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	cmd.Flags().StringVar(&o.hostToken, "timestamp", "", "the RFC 3161 token `FILE` of the host signature (default: FILE.tsr beside the bundle, when there); one bundle only")
	cmd.Flags().StringVar(&o.verifierToken, "verifier-timestamp", "", "the RFC 3161 token `FILE` of the verifier signature (default: FILE.verifier.tsr, when there); one bundle only")
	return cmd
}

// fileVerdict is one file's result, as the JSON output carries it.
type fileVerdict struct {
	File     string `json:"file"`
	ExitCode int    `json:"exitCode"`
	Error    string `json:"error,omitempty"`
	*verify.Verdict
}

func runVerify(cmd *cobra.Command, o *verifyOptions, files []string) error {
	if err := oneStdin("verify", files...); err != nil {
		return err
	}
	if (o.hostToken != "" || o.verifierToken != "") && len(files) != 1 {
		return usageErrorf("verify: --timestamp and --verifier-timestamp name the tokens of one bundle, but %d bundles are given; put each token beside its bundle as FILE.tsr instead", len(files))
	}
	opts, err := o.trust.options()
	if err != nil {
		return err
	}
	stdin, stdout := cmd.InOrStdin(), cmd.OutOrStdout()
	vo := render.VerdictOptions{CLI: versionString(), Color: useColor(stdout), Quiet: o.out.quiet}
	tally := render.Tally{}
	worst := verify.Verified
	var werr error
	write := func(s string) {
		if werr == nil {
			_, werr = io.WriteString(stdout, s)
		}
	}
	if !o.out.text() {
		write("[\n")
	}
	verify.Each(len(files), func(i int) (*verify.Verdict, error) {
		hook("verify-file")
		data, err := limitedfile.ReadArg(files[i], stdin, bundle.MaxFileSize)
		if err != nil {
			return nil, err
		}
		ts, err := verify.ReadTimestamps(files[i], o.hostToken, o.verifierToken)
		if err != nil {
			return nil, err
		}
		return verify.ParseWith(data, opts, ts)
	}, func(i int, r verify.Result) {
		if r.Panic != nil {
			panic(r.Panic)
		}
		fv := fileVerdict{File: files[i], ExitCode: exitInput, Verdict: r.Verdict}
		outcome := verify.Unreadable
		if r.Verdict != nil {
			outcome, fv.ExitCode = r.Verdict.Outcome, r.Verdict.ExitCode()
		} else {
			fv.Error = describeReadError(r.Err)
		}
		tally[outcome]++
		if outcome.Severity() > worst.Severity() {
			worst = outcome
		}
		switch {
		case !o.out.text():
			b, err := render.MarshalJSONItem(fv)
			if err != nil && werr == nil {
				werr = err
			}
			sep := ",\n"
			if i == len(files)-1 {
				sep = "\n"
			}
			write("  " + string(b) + sep)
		case r.Verdict == nil:
			cmd.PrintErrf("bundle: %s: %s\n", files[i], fv.Error)
		default:
			if i > 0 && !o.out.quiet {
				write("\n")
			}
			if werr == nil {
				werr = render.WriteVerdictWith(stdout, files[i], r.Verdict, vo)
			}
		}
	})
	switch {
	case !o.out.text():
		write("]\n")
	case len(files) > 1 && !o.out.quiet:
		write("\n" + tally.Line() + "\n")
	}
	if werr != nil {
		return werr
	}
	return exitFor(worst.ExitCode())
}

// exitFor returns a verdict's exit code as an error (nil for 0).
func exitFor(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code}
}
