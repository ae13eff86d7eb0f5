package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/rows"
	"github.com/certcut/certcut/timestamp"
	"github.com/spf13/cobra"
)

// Exit code of mint and sign when the self-check refuses the bundle.
const exitRefused = 2

// Environment variables the reference CLI reads, read here too.
const (
	envSigningKey    = "OPENWOP_BUNDLE_SIGNING_KEY"
	envSigningKeyID  = "OPENWOP_BUNDLE_SIGNING_KEY_ID"
	envVerifierKey   = "OPENWOP_BUNDLE_VERIFIER_KEY"
	envVerifierKeyID = "OPENWOP_BUNDLE_VERIFIER_KEY_ID"
	envRelaxations   = "OPENWOP_HOST_RELAXATIONS"
	envOptOuts       = "OPENWOP_OPTED_OUT_PROFILES"
)

type mintFlags struct {
	out, registry                         string
	force, json, unsigned                 bool
	ledgers, ledgerReports                []string
	nativeRows, vitest, junit             []string
	discoveryURL, discoveryFile, recordAs string
	discoveryTimeout                      time.Duration
	build, buildFromGit                   string
	allowDirty                            bool
	suiteVersion, specArtifacts, stamp    string
	targetMajor                           int
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
}

func newMintCmd() *cobra.Command {
	var f mintFlags
	cmd := &cobra.Command{
		Use:   "mint --out FILE --key KEY --key-id ID --build KIND:ID --suite-version V --discovery URL [rows…]",
		Short: "Assemble, scrub, sign and self-verify a host bundle",
		Long: `mint cuts a certification bundle (v3) from a conformance run's results.

Rows (at least one input; several are merged, and an id two inputs record is an error):
  --ledger FILE         the suite's requirement-ledger.jsonl; --ledger-report FILE is the
                        vitest JSON report of the same run, which names the file of each
                        requirement the ledger records
  --rows FILE           native rows: a JSON array or JSON Lines of
                        {id, scenario, result, assertions?, detail?, evidence?}
  --vitest FILE         a vitest JSON report (--reporter=json)
  --junit FILE          JUnit XML
Discovery: --discovery URL fetches the live document (a base URL gets
/.well-known/openwop appended); --discovery-file FILE --discovery-url URL uses a saved one.
A URL with credentials (user:pass@, or a parameter such as access_token=, key=, sig=)
is refused: discovery.url is published.
Build: --build commit:<sha>|image-digest:<digest>|artifact-sha256:<hex>, or
--build-from-git DIR (HEAD; a dirty tree is refused unless --allow-dirty).
Key: --key is a PKCS#8 PEM file (mode 0600), env:NAME (the PEM text in a variable), a
KMS URI (hashivault://KEY, with VAULT_ADDR and VAULT_TOKEN set), or a PKCS#11 URI naming
an Ed25519 key on a token (pkcs11:token=T;object=K?module-path=/path/module.so&pin-source=FILE;
needs the cgo build); each KMS or token call gives up after --kms-timeout. Default
env:OPENWOP_BUNDLE_SIGNING_KEY when that is set. --key-id is required
(default $OPENWOP_BUNDLE_SIGNING_KEY_ID) and becomes host.signingKeyId.

Before writing, mint verifies the bundle under the signer's public key, as
'bundle verify' would. Secrets never enter the bundle: --secret values, OPENWOP_*
variables named like KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, the signing key's PEM
and the conformance canary are replaced with «redacted:<sha256 prefix>», and the
places are listed (a secret member name by its marker). Errors are scrubbed too.

Exit codes:
  0  the bundle was written
  2  the self-check refused it: written to FILE.rejected.json instead, with the reasons
  3  an input could not be read: rows, discovery (timeout, HTTP error, HTML, too large),
     key (missing, readable by others, not Ed25519, KMS or token silent past
     --kms-timeout; a token's wrong PIN, locked PIN, missing module or key),
     registry, relaxations; an input over its cap or a FIFO; a number that cannot be
     written as I-JSON (1e17)
  4  usage: a missing or wrong flag, FILE exists (use --force), a dirty git tree, a
     discovery URL with credentials
  70 internal error: a defect in certcut, please report it`,
		Example: `  bundle keys generate --key-id host-2026-11 --out-dir keys
  bundle mint --out bundle.json --key keys/host-2026-11.key.pem --key-id host-2026-11 \
    --build commit:$(git rev-parse HEAD) --suite-version 2.45.30 \
    --discovery https://host.example --ledger report/requirement-ledger.jsonl \
    --ledger-report report/vitest.json
  bundle mint --out bundle.json --key hashivault://openwop-bundle --key-id host-kms-1 \
    --build-from-git . --suite-version 2.45.30 --discovery-file openwop.json \
    --discovery-url https://host.example --vitest vitest.json --relaxation \
    'webhooks.egress-guard:deployment:loopback receiver only'`,
		Args: exactArgs(0, "no positional arguments (inputs are flags)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runMint(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "write the bundle to `FILE` (required)")
	fl.BoolVar(&f.force, "force", false, "overwrite FILE if it exists")
	fl.BoolVar(&f.json, "json", false, "print the mint report as JSON")
	fl.BoolVar(&f.unsigned, "unsigned", false, "write the assembled bundle unsigned, for 'bundle sign' (no key needed; --key-id still names the host key)")
	fl.StringArrayVar(&f.ledgers, "ledger", nil, "the suite's requirement ledger `FILE` (JSON Lines; repeatable)")
	fl.StringArrayVar(&f.ledgerReports, "ledger-report", nil, "vitest JSON report `FILE` of the ledger's run, to find each ledger row's scenario file (repeatable)")
	fl.StringArrayVar(&f.nativeRows, "rows", nil, "native rows `FILE`: JSON array or JSON Lines (repeatable)")
	fl.StringArrayVar(&f.vitest, "vitest", nil, "vitest JSON report `FILE` (repeatable)")
	fl.StringArrayVar(&f.junit, "junit", nil, "JUnit XML `FILE` (repeatable)")
	fl.StringVar(&f.discoveryURL, "discovery", "", "fetch the host's discovery document from `URL` (base URL or …/.well-known/openwop)")
	fl.StringVar(&f.discoveryFile, "discovery-file", "", "read the discovery document from `FILE` instead (needs --discovery-url)")
	fl.StringVar(&f.recordAs, "discovery-url", "", "the `URL` a --discovery-file was served at, recorded as discovery.url")
	fl.DurationVar(&f.discoveryTimeout, "discovery-timeout", discovery.DefaultTimeout, "give up fetching the discovery document after this `duration`")
	fl.StringVar(&f.build, "build", "", "the build the suite ran against, `KIND:ID` (commit, image-digest, artifact-sha256)")
	fl.StringVar(&f.buildFromGit, "build-from-git", "", "use HEAD of the git work tree `DIR` as the build (commit)")
	fl.BoolVar(&f.allowDirty, "allow-dirty", false, "with --build-from-git: record HEAD even if the tree has uncommitted changes")
	fl.StringVar(&f.suiteVersion, "suite-version", "", "the conformance suite `version` that ran (required), e.g. 2.45.30")
	fl.IntVar(&f.targetMajor, "target-major", 2, "the protocol major the suite targeted (certcut mints major 2)")
	fl.StringVar(&f.specArtifacts, "spec-artifacts-version", "", "suite.specArtifactsVersion (default \"repo-layout\", as the reference without a lock file)")
	fl.StringVar(&f.stamp, "stamp", "", "suite.stampSha256, 64 hex digits (optional)")
	fl.StringVar(&f.hostName, "host-name", "", "host.name (default: the document's implementation.name)")
	fl.StringVar(&f.hostVersion, "host-version", "", "host.version (default: implementation.version)")
	fl.StringVar(&f.hostVendor, "host-vendor", "", "host.vendor (default: implementation.vendor)")
	fl.StringArrayVar(&f.relaxations, "relaxation", nil, "a declared relaxation `OBLIGATION:DURABILITY:REASON` (repeatable; default $OPENWOP_HOST_RELAXATIONS as JSON)")
	fl.StringVar(&f.relaxationsFile, "relaxations-file", "", "declared relaxations as a JSON array `FILE` of {obligation, durability, reason}")
	fl.BoolVar(&f.companion, "as-colocated-companion", false, "mark the bundle host.deployment: colocated-companion (signed; RFC 0216)")
	fl.StringArrayVar(&f.optOuts, "opt-out", nil, "a profile (or family.<key>) the operator opted out of (repeatable; default $OPENWOP_OPTED_OUT_PROFILES, comma-separated)")
	fl.StringVar(&f.tier, "evidence-tier", bundle.TierSelf, "evidence tier of every claimed profile: self, steward or independent")
	fl.StringVar(&f.registry, "registry", "", "v2 profile registry `FILE` (spec/v2/profiles.json); default: the embedded three v2 profiles")
	fl.StringArrayVar(&f.secrets, "secret", nil, "a secret `VALUE` to keep out of the bundle (repeatable; prefer --secret-env)")
	fl.StringArrayVar(&f.secretEnvs, "secret-env", nil, "keep the value of environment variable `NAME` out of the bundle (repeatable)")
	fl.StringVar(&f.keyRef, "key", "", "host signing key: PEM `FILE`, env:NAME, KMS URI or pkcs11: URI (default env:OPENWOP_BUNDLE_SIGNING_KEY when set)")
	fl.StringVar(&f.keyID, "key-id", "", "host signing key `ID` (default $OPENWOP_BUNDLE_SIGNING_KEY_ID)")
	fl.StringVar(&f.verifierRef, "verifier-key", "", "independent verifier's key (same forms as --key), for --evidence-tier independent")
	fl.StringVar(&f.verifierKeyID, "verifier-key-id", "", "independent verifier's key `ID`")
	fl.StringVar(&f.generatedAt, "generated-at", "", "fix generatedAt (RFC 3339 `TIME`) so the same inputs give byte-identical output")
	f.tsa.register(cmd, "also ask this Time-Stamp Authority (`URL`, RFC 3161) for a token of each signature, written beside FILE as FILE.tsr (and FILE.verifier.tsr); docs/timestamps.md")
	return cmd
}

// mintReport is what mint prints with --json.
type mintReport struct {
	Out             string                `json:"out"`
	Written         bool                  `json:"written"`
	Rejected        string                `json:"rejected,omitempty"`
	Signed          bool                  `json:"signed"`
	KeyID           string                `json:"keyId"`
	Rows            int                   `json:"rows"`
	AssertionCount  int64                 `json:"assertionCount"`
	Totals          bundle.Totals         `json:"totals"`
	WitnessSha256   string                `json:"witnessSha256"`
	DiscoverySha256 string                `json:"discoverySha256"`
	Certified       []string              `json:"certified"`
	Profiles        []profiles.Assessment `json:"profiles"`
	DurabilityRung  string                `json:"durabilityRung,omitempty"`
	Redacted        []string              `json:"redacted"`
	Warnings        []string              `json:"warnings"`
	Verdict         string                `json:"verdict,omitempty"`
	selfCheck       string                // the verdict in words, for the text report
	Refused         []map[string]string   `json:"refused,omitempty"`
	// Timestamps are the RFC 3161 tokens written beside the bundle (--tsa).
	Timestamps []stampedFile `json:"timestamps,omitempty"`
}

// runMint checks the flags, loads the keys, reads the inputs, assembles, signs,
// self-checks and writes. No message it returns quotes a secret: its error is
// scrubbed of every secret known by then (scrubError).
func runMint(cmd *cobra.Command, f mintFlags) (err error) {
	var secrets []string
	defer func() { err = scrubError(err, secrets) }()
	if f.out == "" {
		return usageErrorf("mint: --out FILE is required")
	}
	if !f.force {
		if _, err := os.Lstat(f.out); err == nil {
			return usageErrorf("%s already exists; pass --force to overwrite it", f.out)
		}
	}
	if f.keyID == "" {
		f.keyID = os.Getenv(envSigningKeyID)
	}
	if f.keyRef == "" && os.Getenv(envSigningKey) != "" {
		f.keyRef = keys.EnvPrefix + envSigningKey
	}
	if f.verifierRef == "" && os.Getenv(envVerifierKey) != "" {
		f.verifierRef = keys.EnvPrefix + envVerifierKey
	}
	if f.verifierKeyID == "" {
		f.verifierKeyID = os.Getenv(envVerifierKeyID)
	}
	if f.keyID == "" {
		return usageErrorf("mint: --key-id is required (or set %s): it names the host's signing key, as the discovery document publishes it", envSigningKeyID)
	}
	if !f.unsigned && f.keyRef == "" {
		return usageErrorf("mint: --key is required (a PEM file, env:NAME, a KMS URI or a pkcs11: URI; or set %s), or pass --unsigned to sign later with 'bundle sign'", envSigningKey)
	}
	if f.unsigned && f.verifierRef != "" {
		return usageErrorf("mint: --unsigned writes no signatures; drop --verifier-key and have the verifier run 'bundle sign --as-verifier' on the unsigned bundle")
	}
	if (f.verifierRef == "") != (f.verifierKeyID == "") {
		return usageErrorf("mint: --verifier-key and --verifier-key-id go together")
	}
	if f.tier == bundle.TierIndependent && f.verifierRef == "" && !f.unsigned {
		return usageErrorf("mint: --evidence-tier independent needs the verifier's signature: pass --verifier-key and --verifier-key-id, or mint --unsigned and have the verifier run 'bundle sign --as-verifier' before you sign")
	}
	if f.unsigned && f.tsa.url != "" {
		return usageErrorf("mint: --unsigned makes no signature for --tsa to time-stamp; pass --tsa to 'bundle sign' (or run 'bundle timestamp' after it)")
	}
	tsaRoles := []timestamp.Role{timestamp.HostRole}
	if f.verifierRef != "" {
		tsaRoles = append(tsaRoles, timestamp.VerifierRole)
	}
	if f.tsa.url != "" {
		if err := refuseExistingTokens(f.out, f.force, tsaRoles...); err != nil {
			return err
		}
	}
	tsaTrust, err := f.tsa.check("mint")
	if err != nil {
		return err
	}
	if f.discoveryURL == "" && f.discoveryFile == "" {
		return usageErrorf("mint: give --discovery URL (fetched live) or --discovery-file FILE with --discovery-url URL")
	}
	if f.discoveryURL != "" && f.discoveryFile != "" {
		return usageErrorf("mint: give --discovery or --discovery-file, not both")
	}
	if f.discoveryFile != "" && f.recordAs == "" {
		return usageErrorf("mint: --discovery-file needs --discovery-url, the URL the document was served at (recorded as discovery.url)")
	}
	if (f.build == "") == (f.buildFromGit == "") {
		return usageErrorf("mint: give exactly one of --build KIND:ID and --build-from-git DIR")
	}
	for _, u := range []struct{ flag, url string }{{"--discovery", f.discoveryURL}, {"--discovery-url", f.recordAs}} {
		if u.url == "" {
			continue
		}
		if err := discovery.CheckURL(u.url); err != nil {
			return usageErrorf("mint: %s: %v", u.flag, err)
		}
	}
	generatedAt := time.Now()
	if f.generatedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, f.generatedAt)
		if err != nil {
			return usageErrorf("mint: --generated-at %q is not an RFC 3339 time (e.g. 2026-11-01T12:00:00Z)", f.generatedAt)
		}
		generatedAt = t
	}
	in := mint.Input{
		Suite:              bundle.Suite{Version: f.suiteVersion, TargetMajor: f.targetMajor, SpecArtifactsVersion: f.specArtifacts, StampSha256: f.stamp},
		HostName:           f.hostName,
		HostVersion:        f.hostVersion,
		HostVendor:         f.hostVendor,
		EvidenceTier:       f.tier,
		GeneratedAt:        generatedAt,
		KeyID:              f.keyID,
		Env:                os.Environ(),
		ColocatedCompanion: f.companion,
	}
	if f.build != "" {
		if in.Build, err = mint.ParseBuild(f.build); err != nil {
			return mintError(err)
		}
	}
	if in.Registry, err = loadRegistry(f.registry); err != nil {
		return err
	}
	if in.Relaxations, err = relaxationsFrom(f.relaxations, f.relaxationsFile); err != nil {
		return err
	}
	in.OptOuts = f.optOuts
	if len(in.OptOuts) == 0 {
		for _, name := range strings.Split(os.Getenv(envOptOuts), ",") {
			if name = strings.TrimSpace(name); name != "" {
				in.OptOuts = append(in.OptOuts, name)
			}
		}
	}
	if in.Secrets, err = secretValues("mint", f.secrets, f.secretEnvs); err != nil {
		return err
	}
	secrets = mint.Secrets(in.Secrets, in.Env, nil, f.keyID)

	// The keys first: their PEM text is a secret every later message is scrubbed of.
	ctx := cmd.Context()
	var host, verifier *keys.Signer
	if !f.unsigned {
		if host, err = loadSigner(ctx, "--key", f.keyRef); err != nil {
			return err
		}
		defer host.Close()
		in.KeyPEM = host.PEM
	}
	if f.verifierRef != "" && !f.unsigned {
		if verifier, err = loadSigner(ctx, "--verifier-key", f.verifierRef); err != nil {
			return err
		}
		defer verifier.Close()
		in.Secrets = append(in.Secrets, mint.PEMSecrets(verifier.PEM)...)
	}
	secrets = mint.Secrets(in.Secrets, in.Env, in.KeyPEM, f.keyID)

	if in.Rows, err = readRows(f, in.Registry); err != nil {
		return err
	}
	if f.buildFromGit != "" {
		build, dirty, err := mint.BuildFromGit(f.buildFromGit, f.allowDirty)
		var dt *mint.DirtyTreeError
		switch {
		case errors.As(err, &dt):
			return usageErrorf("mint: %v", err)
		case err != nil:
			return inputError(fmt.Errorf("mint: --build-from-git: %w", err))
		case dirty:
			fmt.Fprintf(cmd.ErrOrStderr(), "bundle: warning: %s has uncommitted changes; the bundle records HEAD %s, which is not exactly what ran (--allow-dirty)\n", f.buildFromGit, build.ID)
		}
		in.Build = build
	}

	if in.Discovery, err = captureDiscovery(ctx, f); err != nil {
		return err
	}

	asm, err := mint.Assemble(in)
	if err != nil {
		return mintError(err)
	}
	tolerated := mint.Tolerated
	var hostKeys, verifierKeys keys.Set
	if f.unsigned {
		tolerated = mint.ToleratedUnsigned
	} else {
		if err := mint.Sign(asm, host, f.keyID, verifier, f.verifierKeyID); err != nil {
			return signError("mint", err)
		}
		hostKeys = keys.Set{host.Key(f.keyID)}
		if verifier != nil {
			verifierKeys = keys.Set{verifier.Key(f.verifierKeyID)}
		}
	}
	data, err := mint.Encode(asm.Bundle)
	if err != nil {
		return mintError(err)
	}
	verdict, checkErr := mint.SelfCheck(data, hostKeys, verifierKeys, in.Registry, tolerated)
	rep := newMintReport(f.out, f.keyID, asm, !f.unsigned)
	if verdict != nil {
		rep.Verdict, rep.selfCheck = string(verdict.Outcome), selfCheckWords(verdict)
	}
	var refused *mint.RefusedError
	if errors.As(checkErr, &refused) {
		rejected, err := refuse("mint", f.out, data, refused, " (an emitter defect or an inconsistent input, not a verdict on the host)")
		if rejected != "" && f.json {
			rep.Rejected = rejected
			for _, r := range refused.Refused {
				rep.Refused = append(rep.Refused, map[string]string{"kind": string(r.Kind), "detail": r.Detail, "profile": r.Profile})
			}
			printJSON(cmd.OutOrStdout(), rep)
		}
		return err
	}
	if checkErr != nil {
		return selfCheckError("mint", checkErr)
	}
	if f.tsa.url != "" {
		if rep.Timestamps, err = f.tsa.stamp(ctx, "mint", asm.Bundle, f.out, tsaTrust, tsaRoles...); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(f.out, data, 0o644, f.force); err != nil {
		var exists *atomicfile.ExistsError
		if errors.As(err, &exists) {
			return usageErrorf("%v", err)
		}
		return inputError(fmt.Errorf("mint: writing %s: %w", f.out, err))
	}
	rep.Written = true
	if err := writeTokens("mint", rep.Timestamps, f.force); err != nil {
		return err
	}
	if !f.unsigned {
		warnStaleTokens(cmd.ErrOrStderr(), f.out, asm.Bundle, rep.Timestamps)
	}
	if f.json {
		printJSON(cmd.OutOrStdout(), rep)
		return nil
	}
	renderMintText(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep)
	return nil
}

func newMintReport(out, keyID string, asm *mint.Assembled, signed bool) mintReport {
	b := asm.Bundle
	rep := mintReport{
		Out: out, Signed: signed, KeyID: keyID, Rows: len(b.Results.Requirements), AssertionCount: b.AssertionCount,
		Totals: b.Results.Totals, WitnessSha256: b.WitnessSha256, DiscoverySha256: b.Discovery.Sha256,
		Certified: []string{}, Profiles: asm.Profiles, Redacted: asm.Redacted, Warnings: asm.Warnings,
	}
	if rep.Profiles == nil {
		rep.Profiles = []profiles.Assessment{}
	}
	if rep.Redacted == nil {
		rep.Redacted = []string{}
	}
	if rep.Warnings == nil {
		rep.Warnings = []string{}
	}
	for _, p := range b.ClaimedProfiles {
		if p.Certified {
			rep.Certified = append(rep.Certified, p.ID)
		}
	}
	if b.Durability != nil {
		rep.DurabilityRung = b.Durability.Rung
	}
	return rep
}

func renderMintText(stdout, stderr io.Writer, rep mintReport) {
	signed := "signed by " + rep.KeyID
	if !rep.Signed {
		signed = "UNSIGNED, for 'bundle sign' with " + rep.KeyID
	}
	fmt.Fprintf(stdout, "bundle mint: wrote bundle v3 → %s (%d requirement rows, %d assertions, witness %s, %s; certified: %s)\n",
		rep.Out, rep.Rows, rep.AssertionCount, prefix(rep.WitnessSha256, 12), signed, listOrNone(rep.Certified))
	t := rep.Totals
	fmt.Fprintf(stdout, "totals:    executedPass=%d executedFail=%d blocked=%d inapplicable=%d skipped=%d\n",
		t.ExecutedPass, t.ExecutedFail, t.Blocked, t.Inapplicable, t.Skipped)
	for _, p := range rep.Profiles {
		if p.Certified {
			fmt.Fprintf(stdout, "profile:   %s certified (witnessCount %d)\n", p.ID, p.WitnessCount)
		} else {
			fmt.Fprintf(stdout, "profile:   %s NOT certified (witnessCount %d): %s\n", p.ID, p.WitnessCount, strings.Join(p.Denials, "; "))
		}
	}
	if rep.DurabilityRung != "" {
		fmt.Fprintf(stdout, "rung:      %s (derived from the RFC 0158 rows)\n", rep.DurabilityRung)
	}
	if len(rep.Redacted) > 0 {
		fmt.Fprintf(stdout, "redacted:  %d place(s): %s\n", len(rep.Redacted), strings.Join(rep.Redacted, ", "))
	}
	fmt.Fprintf(stdout, "self-check: %s\n", rep.selfCheck)
	for _, t := range rep.Timestamps {
		fmt.Fprintf(stdout, "timestamp: %s\n", render.Inline(tokenLine(t)))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "bundle: warning: %s\n", w)
	}
}

