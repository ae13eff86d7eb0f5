package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/rows"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type mintOptions struct {
	out                                   output
	file, registry                        string
	force, unsigned, unpublishedKey       bool
	rows                                  rows.Sources
	discoveryURL, discoveryFile, recordAs string
	discoveryTimeout                      time.Duration
	build, buildFromGit                   string
	allowDirty                            bool
	suite                                 bundle.Suite
	hostName, hostVersion, hostVendor     string
	relaxations                           []string
	relaxationsFile                       string
	companion                             bool
	optOuts                               []string
	tier                                  string
	secrets, secretEnvs                   []string
	keyRef, keyID                         string
	verifierRef, verifierKeyID            string
	generatedAt                           string
	tsa                                   tsaFlags
	maturity                              maturityFlags
}

func newMintCmd() *cobra.Command {
	var o mintOptions
	cmd := command("mint", "mint --out FILE --key KEY --key-id ID --build KIND:ID --suite-version V --discovery URL [rows…]",
		"Assemble, scrub, sign and self-verify a host bundle", exactArgs(0, "no positional arguments (inputs are flags)"),
		func(cmd *cobra.Command, _ []string) error { return runMint(cmd, &o) })
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	fl := cmd.Flags()
	fl.StringVarP(&o.file, "out", "o", "", "write the bundle to `FILE` (required; - for standard output)")
	fl.BoolVar(&o.force, "force", false, "overwrite FILE if it exists")
	fl.BoolVar(&o.unsigned, "unsigned", false, "write the assembled bundle unsigned, for 'bundle sign' (no key needed; --key-id still names the host key)")
	fl.StringArrayVar(&o.rows.Ledgers, "ledger", nil, "the suite's requirement ledger `FILE` (JSON Lines; repeatable; - for standard input)")
	fl.StringArrayVar(&o.rows.LedgerReports, "ledger-report", nil, "vitest JSON report `FILE` of the ledger's run, to find each ledger row's scenario file (repeatable)")
	fl.StringArrayVar(&o.rows.Native, "rows", nil, "native rows `FILE`: JSON array or JSON Lines (repeatable; - for standard input)")
	fl.StringArrayVar(&o.rows.Vitest, "vitest", nil, "vitest JSON report `FILE` (repeatable)")
	fl.StringArrayVar(&o.rows.JUnit, "junit", nil, "JUnit XML `FILE` (repeatable)")
	fl.StringVar(&o.discoveryURL, "discovery", "", "fetch the host's discovery document from `URL` (base URL or …/.well-known/openwop)")
	fl.StringVar(&o.discoveryFile, "discovery-file", "", "read the discovery document from `FILE` instead (needs --discovery-url; - for standard input)")
	fl.StringVar(&o.recordAs, "discovery-url", "", "the `URL` a --discovery-file was served at, recorded as discovery.url")
	fl.DurationVar(&o.discoveryTimeout, "discovery-timeout", discovery.DefaultTimeout, "give up fetching the discovery document after this `DURATION`")
	fl.StringVar(&o.build, "build", "", "the build the suite ran against, `KIND:ID` (commit, image-digest, artifact-sha256)")
	fl.StringVar(&o.buildFromGit, "build-from-git", "", "use HEAD of the git work tree `DIR` as the build (commit)")
	fl.BoolVar(&o.allowDirty, "allow-dirty", false, "with --build-from-git: record HEAD even if the tree has uncommitted changes")
	fl.StringVar(&o.suite.Version, "suite-version", "", "the conformance suite `VERSION` that ran (required), e.g. 2.45.30")
	fl.IntVar(&o.suite.TargetMajor, "target-major", 2, "the protocol `MAJOR` the suite targeted (certcut mints major 2)")
	fl.StringVar(&o.suite.SpecArtifactsVersion, "spec-artifacts-version", "", "suite.specArtifactsVersion `VERSION` (default \"repo-layout\", as the reference without a lock file)")
	fl.StringVar(&o.suite.StampSha256, "stamp", "", "suite.stampSha256, 64 `HEX` digits (optional)")
	fl.StringVar(&o.hostName, "host-name", "", "host.name `NAME` (default: the document's implementation.name)")
	fl.StringVar(&o.hostVersion, "host-version", "", "host.version `VERSION` (default: implementation.version)")
	fl.StringVar(&o.hostVendor, "host-vendor", "", "host.vendor `NAME` (default: implementation.vendor)")
	fl.StringArrayVar(&o.relaxations, "relaxation", nil, "a declared relaxation `OBLIGATION:DURABILITY:REASON` (repeatable; default $OPENWOP_HOST_RELAXATIONS as JSON)")
	fl.StringVar(&o.relaxationsFile, "relaxations-file", "", "declared relaxations as a JSON array `FILE` of {obligation, durability, reason} (- for standard input)")
	fl.BoolVar(&o.companion, "as-colocated-companion", false, "mark the bundle host.deployment: colocated-companion (signed; RFC 0216)")
	fl.StringArrayVar(&o.optOuts, "opt-out", nil, "a `PROFILE` (or family.<key>) the operator opted out of (repeatable; default $OPENWOP_OPTED_OUT_PROFILES, comma-separated)")
	fl.StringVar(&o.tier, "evidence-tier", bundle.TierSelf, "evidence `TIER` of every claimed profile: self, steward or independent")
	fl.StringVar(&o.registry, "registry", "", "v2 profile registry `FILE` (spec/v2/profiles.json); default: the embedded three v2 profiles")
	fl.StringArrayVar(&o.secrets, "secret", nil, "a secret `VALUE` to keep out of the bundle (repeatable; prefer --secret-env)")
	fl.StringArrayVar(&o.secretEnvs, "secret-env", nil, "keep the value of environment variable `NAME` out of the bundle (repeatable)")
	fl.StringVar(&o.keyRef, "key", "", "host signing key: `PEM|env:NAME|KMS-URI|pkcs11:URI` (default env:OPENWOP_BUNDLE_SIGNING_KEY when set)")
	fl.StringVar(&o.keyID, "key-id", "", "host signing key `ID` (default $OPENWOP_BUNDLE_SIGNING_KEY_ID)")
	fl.BoolVar(&o.unpublishedKey, "unpublished-key", false, "sign with a key the discovery document does not publish under --key-id (a key not yet published); without it such a key is refused")
	fl.StringVar(&o.verifierRef, "verifier-key", "", "independent verifier's signing key, `PEM|env:NAME|KMS-URI|pkcs11:URI`, for --evidence-tier independent")
	fl.StringVar(&o.verifierKeyID, "verifier-key-id", "", "independent verifier's key `ID`")
	fl.StringVar(&o.generatedAt, "generated-at", "", "fix generatedAt (RFC 3339 `TIME`) so the same inputs give byte-identical output")
	o.maturity.register(cmd, "refuse a cut whose discovery document says status stable for a family the declaration does not call stable, at a suite the bound binds (RFC 0197 §C.7); warn below it")
	o.tsa.register(cmd, "also ask this Time-Stamp Authority (`URL`, RFC 3161) for a token of each signature, written beside FILE as FILE.tsr (and FILE.verifier.tsr); docs/timestamps.md")
	return cmd
}

