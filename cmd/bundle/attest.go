package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

// envSourceDateEpoch fixes the time an attestation records (reproducible builds'
// convention: seconds since 1970), when --time is not given.
const envSourceDateEpoch = "SOURCE_DATE_EPOCH"

type attestOptions struct {
	trust                trustFlags
	out                  output
	file, keyRef, keyID  string
	predicate, repo, at  string
	allowCoherent, force bool
	uri                  uriFlags
}

// uriFlags are the flags every attesting command shares: what the envelope's
// keyid holds and what the VSA's repository paths are made absolute under.
type uriFlags struct {
	dsseKeyID, base string
}

func (u *uriFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&u.dsseKeyID, "dsse-keyid", string(attest.KeyIDFingerprint),
		"what the envelope signature's keyid holds: `fingerprint|none|id` (fingerprint: the key's SHA256:… DSSE fingerprint, what slsa-verifier verify-vsa expects by default; id: --key-id)")
	fl.StringVar(&u.base, "resource-uri-base", "",
		"make the VSA's repository paths absolute under this `URI` (default: git+https://HOST/OWNER/REPO@COMMIT# from the repository's origin remote and HEAD; a file: URI when there is none)")
}

// mode checks --dsse-keyid.
func (u *uriFlags) mode(name string) (attest.KeyIDMode, error) {
	m, err := attest.ParseKeyIDMode(u.dsseKeyID)
	if err != nil {
		return "", usageErrorf("%s: --dsse-keyid %v", name, err)
	}
	return m, nil
}

// resolve returns the URI base for the repository at root: --resource-uri-base
// when given, else git's. note is non-empty when it is a file: URI (the last
// resort): the caller says so.
func (u *uriFlags) resolve(name, root string) (base attest.URIBase, note string, err error) {
	if u.base != "" {
		b, err := attest.ParseURIBase(u.base)
		if err != nil {
			return attest.URIBase{}, "", usageErrorf("%s: --resource-uri-base %v", name, err)
		}
		return b, "", nil
	}
	b := attest.RepoURIBase(root)
	if b.LastResort {
		note = fmt.Sprintf("%s has no git origin remote and commit, so the attestation names its files by a file: URI of this machine (%s); pass --resource-uri-base to name them where readers can find them",
			render.Inline(root), render.Inline(b.Prefix))
	}
	return b, note, nil
}

func newAttestCmd() *cobra.Command {
	var o attestOptions
	cmd := command("attest", "attest FILE --key KEY --key-id ID --out OUT [--predicate vsa|bundle]",
		"Verify a bundle and write the verdict as a signed in-toto attestation (DSSE)",
		exactArgs(1, "exactly one bundle FILE"), func(cmd *cobra.Command, args []string) error { return runAttest(cmd, &o, args[0]) })
	o.trust.register(cmd, false)
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	fl := cmd.Flags()
	fl.StringVarP(&o.file, "out", "o", "", "write the DSSE envelope to `FILE` (required; - for standard output)")
	fl.BoolVar(&o.force, "force", false, "overwrite OUT if it exists")
	fl.StringVar(&o.keyRef, "key", "", "the attestor's signing key: `PEM|env:NAME|KMS-URI|pkcs11:URI`")
	fl.StringVar(&o.keyID, "key-id", "", "the attestor's key `ID` (the envelope signature's keyid)")
	fl.StringVar(&o.predicate, "predicate", "vsa", "`vsa|bundle`: a SLSA verification summary, or the bundle itself")
	fl.BoolVar(&o.allowCoherent, "allow-coherent", false, "attest a COHERENT bundle too, as a VSA that records FAILED")
	fl.StringVar(&o.repo, "repo", ".", "the repository `DIR` the bundle file is named relative to")
	fl.StringVar(&o.at, "time", "", "record this RFC 3339 `TIME` as timeVerified (default $SOURCE_DATE_EPOCH, else now)")
	o.uri.register(cmd)
	return cmd
}

// predicateTypes maps --predicate words to predicate types.
var predicateTypes = map[string]string{"vsa": attest.PredicateVSA, "bundle": attest.PredicateBundle}

