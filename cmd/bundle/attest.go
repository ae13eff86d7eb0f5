package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

// envSourceDateEpoch fixes the time an attestation records (reproducible builds'
// convention: seconds since 1970), when --time is not given.
const envSourceDateEpoch = "SOURCE_DATE_EPOCH"

type attestOptions struct {
	trust         trustFlags
	out, keyRef   string
	keyID         string
	predicate     string
	repo          string
	at            string
	allowCoherent bool
	force         bool
}

func newAttestCmd() *cobra.Command {
	var o attestOptions
	cmd := &cobra.Command{
		Use:   "attest FILE --key KEY --key-id ID --out OUT [--predicate vsa|bundle]",
		Short: "Verify a bundle and write the verdict as a signed in-toto attestation (DSSE)",
		Long: `attest verifies a bundle as 'bundle verify' does — under a trusted key
(--host-key, --keyring), keys matched by key id only — and writes a DSSE envelope
(payloadType application/vnd.in-toto+json) holding an in-toto Statement v1 that
policy engines, admission controllers and 'cosign verify-blob-attestation' read.

Subjects: the host build (commit → gitCommit, image-digest → sha256,
artifact-sha256 → sha256) and the bundle file (its path inside --repo, the sha256 of
its bytes). Predicates:

  --predicate vsa      (default) a SLSA Verification Summary v1: verifier certcut and
                       its version, timeVerified, resourceUri (the bundle's
                       discovery.url: NOT signed by the host, and the statement says
                       so), policy (certcut's verify rules), inputAttestations (the
                       bundle and its digest), verificationResult PASSED, and one
                       verifiedLevels entry OPENWOP_CERTIFIED_<profile> per certified
                       profile
  --predicate bundle   the bundle itself, under
                       https://github.com/certcut/certcut/predicates/openwop-bundle/v3

Only a VERIFIED bundle is attested. --allow-coherent attests a COHERENT one too:
its VSA records FAILED (verifiedLevels ["FAILED"]) with the reasons. A VSA is
certcut's judgement signed by whoever runs attest, not the host's claim
(docs/attestations.md).

KEY is a PKCS#8 PEM file (mode 0600), env:NAME or a KMS URI, as for mint. The time
recorded is --time, else $SOURCE_DATE_EPOCH, else now: fix it for byte-identical
output. Check an envelope with 'bundle verify-attestation'.

Exit codes: 0 written; 1 the bundle is REJECTED and 2 it is COHERENT (without
--allow-coherent): nothing written; 3 an input could not be read (bundle, key, KMS);
4 usage (OUT exists without --force, FILE outside --repo); 70 internal error.`,
		Example: `  bundle attest --host-key keys/ --key attestor.key.pem --key-id lab-attestor-1 \
    --repo . --out demo-host.vsa.json evidence/v2-host-bundles/demo-host.json
  bundle attest --keyring keyring.json --key hashivault://attestor --key-id lab-attestor-kms \
    --predicate bundle --out demo-host.bundle.json evidence/v2-host-bundles/demo-host.json`,
		Args: exactArgs(1, "exactly one bundle FILE"),
		RunE: func(cmd *cobra.Command, args []string) error { return runAttest(cmd, o, args[0]) },
	}
	o.trust.register(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "out", "o", "", "write the DSSE envelope to `FILE` (required)")
	fl.BoolVar(&o.force, "force", false, "overwrite OUT if it exists")
	fl.StringVar(&o.keyRef, "key", "", "the attestor's signing key: PEM `FILE`, env:NAME or KMS URI")
	fl.StringVar(&o.keyID, "key-id", "", "the attestor's key `ID` (the envelope signature's keyid)")
	fl.StringVar(&o.predicate, "predicate", "vsa", "`vsa` (a SLSA verification summary) or bundle (the bundle itself)")
	fl.BoolVar(&o.allowCoherent, "allow-coherent", false, "attest a COHERENT bundle too, as a VSA that records FAILED")
	fl.StringVar(&o.repo, "repo", ".", "the repository `root` the bundle file is named relative to")
	fl.StringVar(&o.at, "time", "", "record this RFC 3339 `TIME` as timeVerified (default $SOURCE_DATE_EPOCH, else now)")
	return cmd
}