// check refuses a bad command line before any input is read, filling in the
// defaults the reference CLI takes from the environment. Every missing or
// conflicting flag is named in one usage error, in the order of the synopsis
// (--out, --key, --key-id, the build, --suite-version, the discovery, the rows),
// then the conflicts among the optional flags.
func (o *mintOptions) check() error {
	def := func(v *string, env string) {
		if *v == "" {
			*v = os.Getenv(env)
		}
	}
	def(&o.keyID, mint.EnvSigningKeyID)
	def(&o.verifierKeyID, mint.EnvVerifierKeyID)
	if o.keyRef == "" && os.Getenv(mint.EnvSigningKey) != "" {
		o.keyRef = keys.EnvPrefix + mint.EnvSigningKey
	}
	if o.verifierRef == "" && os.Getenv(mint.EnvVerifierKey) != "" {
		o.verifierRef = keys.EnvPrefix + mint.EnvVerifierKey
	}
	r := o.rows
	var problems []string
	add := func(cond bool, msg string, args ...any) {
		if cond {
			problems = append(problems, fmt.Sprintf(msg, args...))
		}
	}
	add(o.file == "", "--out FILE is required")
	add(!o.unsigned && o.keyRef == "", "--key is required (a PEM file, env:NAME, a KMS URI or a pkcs11: URI; or set %s), or pass --unsigned to sign later with 'bundle sign'", mint.EnvSigningKey)
	add(o.keyID == "", "--key-id is required (or set %s): it names the host's signing key, as the discovery document publishes it", mint.EnvSigningKeyID)
	add((o.build == "") == (o.buildFromGit == ""), "give exactly one of --build KIND:ID and --build-from-git DIR")
	add(o.suite.Version == "", "the suite version is required (--suite-version), e.g. 2.45.30")
	add(o.discoveryURL == "" && o.discoveryFile == "", "give --discovery URL (fetched live) or --discovery-file FILE with --discovery-url URL")
	add(o.discoveryURL != "" && o.discoveryFile != "", "give --discovery or --discovery-file, not both")
	add(o.discoveryFile != "" && o.recordAs == "", "--discovery-file needs --discovery-url, the URL the document was served at (recorded as discovery.url)")
	noRows := len(r.Ledgers)+len(r.Native)+len(r.Vitest)+len(r.JUnit) == 0
	add(noRows && len(r.LedgerReports) == 0, "no rows: give at least one of --ledger, --rows, --vitest, --junit")
	add(noRows && len(r.LedgerReports) > 0, "--ledger-report names the files of a --ledger's rows; give the ledger too (use --vitest to mint from the report itself)")
	add(o.unsigned && o.verifierRef != "", "--unsigned writes no signatures; drop --verifier-key and have the verifier run 'bundle sign --as-verifier' on the unsigned bundle")
	add(o.unsigned && o.unpublishedKey, "--unsigned signs nothing; pass --unpublished-key to 'bundle sign'")
	add((o.verifierRef == "") != (o.verifierKeyID == ""), "--verifier-key and --verifier-key-id go together")
	add(o.tier == bundle.TierIndependent && o.verifierRef == "" && !o.unsigned, "--evidence-tier independent needs the verifier's signature: pass --verifier-key and --verifier-key-id, or mint --unsigned and have the verifier run 'bundle sign --as-verifier' before you sign")
	add(o.unsigned && o.tsa.url != "", "--unsigned makes no signature for --tsa to time-stamp; pass --tsa to 'bundle sign' (or run 'bundle timestamp' after it)")
	add(o.file == limitedfile.Stdin && o.tsa.url != "", "--tsa writes its tokens beside the bundle, so --out must be a file, not - (standard output)")
	if err := oneStdin("mint", append(append(append(append(append(r.Ledgers, r.LedgerReports...), r.Native...), r.Vitest...), r.JUnit...), o.discoveryFile, o.relaxationsFile)...); err != nil {
		problems = append(problems, strings.TrimPrefix(err.Error(), "mint: "))
	}
	switch len(problems) {
	case 0:
	case 1:
		return usageErrorf("mint: %s", problems[0])
	default:
		return usageErrorf("mint: %d problems with the flags: %s", len(problems), strings.Join(problems, "; "))
	}
	if err := refuseExisting(o.force, o.file); err != nil {
		return err
	}
	for _, u := range []struct{ flag, url string }{{"--discovery", o.discoveryURL}, {"--discovery-url", o.recordAs}} {
		if u.url == "" {
			continue
		}
		if err := discovery.CheckURL(u.url); err != nil {
			return usageErrorf("mint: %s: %v", u.flag, err)
		}
	}
	return nil
}