func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// mintError maps mint's typed errors to exit codes.
func mintError(err error) error {
	var ue *mint.UsageError
	var ie *mint.InputError
	switch {
	case errors.As(err, &ue):
		return usageErrorf("mint: %v", err)
	case errors.As(err, &ie):
		return inputError(fmt.Errorf("mint: %w", err))
	}
	return inputError(fmt.Errorf("mint: %w", err))
}

func loadRegistry(path string) (*profiles.Registry, error) {
	if path == "" {
		return profiles.Default(), nil
	}
	reg, err := profiles.Load(path)
	if err != nil {
		return nil, inputError(err)
	}
	return reg, nil
}

// loadSigner loads a signing key reference (keys.LoadSigner: a PEM file, env:NAME,
// a KMS URI, a pkcs11: URI); every failure is an unreadable input. A KMS or token
// key's calls are bounded by the --kms-timeout ctx carries (root.go). The caller
// closes the signer (a token key holds a session).
func loadSigner(ctx context.Context, flag, ref string) (*keys.Signer, error) {
	s, err := keys.LoadSigner(ctx, ref)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputError(fmt.Errorf("%s %s: no such key file (create one with 'bundle keys generate')", flag, ref))
		}
		return nil, inputError(fmt.Errorf("%s: %w", flag, err))
	}
	return s, nil
}