// predicateTypes maps --predicate words to predicate types.
var predicateTypes = map[string]string{"vsa": attest.PredicateVSA, "bundle": attest.PredicateBundle}

func runAttest(cmd *cobra.Command, o attestOptions, file string) error {
	predicate, ok := predicateTypes[o.predicate]
	if !ok {
		return usageErrorf("attest: --predicate %q: give vsa or bundle", o.predicate)
	}
	if o.out == "" {
		return usageErrorf("attest: --out FILE is required")
	}
	if err := checkSigningFlags("attest", o.keyRef, o.keyID); err != nil {
		return err
	}
	if !o.force && exists(o.out) {
		return usageErrorf("%s already exists; pass --force to overwrite it", o.out)
	}
	name, inside := attest.RepoPath(o.repo, file)
	if !inside {
		return usageErrorf("attest: %s is not inside --repo %s: the subject names the bundle by its path in the repository; pass --repo naming the repository that holds it", file, o.repo)
	}
	at, err := attestTime("attest", o.at)
	if err != nil {
		return err
	}
	opts, err := o.trust.options()
	if err != nil {
		return err
	}
	signer, err := loadSigner(cmd.Context(), "--key", o.keyRef)
	if err != nil {
		return err
	}
	defer signer.Close() // a token key holds a session open
	data, err := readInput("bundle", file, limitedfile.MaxBundle)
	if err != nil {
		return err
	}
	ts, err := tokensFor(file, "", "")
	if err != nil {
		return inputError(fmt.Errorf("attest: %s: %w", file, err))
	}
	a, err := attest.Bundle(attest.BundleRequest{
		Options: attest.Options{Version: buildVersion().Version, Time: at},
		Data:    data, Name: name, Verify: opts, Timestamps: ts, Predicate: predicate, AllowCoherent: o.allowCoherent,
	})
	var syn *bundle.SyntaxError
	var nv *attest.NotVerifiedError
	switch {
	case errors.As(err, &syn):
		return inputError(fmt.Errorf("attest: %s: %s", file, describeReadError(err)))
	case errors.As(err, &nv):
		return &exitError{code: nv.Verdict.ExitCode(), err: fmt.Errorf("attest: nothing written: %s", render.Inline(nv.Error()))}
	case err != nil:
		return inputError(fmt.Errorf("attest: %w", err))
	}
	if err := writeEnvelope("attest", o.out, a, signer, o.keyID, o.force); err != nil {
		return err
	}
	reportAttestation(cmd.OutOrStdout(), cmd.ErrOrStderr(), "bundle attest", o.out, a, signer.Key(o.keyID))
	return nil
}