// mintGCPercent is the collector's setting while mint runs, unless GOGC is set
// (to anything but the empty string): a heap goal of five times the live heap, so
// a first collection at 16 MiB rather than 4. mint holds one bundle: its heap is
// its inputs, the bundle and the bytes it writes (a few MiB for hundreds of
// rows), nearly all of it needed until it exits, and collecting it on the way
// costs more CPU (about a tenth of a 500-row mint) than the memory it would give
// back. The soft memory limit main sets still bounds the heap
// (docs/performance.md). The setting is the process's: a program running two
// mints at once in one process (none does) would find it at 400 afterwards.
const mintGCPercent = 400

// runMint checks the flags, loads the keys, reads the inputs, cuts the bundle
// (mint.Run: assemble, sign, self-check) and writes it. No message it returns
// quotes a secret: its error is scrubbed of every secret known by then.
func runMint(cmd *cobra.Command, o *mintOptions) (err error) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(mintGCPercent))
	}
	var secrets []string
	defer func() { err = scrubError(err, secrets) }()
	if err := o.check(); err != nil {
		return err
	}
	roles := []timestamp.Role{timestamp.HostRole}
	if o.verifierRef != "" {
		roles = append(roles, timestamp.VerifierRole)
	}
	tsaTrust, err := o.tsa.check("mint", o.file, o.force, roles...)
	if err != nil {
		return err
	}
	in := mint.Input{Suite: o.suite, HostName: o.hostName, HostVersion: o.hostVersion, HostVendor: o.hostVendor, EvidenceTier: o.tier,
		GeneratedAt: time.Now(), KeyID: o.keyID, Env: os.Environ(), ColocatedCompanion: o.companion, OptOuts: o.optOuts}
	if o.generatedAt != "" {
		if in.GeneratedAt, err = time.Parse(time.RFC3339Nano, o.generatedAt); err != nil {
			return usageErrorf("mint: --generated-at %q is not an RFC 3339 time (e.g. 2026-11-01T12:00:00Z)", o.generatedAt)
		}
	}
	if o.build != "" {
		if in.Build, err = mint.ParseBuild(o.build); err != nil {
			return mintError(err)
		}
	}
	if in.Registry, err = profiles.LoadOrDefault(o.registry); err != nil {
		return inputError(err)
	}
	if in.Relaxations, err = o.readRelaxations(cmd); err != nil {
		return err
	}
	if len(in.OptOuts) == 0 {
		in.OptOuts = mint.OptOutsFromEnv(in.Env)
	}
	if in.Secrets, err = secretValues("mint", o.secrets, o.secretEnvs); err != nil {
		return err
	}
	secrets = mint.Secrets(in.Secrets, in.Env, nil, o.keyID)

	// The keys first: their PEM text is a secret every later message is scrubbed of.
	job := mint.Job{VerifierKeyID: o.verifierKeyID, UnpublishedKey: o.unpublishedKey}
	if job.Maturity, err = o.maturity.policy(cmd, "mint"); err != nil {
		return err
	}
	if !o.unsigned {
		if job.Host, err = loadSigner(cmd.Context(), cmd, "--key", o.keyRef); err != nil {
			return err
		}
		defer job.Host.Close()
		in.KeyPEM = job.Host.PEM
		if o.verifierRef != "" {
			if job.Verifier, err = loadSigner(cmd.Context(), cmd, "--verifier-key", o.verifierRef); err != nil {
				return err
			}
			defer job.Verifier.Close()
			in.Secrets = append(in.Secrets, mint.PEMSecrets(job.Verifier.PEM)...)
		}
	}
	secrets = mint.Secrets(in.Secrets, in.Env, in.KeyPEM, o.keyID)

	o.rows.Stdin = cmd.InOrStdin()
	if in.Rows, err = rows.Read(o.rows, rows.Options{IsFloor: in.Registry.IsFloor}); err != nil {
		return rowsError(err)
	}
	if o.buildFromGit != "" {
		build, dirty, err := mint.BuildFromGit(o.buildFromGit, o.allowDirty)
		var dt *mint.DirtyTreeError
		switch {
		case errors.As(err, &dt):
			return usageErrorf("mint: %v", err)
		case err != nil:
			return inputError(fmt.Errorf("mint: --build-from-git: %w", err))
		case dirty:
			fmt.Fprintf(cmd.ErrOrStderr(), "bundle: warning: %s has uncommitted changes; the bundle records HEAD %s, which is not exactly what ran (--allow-dirty)\n", o.buildFromGit, build.ID)
		}
		in.Build = build
	}
	if in.Discovery, err = o.loadDiscovery(cmd.Context(), cmd); err != nil {
		return err
	}
	job.Input = in
	hook("mint")
	cut, err := mint.Run(job)
	var refused *mint.RefusedError
	var unpub *mint.UnpublishedKeyError
	switch {
	case errors.As(err, &unpub):
		return inputError(fmt.Errorf("mint: %w; nothing written", err))
	case errors.As(err, &refused):
		rep := cut.Report
		rep.Out, rep.Refused = o.file, mint.Refusals(refused)
		hint := " (an emitter defect or an inconsistent input, not a verdict on the host)"
		if slices.ContainsFunc(refused.Refused, func(r verify.Rejection) bool { return r.Kind == verify.KindMaturityOverstated }) {
			hint = " (unsigned: the discovery document overstates family maturity against " + o.maturity.declaration + ")"
		}
		rejected, err := refuse("mint", o.file, cut.Data, refused, hint)
		if rejected != "" && !o.out.text() {
			rep.Rejected = rejected
			render.WriteJSON(cmd.OutOrStdout(), rep)
		}
		return err
	case err != nil:
		return mintError(err)
	}
	rep := cut.Report
	rep.Out = o.file
	if o.tsa.url != "" {
		if rep.Timestamps, err = o.tsa.stamp(cmd.Context(), "mint", cut.Bundle, o.file, tsaTrust, roles...); err != nil {
			return err
		}
	}
	if err := writeOut(cmd.OutOrStdout(), "mint", o.file, cut.Data, o.force); err != nil {
		return err
	}
	rep.Written = true
	if err := o.tsa.write("mint", rep.Timestamps, o.force); err != nil {
		return err
	}
	if !o.unsigned && o.file != limitedfile.Stdin {
		warnStaleTokens(cmd, o.file, cut.Bundle, rep.Timestamps)
	}
	out := reportWriter(cmd, o.file)
	switch {
	case !o.out.text():
		return render.WriteJSON(out, rep)
	case o.out.quiet:
		return render.WriteWarnings(cmd.ErrOrStderr(), rep.Warnings)
	}
	return render.WriteMint(out, cmd.ErrOrStderr(), &rep)
}