// signError maps a failure to sign: the KMS or the token failing or not answering
// is an unreadable input (3); anything else (a key id the bundle does not allow)
// is usage.
func signError(name string, err error) error {
	var te *keys.KMSTimeoutError
	var ke *keys.KMSError
	var pe *keys.PKCS11Error
	if errors.As(err, &te) || errors.As(err, &ke) || errors.As(err, &pe) {
		return inputError(fmt.Errorf("%s: %w", name, err))
	}
	return usageErrorf("%s: %v", name, err)
}

// secretValues collects --secret values and the values of the --secret-env
// variables; a variable that is not set is a usage error.
func secretValues(name string, given, envNames []string) ([]string, error) {
	out := append([]string(nil), given...)
	for _, env := range envNames {
		v, ok := os.LookupEnv(env)
		if !ok {
			return nil, usageErrorf("%s: --secret-env %s: the variable is not set", name, env)
		}
		out = append(out, v)
	}
	return out, nil
}

// scrubError returns err with every secret in its message replaced by its
// redaction marker (mint.ScrubText), keeping its exit code: an error may quote an
// input (a row id, a member name) that holds one.
func scrubError(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	clean := mint.ScrubText(msg, secrets)
	if clean == msg {
		return err
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.code, err: errors.New(clean)}
	}
	return errors.New(clean)
}