// checkSigningFlags: a signed attestation needs both a key and its id.
func checkSigningFlags(name, keyRef, keyID string) error {
	if keyRef == "" || keyID == "" {
		return usageErrorf("%s: --key and --key-id are required: the attestor's signing key (PEM file, env:NAME or KMS URI) and its id", name)
	}
	if !keys.KeyIDPattern.MatchString(keyID) {
		return usageErrorf("%s: key id %q does not match %s", name, keyID, keys.KeyIDPattern)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// attestTime is the time an attestation records: flag (RFC 3339), else
// $SOURCE_DATE_EPOCH (seconds), else now.
func attestTime(name, flag string) (time.Time, error) {
	if flag != "" {
		t, err := time.Parse(time.RFC3339Nano, flag)
		if err != nil {
			return time.Time{}, usageErrorf("%s: --time %q is not an RFC 3339 time (e.g. 2026-11-20T10:00:00Z)", name, flag)
		}
		return t, nil
	}
	if s := os.Getenv(envSourceDateEpoch); s != "" {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil || secs < 0 {
			return time.Time{}, usageErrorf("%s: %s=%q is not a count of seconds since 1970 (unset it, or give the time verified that way)", name, envSourceDateEpoch, s)
		}
		return time.Unix(secs, 0), nil
	}
	return time.Now(), nil
}

// writeEnvelope signs the statement and writes the envelope atomically: a
// failure leaves no file.
func writeEnvelope(name, out string, a *attest.Attestation, signer *keys.Signer, keyID string, force bool) error {
	env, err := attest.Sign(a.Statement, signer, keyID)
	if err != nil {
		var se *attest.SignError
		if errors.As(err, &se) {
			return signError(name, err)
		}
		return &exitError{code: exitInternal, err: fmt.Errorf("%s: internal error: %v; this is a defect in certcut, please report it", name, err)}
	}
	if err := atomicfile.Write(out, env, 0o644, force); err != nil {
		var ex *atomicfile.ExistsError
		if errors.As(err, &ex) {
			return usageErrorf("%v", err)
		}
		return inputError(fmt.Errorf("%s: writing %s: %w", name, out, err))
	}
	return nil
}

// reportAttestation says what was written: one line, the subjects, the levels,
// and what the host did not sign; warnings go to stderr.
func reportAttestation(stdout, stderr io.Writer, name, out string, a *attest.Attestation, key keys.PublicKey) {
	st := a.Statement
	isVSA := st.GetPredicateType() == attest.PredicateVSA
	what := "the bundle itself (" + st.GetPredicateType() + ")"
	if isVSA {
		what = "a SLSA verification summary, " + a.Result
	}
	fmt.Fprintf(stdout, "%s: wrote %s: %s, signed by %s (%s)\n", name, render.Inline(out), what, key.KeyID, key.Fingerprint())
	for _, s := range st.GetSubject() {
		fmt.Fprintf(stdout, "subject:   %s (%s)\n", render.Inline(s.GetName()), digestWords(s.GetDigest()))
	}
	if isVSA {
		fields := st.GetPredicate().GetFields()
		var levels []string
		for _, l := range fields["verifiedLevels"].GetListValue().GetValues() {
			levels = append(levels, render.Inline(l.GetStringValue()))
		}
		fmt.Fprintf(stdout, "levels:    %s\n", listOrNone(levels))
		if uri := fields["resourceUri"].GetStringValue(); uri != "" {
			fmt.Fprintf(stdout, "unsigned:  resourceUri %s is the bundle's discovery.url, which the host signature does not cover\n", render.Inline(uri))
		}
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "bundle: warning: %s\n", render.Inline(w))
	}
}

// digestWords writes a digest set as "alg abcdef123456, …", in order.
func digestWords(d map[string]string) string {
	algs := make([]string, 0, len(d))
	for alg := range d {
		algs = append(algs, alg)
	}
	sort.Strings(algs)
	parts := make([]string, len(algs))
	for i, alg := range algs {
		parts[i] = render.Inline(alg) + " " + render.Inline(prefix(d[alg], 12))
	}
	return strings.Join(parts, ", ")
}

// attestFlags are the --attest flags of a gate command: the gate's decision as a
// signed VSA (attest.Gate). register adds them; prepare checks them and loads the
// key before the gate runs; writeGate writes the envelope after it.
type attestFlags struct {
	out, keyRef, keyID string
	force              bool
	signer             *keys.Signer
}

// commandName is the command's path without the root: "gate accepted".
func commandName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

func (a *attestFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&a.out, "attest", "", "also write the decision as a signed SLSA VSA (DSSE envelope) to `FILE`; a BLOCKED decision writes none")
	fl.StringVar(&a.keyRef, "key", "", "the attestor's signing key for --attest: PEM `FILE`, env:NAME or KMS URI")
	fl.StringVar(&a.keyID, "key-id", "", "the attestor's key `ID` for --attest")
	fl.BoolVar(&a.force, "force", false, "overwrite the --attest FILE if it exists")
}