// readRelaxations reads --relaxation, then --relaxations-file; when neither is
// given, $OPENWOP_HOST_RELAXATIONS.
func (o *mintOptions) readRelaxations(cmd *cobra.Command) ([]bundle.Relaxation, error) {
	var out []bundle.Relaxation
	for _, s := range o.relaxations {
		r, err := mint.ParseRelaxation(s)
		if err != nil {
			return nil, usageErrorf("--relaxation %v", err)
		}
		out = append(out, r)
	}
	if o.relaxationsFile != "" {
		got, err := mint.ReadRelaxations(o.relaxationsFile, cmd.InOrStdin())
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, inputError(fmt.Errorf("--relaxations-file %s: no such file", o.relaxationsFile))
			}
			return nil, inputError(fmt.Errorf("--relaxations-file %s: %w", o.relaxationsFile, err))
		}
		out = append(out, got...)
	}
	if len(o.relaxations) == 0 && o.relaxationsFile == "" {
		got, err := mint.RelaxationsFromEnv(os.Environ())
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		out = got
	}
	return out, nil
}

func (o *mintOptions) loadDiscovery(ctx context.Context, cmd *cobra.Command) (*discovery.Document, error) {
	var doc *discovery.Document
	var err error
	if o.discoveryFile != "" {
		doc, err = discovery.LoadArg(o.discoveryFile, cmd.InOrStdin(), o.recordAs)
	} else {
		doc, err = discovery.Fetch(ctx, o.discoveryURL, discovery.Options{TargetMajor: o.suite.TargetMajor, Timeout: o.discoveryTimeout})
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, inputError(fmt.Errorf("--discovery-file %s: no such file", o.discoveryFile))
	case err != nil:
		return nil, inputError(fmt.Errorf("discovery: %w", err))
	}
	return doc, nil
}

// rowsError maps rows.Read's errors: a file that cannot be read names its flag.
func rowsError(err error) error {
	var fe *rows.FileError
	switch {
	case errors.As(err, &fe):
		return inputError(fmt.Errorf("--%v", fe))
	case errors.Is(err, rows.ErrNoRows):
		return usageErrorf("mint: no rows: give at least one of --ledger, --rows, --vitest, --junit")
	case errors.Is(err, rows.ErrReportWithoutLedger):
		return usageErrorf("mint: --ledger-report names the files of a --ledger's rows; give the ledger too (use --vitest to mint from the report itself)")
	}
	return inputError(err)
}