// refuse writes a bundle the self-check refused to OUT.rejected.json
// (mint.WriteRejected), never to OUT, and returns that path and the exit-2 error
// that says so, with hint after the reasons; "" and an exit-3 error when it cannot
// be written. mint and sign both end this way.
func refuse(name, out string, data []byte, refused *mint.RefusedError, hint string) (string, error) {
	rejected, err := mint.WriteRejected(out, data)
	if err != nil {
		return "", inputError(fmt.Errorf("%s: the self-check refused the bundle, and writing %s failed: %v", name, rejected, err))
	}
	return rejected, &exitError{code: exitRefused, err: fmt.Errorf("%s refused to write %s: %v; the bundle is in %s for inspection%s", name, out, refused, rejected, hint)}
}

// selfCheckError maps a self-check failure other than a refusal: certcut could not
// read back what it encoded, a defect in certcut (exit 70), not a verdict.
func selfCheckError(name string, err error) error {
	return &exitError{code: exitInternal, err: fmt.Errorf("%s: internal error: %v; this is a defect in certcut, please report it", name, err)}
}

// readInput reads one input file of at most limit bytes (limitedfile.MaxInput for
// row inputs, MaxPolicy for a relaxations file, MaxBundle for a bundle); a FIFO or
// a device is refused, not waited on.
func readInput(flag, path string, limit int64) ([]byte, error) {
	data, err := limitedfile.Read(path, limit)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputError(fmt.Errorf("%s %s: no such file", flag, path))
		}
		return nil, inputError(fmt.Errorf("%s %s: %w", flag, path, err))
	}
	return data, nil
}