// prepare checks the --attest flags (hasRFC: the gate decides an RFC) and loads
// the signing key, so that a bad key stops the command before the gate runs.
func (a *attestFlags) prepare(cmd *cobra.Command, hasRFC bool) error {
	name := commandName(cmd)
	if a.out == "" {
		if a.keyRef != "" || a.keyID != "" || a.force {
			return usageErrorf("%s: --key, --key-id and --force go with --attest FILE", name)
		}
		return nil
	}
	if !hasRFC {
		return usageErrorf("%s: --attest: %v", name, attest.ErrNoRFC)
	}
	if err := checkSigningFlags(name+" --attest", a.keyRef, a.keyID); err != nil {
		return err
	}
	if !a.force && exists(a.out) {
		return usageErrorf("%s already exists; pass --force to overwrite it", a.out)
	}
	if _, err := attestTime(name+" --attest", ""); err != nil {
		return err
	}
	s, err := loadSigner(cmd.Context(), "--key", a.keyRef)
	if err != nil {
		return err
	}
	a.signer = s
	return nil
}

// writeGate writes the VSA of a gate decision when --attest was given: root is
// the spec repository the files are named in, gateFile the gate file read ("" when
// none). A BLOCKED decision writes nothing and says so on stderr; the exit code
// stays the gate's.
func (a *attestFlags) writeGate(cmd *cobra.Command, rep *gate.Report, root, gateFile string) error {
	if a.out == "" {
		return nil
	}
	defer a.signer.Close() // a token key holds a session open
	return a.writeOne(cmd, rep, root, gateFile, a.out)
}

// writeEach writes one VSA per decision of gate flips, one per RFC it gated: to
// --attest FILE when there is one, else to FILE with each RFC's number before its
// extension (flips.vsa.json → flips.0211.vsa.json).
func (a *attestFlags) writeEach(cmd *cobra.Command, reps []*gate.Report, root string) error {
	if a.out == "" {
		return nil
	}
	defer a.signer.Close()
	for _, rep := range reps {
		out := a.out
		if len(reps) > 1 && rep.RFC != nil {
			dir, base := filepath.Split(a.out)
			stem, ext, _ := strings.Cut(base, ".")
			if ext != "" {
				ext = "." + ext
			}
			out = filepath.Join(dir, stem+"."+rep.RFC.Number+ext)
		}
		if err := a.writeOne(cmd, rep, root, "", out); err != nil {
			return err
		}
	}
	return nil
}

func (a *attestFlags) writeOne(cmd *cobra.Command, rep *gate.Report, root, gateFile, out string) error {
	name := commandName(cmd)
	at, err := attestTime(name+" --attest", "")
	if err != nil {
		return err
	}
	att, err := attest.Gate(attest.GateRequest{
		Options: attest.Options{Version: buildVersion().Version, Time: at},
		Report:  rep, Root: root, GateFile: gateFile,
	})
	var blocked *attest.BlockedError
	switch {
	case errors.As(err, &blocked):
		fmt.Fprintf(cmd.ErrOrStderr(), "bundle: %s: no attestation written to %s: %s\n", name, render.Inline(out), render.Inline(err.Error()))
		return nil
	case err != nil:
		return inputError(fmt.Errorf("%s --attest: %w", name, err))
	}
	if err := writeEnvelope(name, out, att, a.signer, a.keyID, a.force); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "bundle: %s: wrote %s: a SLSA verification summary of %s, %s, signed by %s (%s)\n",
		name, render.Inline(out), render.Inline(rep.Subject), att.Result, a.keyID, a.signer.Key(a.keyID).Fingerprint())
	return nil
}
