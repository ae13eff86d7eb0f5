package main

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"io"
	"os/exec"
	"strings"

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
	// expectBuild and expectMajor bind the bundles to a deploy (verify.Expect).
	expectBuild string
	expectMajor int
	// maturity applies the maturity bound (--declaration); advisories replaces
	// the built-in suite advisory list (--suite-advisories).
	maturity   maturityFlags
	advisories string
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
	cmd.Flags().StringVar(&o.expectBuild, "expect-build", "", "refuse a bundle that is not the cut of this build: `KIND:ID` (commit:HEAD for the work tree's HEAD)")
	cmd.Flags().IntVar(&o.expectMajor, "expect-major", 0, "refuse a bundle whose suite.targetMajor is not `N`")
	o.maturity.register(cmd, "note each bundle's family records against it (RFC 0197 §C.7), and refuse one that overstates them at a bound suite when its signature verified (maturity-overstated)")
	cmd.Flags().StringVar(&o.advisories, "suite-advisories", "", "the suite advisory list `FILE` noting bundles of suite releases known to produce wrong rows (default: the built-in list)")
	return cmd
}

// expectation reads --expect-build and --expect-major into a verify.Expect (nil
// when neither is given). KIND is one of the three build kinds; a commit id is
// the full 40 (or 64) lowercase hex digits, or HEAD: the commit the work tree in
// the current directory has checked out (git rev-parse). A malformed flag is a
// usage error; a HEAD git cannot resolve, an input error.
func (o *verifyOptions) expectation(cmd *cobra.Command) (*verify.Expect, error) {
	majorGiven := cmd.Flags().Changed("expect-major")
	if o.expectBuild == "" && !majorGiven {
		return nil, nil
	}
	e := &verify.Expect{}
	if majorGiven {
		if o.expectMajor < 1 {
			return nil, usageErrorf("verify: --expect-major %d: give the major the deploy serves (1, 2, …)", o.expectMajor)
		}
		e.Major = o.expectMajor
	}
	if o.expectBuild == "" {
		return e, nil
	}
	kind, id, ok := strings.Cut(o.expectBuild, ":")
	switch {
	case !ok || id == "":
		return nil, usageErrorf("verify: --expect-build %q: give KIND:ID (commit:HEAD, commit:<40 hex digits>, image-digest:sha256:<hex>, artifact-sha256:<hex>)", o.expectBuild)
	case kind != bundle.BuildCommit && kind != bundle.BuildImageDigest && kind != bundle.BuildArtifactSHA256:
		return nil, usageErrorf("verify: --expect-build %q: the build kind is %s, %s or %s", o.expectBuild, bundle.BuildCommit, bundle.BuildImageDigest, bundle.BuildArtifactSHA256)
	case kind == bundle.BuildCommit && id == "HEAD":
		head, err := gitHead()
		if err != nil {
			return nil, inputError(fmt.Errorf("verify: --expect-build commit:HEAD: %v; run verify in the checkout being deployed, or give the commit id", err))
		}
		id = head
	case kind == bundle.BuildCommit && !fullCommit().MatchString(id):
		return nil, usageErrorf("verify: --expect-build %q: a commit is its full id (40 or 64 lowercase hex digits) or HEAD; an abbreviated id names no build exactly", o.expectBuild)
	}
	e.Build = bundle.Build{Kind: kind, ID: id}
	return e, nil
}

// fullCommit matches a full git commit id (SHA-1 or SHA-256).
var fullCommit = lazyre.New(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// gitHead returns the commit HEAD names in the work tree of the current
// directory.
func gitHead() (string, error) {
	cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", "--end-of-options", "HEAD^{commit}")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var missing *exec.Error
		if errors.As(err, &missing) {
			return "", fmt.Errorf("git cannot be run: %v", err)
		}
		if msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); msg != "" {
			return "", fmt.Errorf("git rev-parse HEAD: %s", msg)
		}
		return "", fmt.Errorf("git rev-parse HEAD: no commit is checked out here (%v)", err)
	}
	head := strings.TrimSpace(stdout.String())
	if !fullCommit().MatchString(head) {
		return "", fmt.Errorf("git rev-parse HEAD printed %q, not a commit id", head)
	}
	return head, nil
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
	expect, err := o.expectation(cmd)
	if err != nil {
		return err
	}
	opts, err := o.trust.options()
	if err != nil {
		return err
	}
	opts.Expect = expect
	if opts.Maturity, err = o.maturity.policy(cmd, "verify"); err != nil {
		return err
	}
	if err := loadAdvisories("verify", o.advisories, &opts); err != nil {
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
		b, problems, err := bundle.Parse(data)
		if err != nil {
			return nil, err
		}
		if err := verify.Recognize(b); err != nil {
			err.(*verify.NotABundleError).File = files[i]
			return nil, err
		}
		return verify.Judge(b, problems, opts, ts), nil
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