func readRows(f mintFlags, reg *profiles.Registry) ([]bundle.Row, error) {
	opts := rows.Options{IsFloor: reg.IsFloor}
	var inputs [][]rows.Sourced
	var index *rows.ScenarioIndex
	for _, path := range f.ledgerReports {
		data, err := readInput("--ledger-report", path, limitedfile.MaxInput)
		if err != nil {
			return nil, err
		}
		_, idx, err := rows.ReadVitest(data, path, opts)
		if err != nil {
			return nil, inputError(err)
		}
		index = mergeIndex(index, idx)
	}
	if len(f.ledgerReports) > 0 && len(f.ledgers) == 0 {
		return nil, usageErrorf("mint: --ledger-report names the files of a --ledger's rows; give the ledger too (use --vitest to mint from the report itself)")
	}
	for _, path := range f.ledgers {
		data, err := readInput("--ledger", path, limitedfile.MaxInput)
		if err != nil {
			return nil, err
		}
		got, err := rows.ReadLedger(data, path, index)
		if err != nil {
			return nil, inputError(err)
		}
		inputs = append(inputs, got)
	}
	for _, path := range f.nativeRows {
		data, err := readInput("--rows", path, limitedfile.MaxInput)
		if err != nil {
			return nil, err
		}
		got, err := rows.ReadNative(data, path)
		if err != nil {
			return nil, inputError(err)
		}
		inputs = append(inputs, got)
	}
	for _, path := range f.vitest {
		data, err := readInput("--vitest", path, limitedfile.MaxInput)
		if err != nil {
			return nil, err
		}
		got, _, err := rows.ReadVitest(data, path, opts)
		if err != nil {
			return nil, inputError(err)
		}
		inputs = append(inputs, got)
	}
	for _, path := range f.junit {
		data, err := readInput("--junit", path, limitedfile.MaxInput)
		if err != nil {
			return nil, err
		}
		got, _, err := rows.ReadJUnit(data, path, opts)
		if err != nil {
			return nil, inputError(err)
		}
		inputs = append(inputs, got)
	}
	if len(inputs) == 0 {
		return nil, usageErrorf("mint: no rows: give at least one of --ledger, --rows, --vitest, --junit")
	}
	merged, err := rows.Merge(inputs...)
	if err != nil {
		return nil, inputError(err)
	}
	return merged, nil
}

