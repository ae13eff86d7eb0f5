package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/panics"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type verifyFlags struct {
	trustFlags
	json bool
	// hostToken and verifierToken name token files for a single bundle
	// (--timestamp, --verifier-timestamp) instead of FILE.tsr beside it.
	hostToken, verifierToken string
}

func newVerifyCmd() *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify [flags] FILE...",
		Short: "Re-derive every claim of a bundle and check its signature",
		Long: `verify re-derives everything a bundle claims from its signed rows — totals,
assertion count, witness digest, discovery digest, durability rung, certified
profiles — and checks the host signature under a key you trust.

One verdict per file:

  VERIFIED — zero rejections, host signature checked, certified list re-derived.   exit 0
  REJECTED — n problem(s): one [kind] line per problem                            exit 1
  COHERENT, NOT INDEPENDENTLY VERIFIED — zero rejections, but: the reasons        exit 2
  (file missing, unreadable, not JSON or not I-JSON: an error on stderr)          exit 3

With several files the worst verdict sets the exit code
(VERIFIED < COHERENT < REJECTED < unreadable). A usage error exits 4.

Standard input is read with - (once: a second - is a usage error).

Trust comes only from keys you supply. --host-key takes a SPKI PEM file, a
directory of <keyId>.pub.pem files (each bundle uses the key named by its
signature.keyId), or a raw 43-character base64url key; --keyring FILE resolves
signature.keyId among pinned keys (bundle keys trust), and a key it revokes never
verifies (docs/keys-keyring.md). As in the reference, a single --host-key file or
raw key is used whatever the bundle's key id (a note says when the ids differ);
gate, census and diff match keys by id only. Without a trusted key, the verdict is
at best COHERENT, and says whether the signature verifies under the key the
bundle's own discovery document publishes — self-published, so not trusted.

Time comes from an RFC 3161 time-stamp token beside the bundle (FILE.tsr, written
by 'bundle timestamp'; --timestamp FILE names another): under a TSA certificate you
name with --tsa-cert its time is the signing time, and the host key's retirement
is judged at it. generatedAt is not signed: a retired key with no trusted time is
at best COHERENT. A token that is malformed, stamps another signature, lacks the
time-stamping usage or (with --tsa-cert) chains to no trusted TSA is a rejection
(docs/timestamps.md).

What verify does NOT do: it does not re-run the suite, does not fetch the host's
live /.well-known/openwop, and does not judge whether the suite version is current.`,
		Example: `  bundle verify --host-key keys/v2-reference-4.pub.pem openwop-host-v2-reference.json
  bundle verify --host-key keys/ evidence/v2-host-bundles/*.json
  bundle verify --json --host-key host.pub.pem bundle.json | jq '.[0].verdict'`,
		Args: minArgs(1, "at least one bundle FILE (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd, f, args)
		},
	}
	f.registerReference(cmd)
	cmd.Flags().BoolVar(&f.json, "json", false, "print a JSON array with one verdict object per file")
	cmd.Flags().StringVar(&f.hostToken, "timestamp", "", "the RFC 3161 token `file` of the host signature (default: FILE.tsr beside the bundle, when there); one bundle only")
	cmd.Flags().StringVar(&f.verifierToken, "verifier-timestamp", "", "the RFC 3161 token `file` of the verifier signature (default: FILE.verifier.tsr, when there); one bundle only")
	return cmd
}

// fileVerdict is one file's result, as the JSON output carries it.
type fileVerdict struct {
	File     string `json:"file"`
	ExitCode int    `json:"exitCode"`
	Error    string `json:"error,omitempty"`
	*verify.Verdict
	// panicked is a panic in the worker that judged the file, re-raised in the
	// command's goroutine (an internal error, exit 70).
	panicked error
}