func runAttest(cmd *cobra.Command, o *attestOptions, file string) error {
	predicate, ok := predicateTypes[o.predicate]
	if !ok {
		return usageErrorf("attest: --predicate %q: give vsa or bundle", o.predicate)
	}
	if o.file == "" {
		return usageErrorf("attest: --out FILE is required")
	}
	if file == limitedfile.Stdin {
		return usageErrorf("attest: the subject names the bundle by its path in the repository, so the bundle must be a file, not - (standard input)")
	}
	if err := checkSigningFlags("attest", o.keyRef, o.keyID); err != nil {
		return err
	}
	mode, err := o.uri.mode("attest")
	if err != nil {
		return err
	}
	if err := refuseExisting(o.force, o.file); err != nil {
		return err
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
	signer, err := loadSigner(cmd.Context(), cmd, "--key", o.keyRef)
	if err != nil {
		return err
	}
	defer signer.Close() // a token key holds a session open
	data, err := limitedfile.Read(file, limitedfile.MaxBundle)
	if err != nil {
		return inputError(fmt.Errorf("bundle %s: %s", file, describeReadError(err)))
	}
	ts, err := verify.ReadTimestamps(file, "", "")
	if err != nil {
		return inputError(fmt.Errorf("attest: %s: %w", file, err))
	}
	base, uriNote, err := o.uri.resolve("attest", o.repo)
	if err != nil {
		return err
	}
	a, err := attest.Bundle(attest.BundleRequest{
		Options: attest.Options{Version: buildVersion().Version, Time: at, URIBase: base},
		Data:    data, Name: name, Verify: opts, Timestamps: ts, Predicate: predicate, AllowCoherent: o.allowCoherent,
	})
	var syn *bundle.SyntaxError
	var nv *attest.NotVerifiedError
	var wrongKind *verify.NotABundleError
	switch {
	case errors.As(err, &syn):
		return inputError(fmt.Errorf("attest: %s: %s", file, describeReadError(err)))
	case errors.As(err, &wrongKind):
		wrongKind.File = file
		return inputError(fmt.Errorf("attest: %s: %w", file, wrongKind))
	case errors.As(err, &nv):
		return &exitError{code: nv.Verdict.ExitCode(), err: fmt.Errorf("attest: nothing written: %s", render.Inline(nv.Error()))}
	case err != nil:
		return inputError(fmt.Errorf("attest: %w", err))
	}
	if err := writeEnvelope(cmd, "attest", o.file, a, signer, o.keyID, mode, o.force); err != nil {
		return err
	}
	w := render.NewAttestationWritten(o.file, a, signer.Key(o.keyID))
	out := reportWriter(cmd, o.file)
	switch {
	case !o.out.text():
		if uriNote != "" {
			w.Warnings = append(w.Warnings, uriNote)
		}
		return render.WriteJSON(out, w)
	case o.out.quiet:
		return render.WriteWarnings(cmd.ErrOrStderr(), w.Warnings)
	}
	if err := render.WriteAttestationWritten(out, cmd.ErrOrStderr(), "bundle attest", w); err != nil {
		return err
	}
	if uriNote != "" {
		// A note of the report, not a warning: the attestation is sound, its
		// input's URI is only local.
		fmt.Fprintf(out, "note:      %s\n", uriNote)
	}
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

// writeEnvelope signs the statement and writes the envelope atomically (or to
// standard output for "-"): a failure leaves no file.
func writeEnvelope(cmd *cobra.Command, name, out string, a *attest.Attestation, signer *keys.Signer, keyID string, mode attest.KeyIDMode, force bool) error {
	env, err := attest.SignWith(a.Statement, signer, keyID, mode)
	if err != nil {
		var se *attest.SignError
		if errors.As(err, &se) {
			return signError(name, err)
		}
		return &exitError{code: exitInternal, err: fmt.Errorf("%s: internal error: %v; this is a defect in certcut, please report it", name, err)}
	}
	return writeOut(cmd.OutOrStdout(), name, out, env, force)
}

// attestFlags are the --attest flags of a gate command: the gate's decision as a
// signed VSA (attest.Gate). register adds them; prepare checks them and loads the
// key before the gate runs; write writes the envelopes after it.
type attestFlags struct {
	out, keyRef, keyID string
	force              bool
	signer             *keys.Signer
	uri                uriFlags
	mode               attest.KeyIDMode
}

// commandName is the command's path without the root: "gate accepted".
func commandName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

func (a *attestFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&a.out, "attest", "", "also write the decision as a signed SLSA VSA (DSSE envelope) to `FILE`; a BLOCKED decision writes none")
	fl.StringVar(&a.keyRef, "key", "", "the attestor's signing key for --attest: `PEM|env:NAME|KMS-URI|pkcs11:URI`")
	fl.StringVar(&a.keyID, "key-id", "", "the attestor's key `ID` for --attest")
	fl.BoolVar(&a.force, "force", false, "overwrite the --attest FILE if it exists")
	a.uri.register(cmd)
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
	mode, err := a.uri.mode(name + " --attest")
	if err != nil {
		return err
	}
	a.mode = mode
	if err := refuseExisting(a.force, a.out); err != nil {
		return err
	}
	if _, err := attestTime(name+" --attest", ""); err != nil {
		return err
	}
	s, err := loadSigner(cmd.Context(), cmd, "--key", a.keyRef)
	if err != nil {
		return err
	}
	a.signer = s
	return nil
}

// write writes one VSA per decision when --attest was given: to --attest FILE
// when there is one decision, else to FILE with each RFC's number before its
// extension (flips.vsa.json → flips.0211.vsa.json). root is the spec repository
// the files are named in, gateFile the gate file read ("" when none). A BLOCKED
// decision writes nothing and says so on stderr; the exit code stays the gate's.
func (a *attestFlags) write(cmd *cobra.Command, reps []*gate.Report, root, gateFile string) error {
	if a.out == "" {
		return nil
	}
	defer a.signer.Close() // a token key holds a session open
	name := commandName(cmd)
	base, uriNote, err := a.uri.resolve(name+" --attest", root)
	if err != nil {
		return err
	}
	if uriNote != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "bundle: %s --attest: note: %s\n", name, uriNote)
	}
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
		at, err := attestTime(name+" --attest", "")
		if err != nil {
			return err
		}
		att, err := attest.Gate(attest.GateRequest{
			Options: attest.Options{Version: buildVersion().Version, Time: at, URIBase: base},
			Report:  rep, Root: root, GateFile: gateFile,
		})
		var blocked *attest.BlockedError
		switch {
		case errors.As(err, &blocked):
			fmt.Fprintf(cmd.ErrOrStderr(), "bundle: %s: no attestation written to %s: %s\n", name, render.Inline(out), render.Inline(err.Error()))
			continue
		case err != nil:
			return inputError(fmt.Errorf("%s --attest: %w", name, err))
		}
		if err := writeEnvelope(cmd, name, out, att, a.signer, a.keyID, a.mode, a.force); err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "bundle: %s: wrote %s: a SLSA verification summary of %s, %s, signed by %s (%s)\n",
			name, render.Inline(out), render.Inline(rep.Subject), att.Result, a.keyID, a.signer.Key(a.keyID).Fingerprint())
	}
	return nil
}