func mergeIndex(a, b *rows.ScenarioIndex) *rows.ScenarioIndex {
	if a == nil {
		return b
	}
	a.Merge(b)
	return a
}

func captureDiscovery(ctx context.Context, f mintFlags) (*discovery.Document, error) {
	var doc *discovery.Document
	var err error
	if f.discoveryFile != "" {
		doc, err = discovery.Load(f.discoveryFile, f.recordAs)
	} else {
		doc, err = discovery.Fetch(ctx, f.discoveryURL, discovery.Options{TargetMajor: f.targetMajor, Timeout: f.discoveryTimeout})
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputError(fmt.Errorf("--discovery-file %s: no such file", f.discoveryFile))
		}
		return nil, inputError(fmt.Errorf("discovery: %w", err))
	}
	return doc, nil
}

// relaxationsFrom reads declared relaxations: --relaxation flags, then
// --relaxations-file; when neither is given, $OPENWOP_HOST_RELAXATIONS (a JSON array).
func relaxationsFrom(flags []string, file string) ([]bundle.Relaxation, error) {
	var out []bundle.Relaxation
	for _, s := range flags {
		parts := strings.SplitN(s, ":", 3)
		if len(parts) != 3 {
			return nil, usageErrorf("--relaxation %q: write OBLIGATION:DURABILITY:REASON, e.g. webhooks.egress-guard:deployment:loopback receiver only", s)
		}
		r := bundle.Relaxation{Obligation: parts[0], Durability: parts[1], Reason: parts[2]}
		if err := mint.CheckRelaxation(r); err != nil {
			return nil, usageErrorf("--relaxation %q: %v", s, err)
		}
		out = append(out, r)
	}
	if file != "" {
		data, err := readInput("--relaxations-file", file, limitedfile.MaxPolicy)
		if err != nil {
			return nil, err
		}
		got, err := parseRelaxations(data)
		if err != nil {
			return nil, inputError(fmt.Errorf("--relaxations-file %s: %w", file, err))
		}
		out = append(out, got...)
	}
	if len(flags) == 0 && file == "" {
		if env := strings.TrimSpace(os.Getenv(envRelaxations)); env != "" {
			got, err := parseRelaxations([]byte(env))
			if err != nil {
				return nil, usageErrorf("%s: %v", envRelaxations, err)
			}
			out = got
		}
	}
	return out, nil
}

// parseRelaxations reads a JSON array of closed {obligation, durability, reason}
// objects.
func parseRelaxations(data []byte) ([]bundle.Relaxation, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if v.Kind() != bundle.Array {
		return nil, fmt.Errorf("expected a JSON array of {obligation, durability, reason}, found %s", v.Kind())
	}
	var out []bundle.Relaxation
	for i, item := range v.Items() {
		if item.Kind() != bundle.Object {
			return nil, fmt.Errorf("relaxation %d is %s, not an object", i+1, item.Kind())
		}
		var r bundle.Relaxation
		for _, m := range item.Members() {
			s, ok := m.Value.Str()
			if !ok {
				return nil, fmt.Errorf("relaxation %d: %s must be a string", i+1, m.Name)
			}
			switch m.Name {
			case "obligation":
				r.Obligation = s
			case "durability":
				r.Durability = s
			case "reason":
				r.Reason = s
			default:
				return nil, fmt.Errorf("relaxation %d: unknown member %q (a relaxation has obligation, durability, reason)", i+1, m.Name)
			}
		}
		if err := mint.CheckRelaxation(r); err != nil {
			return nil, fmt.Errorf("relaxation %d: %v", i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}