func runVerify(cmd *cobra.Command, f verifyFlags, files []string) error {
	stdin := 0
	for _, file := range files {
		if file == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usageErrorf("verify: - (standard input) is given %d times; standard input is read once, so give - once", stdin)
	}
	if (f.hostToken != "" || f.verifierToken != "") && len(files) != 1 {
		return usageErrorf("verify: --timestamp and --verifier-timestamp name the tokens of one bundle, but %d bundles are given; put each token beside its bundle as FILE.tsr instead", len(files))
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	tokens := func(file string) (verify.Timestamps, error) { return tokensFor(file, f.hostToken, f.verifierToken) }
	stdout := cmd.OutOrStdout()
	worst := verify.Verified
	if f.json {
		if _, err := io.WriteString(stdout, "[\n"); err != nil {
			return err
		}
	}
	var werr error
	verifyFiles(cmd.InOrStdin(), files, opts, tokens, func(i int, fv fileVerdict) {
		if fv.panicked != nil {
			panic(fv.panicked)
		}
		if o := fv.outcome(); o.Severity() > worst.Severity() {
			worst = o
		}
		if werr != nil {
			return
		}
		if f.json {
			werr = writeJSONItem(stdout, fv, i == len(files)-1)
			return
		}
		if fv.Verdict == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "bundle: %s: %s\n", files[i], fv.Error)
			return
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		werr = render.WriteVerdict(stdout, files[i], fv.Verdict, versionString())
	})
	if werr != nil {
		return werr
	}
	if f.json {
		if _, err := io.WriteString(stdout, "]\n"); err != nil {
			return err
		}
	}
	if code := worst.ExitCode(); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// writeJSONItem writes one verdict as an element of the indented JSON array
// --json prints, exactly as encoding/json's indenting encoder writes the whole
// array: two spaces before each element, a comma after all but the last.
func writeJSONItem(w io.Writer, fv fileVerdict, last bool) error {
	b, err := json.MarshalIndent(fv, "  ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n"
	if last {
		sep = "\n"
	}
	_, err = io.WriteString(w, "  "+string(b)+sep)
	return err
}

// verifyFiles judges the files concurrently, one worker per CPU, and calls emit
// with each file's result in the order given, in the caller's goroutine, as soon
// as it and every file before it are judged. A result is dropped once emitted,
// and workers run at most a few files ahead of emit, so a run over any number of
// files holds a bounded number of verdicts (and parse trees). A panic while
// judging a file is captured in its result (panicked), for emit to re-raise; the
// worker goes on with the next file.
func verifyFiles(stdin io.Reader, files []string, opts verify.Options, tokens func(string) (verify.Timestamps, error), emit func(i int, fv fileVerdict)) {
	workers := min(runtime.GOMAXPROCS(0), len(files))
	window := 4 * workers // files judged or being judged, not yet emitted
	type result struct {
		i  int
		fv fileVerdict
	}
	next := make(chan int)
	done := make(chan result, window)
	slots := make(chan struct{}, window)
	go func() {
		for i := range files {
			slots <- struct{}{} // wait until a file before it is emitted
			next <- i
		}
		close(next)
	}()
	for range workers {
		go func() {
			for i := range next {
				var fv fileVerdict
				func() {
					defer panics.Capture(&fv.panicked)
					fv = verifyFile(stdin, files[i], opts, tokens)
				}()
				done <- result{i, fv}
			}
		}()
	}
	pending := make(map[int]fileVerdict, window)
	for i := 0; i < len(files); {
		fv, ok := pending[i]
		if !ok {
			r := <-done
			pending[r.i] = r.fv
			continue
		}
		delete(pending, i)
		emit(i, fv)
		<-slots
		i++
	}
}

func (fv fileVerdict) outcome() verify.Outcome {
	if fv.Verdict == nil {
		return verify.Unreadable
	}
	return fv.Outcome
}

// verifyFile reads and judges one file; a file that cannot be read or parsed has
// no Verdict and an Error that says why.
func verifyFile(stdin io.Reader, file string, opts verify.Options, tokens func(string) (verify.Timestamps, error)) fileVerdict {
	hook("verify-file")
	data, err := readBundleArg(stdin, file)
	var ts verify.Timestamps
	if err == nil {
		ts, err = tokens(file)
	}
	if err == nil {
		var v *verify.Verdict
		if v, err = verify.ParseWith(data, opts, ts); err == nil {
			return fileVerdict{File: file, ExitCode: v.ExitCode(), Verdict: v}
		}
	}
	return fileVerdict{File: file, ExitCode: exitInput, Error: describeReadError(err)}
}

// readBundleArg reads a bundle named on the command line: a file, or standard
// input for "-", at most bundle.MaxFileSize bytes either way.
func readBundleArg(stdin io.Reader, file string) ([]byte, error) {
	if file == "-" {
		return bundle.ReadAll(stdin, "standard input")
	}
	return bundle.ReadFile(file)
}

func describeReadError(err error) string {
	var syn *bundle.SyntaxError
	switch {
	case errors.As(err, &syn):
		return "not a bundle: the file is not valid I-JSON: " + syn.Error()
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	}
	return err.Error()
}
