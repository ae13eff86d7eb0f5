package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type signFlags struct {
	out, keyRef, keyID  string
	asVerifier, force   bool
	hostPub, verifierPb []string
	registry            string
	json                bool
	secrets, secretEnvs []string
	tsa                 tsaFlags
}

func newSignCmd() *cobra.Command {
	var f signFlags
	cmd := &cobra.Command{
		Use:   "sign --key KEY --key-id ID --out OUT [--as-verifier] FILE",
		Short: "Sign an assembled bundle as its host, or countersign it as an independent verifier",
		Long: `sign adds a signature to a bundle 'bundle mint --unsigned' assembled.

As the host (the default) it adds signature over the attestation payload
(witnessSha256, host.build, suite.version, discovery.sha256); --key-id must equal the
bundle's host.signingKeyId. With --as-verifier it adds verifierSignature over the same
payload, the independent tier's countersignature; the verifier's key id must differ
from the host's. The two can come in either order: the payload does not include
either signature.

The bundle's rows and digests are not touched. Before writing, the result is verified
as 'bundle verify' would, under the signing key (and --host-pub / --verifier-pub when
given); a rejection other than blocked-certified or independent-unverifiable (and,
while the host has not signed yet, signature-missing) refuses it.

KEY is a PKCS#8 PEM file (mode 0600), env:NAME, a KMS URI (hashivault://KEY), or a
PKCS#11 URI naming an Ed25519 key on a token (pkcs11:token=T;object=K?module-path=…&
pin-source=FILE; needs the cgo build); each call to the KMS or the token gives up
after --kms-timeout.

sign never publishes a secret: the signing key's PEM text (whole or its base64
body), --secret and --secret-env values, secret OPENWOP_* variables (named like KEY,
TOKEN, SECRET, PASSWORD, CREDENTIAL) and the conformance canary. Found in a signed
or derived member (rows, the discovery document, relaxations, build, suite
version), where scrubbing would break the digests, the bundle is refused (exit 3,
nothing written; the message names the places, never the secret): re-mint it.
Found in an unsigned member (host.name, discovery.url, detail.nonPass…), it is
replaced with «redacted:…» and the places are listed.

Exit codes: 0 written; 2 the self-check refused it (written to OUT.rejected.json);
3 an input could not be read (bundle, key, KMS or token failed or timed out, a
token's wrong PIN, locked PIN, missing module or key), or a secret is
in signed content; 4 usage (OUT exists without --force, already signed, key id
mismatch); 70 internal error.`,
		Example: `  bundle mint --unsigned --key-id host-2026-11 --out unsigned.json …
  bundle sign --as-verifier --key verifier.key.pem --key-id lab-verifier-1 --out countersigned.json unsigned.json
  bundle sign --key keys/host-2026-11.key.pem --key-id host-2026-11 --verifier-pub lab-verifier-1.pub.pem \
    --out bundle.json countersigned.json`,
		Args: exactArgs(1, "exactly one bundle FILE"),
		RunE: func(cmd *cobra.Command, args []string) error { return runSign(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "write the signed bundle to `FILE` (required; may be the input with --force)")
	fl.BoolVar(&f.force, "force", false, "overwrite OUT if it exists")
	fl.StringVar(&f.keyRef, "key", "", "signing key: PEM `FILE`, env:NAME, KMS URI or pkcs11: URI")
	fl.StringVar(&f.keyID, "key-id", "", "the signing key's `ID`")
	fl.BoolVar(&f.asVerifier, "as-verifier", false, "countersign as the independent verifier (verifierSignature)")
	fl.StringArrayVar(&f.hostPub, "host-pub", nil, "host public key to check the host signature with (PEM `FILE` or raw)")
	fl.StringArrayVar(&f.verifierPb, "verifier-pub", nil, "verifier public key to check a verifierSignature with (PEM `FILE` or raw)")
	fl.StringVar(&f.registry, "registry", "", "v2 profile registry `FILE` for the self-check")
	fl.BoolVar(&f.json, "json", false, "print the self-check verdict as JSON")
	fl.StringArrayVar(&f.secrets, "secret", nil, "a secret `VALUE` that must not be published (repeatable; prefer --secret-env)")
	fl.StringArrayVar(&f.secretEnvs, "secret-env", nil, "the value of environment variable `NAME` must not be published (repeatable)")
	f.tsa.register(cmd, "also ask this Time-Stamp Authority (`URL`, RFC 3161) for a token of the signature made, written beside OUT as OUT.tsr (OUT.verifier.tsr with --as-verifier); docs/timestamps.md")
	return cmd
}

// signReport is what sign prints with --json: the self-check verdict of the file
// written (OUT, or OUT.rejected.json when refused) and where secrets were scrubbed.
type signReport struct {
	fileVerdict
	Redacted []string `json:"redacted"`
	// Timestamps are the RFC 3161 tokens written beside OUT (--tsa).
	Timestamps []stampedFile `json:"timestamps,omitempty"`
}

// runSign checks the flags, loads the key, reads the bundle, keeps secrets out of
// it, signs, self-checks and writes. No message it returns quotes a secret: its
// error is scrubbed of every secret known by then (scrubError).
func runSign(cmd *cobra.Command, f signFlags, file string) (err error) {
	var secrets []string
	defer func() { err = scrubError(err, secrets) }()
	if f.out == "" {
		return usageErrorf("sign: --out FILE is required")
	}
	if f.keyRef == "" || f.keyID == "" {
		return usageErrorf("sign: --key and --key-id are required")
	}
	if !keys.KeyIDPattern.MatchString(f.keyID) {
		return usageErrorf("sign: key id %q does not match %s", f.keyID, keys.KeyIDPattern)
	}
	if !f.force {
		if _, err := os.Lstat(f.out); err == nil {
			return usageErrorf("%s already exists; pass --force to overwrite it", f.out)
		}
	}
	tsaRole := timestamp.HostRole
	if f.asVerifier {
		tsaRole = timestamp.VerifierRole
	}
	if f.tsa.url != "" {
		if err := refuseExistingTokens(f.out, f.force, tsaRole); err != nil {
			return err
		}
	}
	tsaTrust, err := f.tsa.check("sign")
	if err != nil {
		return err
	}
	given, err := secretValues("sign", f.secrets, f.secretEnvs)
	if err != nil {
		return err
	}
	env := os.Environ()
	secrets = mint.Secrets(given, env, nil, f.keyID)
	data, err := readInput("bundle", file, limitedfile.MaxBundle)
	if err != nil {
		return err
	}
	reg, err := loadRegistry(f.registry)
	if err != nil {
		return err
	}
	hostKeys, err := loadKeyArgs("--host-pub", f.hostPub)
	if err != nil {
		return err
	}
	verifierKeys, err := loadKeyArgs("--verifier-pub", f.verifierPb)
	if err != nil {
		return err
	}
	signer, err := loadSigner(cmd.Context(), "--key", f.keyRef)
	if err != nil {
		return err
	}
	defer signer.Close()
	secrets = mint.Secrets(given, env, signer.PEM, f.keyID)

	b, problems, err := bundle.Parse(data)
	if err != nil {
		return inputError(fmt.Errorf("%s: not a bundle: the file is not valid I-JSON: %v", file, err))
	}
	// Secrets before anything else is said about the content: a problem quotes it.
	scrubbed, redacted, err := mint.ScrubUnbound(b.Raw, secrets)
	var inSigned *mint.SecretInSignedError
	if errors.As(err, &inSigned) {
		return inputError(fmt.Errorf("sign: %s: %w", file, err))
	}
	for _, p := range problems {
		if p.Pointer != "/signature" {
			return inputError(fmt.Errorf("%s: not a well-formed bundle: %s", file, p))
		}
	}
	if len(redacted) > 0 {
		decoded, problems := bundle.Decode(scrubbed)
		for _, p := range problems {
			if p.Pointer != "/signature" {
				return inputError(fmt.Errorf("sign: %s: scrubbing a secret from an unsigned member broke the bundle at %s (%s); re-mint it with the secret kept out", file, p.Pointer, p.Message))
			}
		}
		b = decoded
	}

	tolerated := mint.Tolerated
	role := "host"
	if f.asVerifier {
		role = "independent verifier"
		if b.VerifierSignature != nil {
			return usageErrorf("sign: %s already carries a verifierSignature (by %s)", file, b.VerifierSignature.KeyID)
		}
		if err := keys.CountersignBundle(b, signer, f.keyID); err != nil {
			return signError("sign", err)
		}
		verifierKeys = append(keys.Set{signer.Key(f.keyID)}, verifierKeys...)
		if b.Signature == nil {
			tolerated = append(append([]verify.Kind(nil), tolerated...), verify.KindSignatureMissing)
		}
	} else {
		if b.Signature != nil {
			return usageErrorf("sign: %s is already signed by %s; sign the unsigned bundle 'bundle mint --unsigned' wrote", file, b.Signature.KeyID)
		}
		if b.Host.SigningKeyID != "" && b.Host.SigningKeyID != f.keyID {
			return usageErrorf("sign: --key-id %s is not the bundle's host.signingKeyId %s; sign with the key the bundle names", f.keyID, b.Host.SigningKeyID)
		}
		if err := keys.SignBundle(b, signer, f.keyID); err != nil {
			return signError("sign", err)
		}
		hostKeys = append(keys.Set{signer.Key(f.keyID)}, hostKeys...)
	}
	out, err := mint.Encode(b)
	if err != nil {
		return mintError(err)
	}
	verdict, checkErr := mint.SelfCheck(out, hostKeys, verifierKeys, reg, tolerated)
	var stamped []stampedFile
	report := func(path string) {
		if redacted == nil {
			redacted = []string{}
		}
		printJSON(cmd.OutOrStdout(), signReport{fileVerdict{File: path, ExitCode: verdict.ExitCode(), Verdict: verdict}, redacted, stamped})
	}
	var refused *mint.RefusedError
	if errors.As(checkErr, &refused) {
		rejected, err := refuse("sign", f.out, out, refused, "")
		if rejected != "" && f.json {
			report(rejected)
		}
		return err
	}
	if checkErr != nil {
		return selfCheckError("sign", checkErr)
	}
	if f.tsa.url != "" {
		if stamped, err = f.tsa.stamp(cmd.Context(), "sign", b, f.out, tsaTrust, tsaRole); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(f.out, out, 0o644, f.force); err != nil {
		var exists *atomicfile.ExistsError
		if errors.As(err, &exists) {
			return usageErrorf("%v", err)
		}
		return inputError(fmt.Errorf("sign: writing %s: %w", f.out, err))
	}
	if err := writeTokens("sign", stamped, f.force); err != nil {
		return err
	}
	warnStaleTokens(cmd.ErrOrStderr(), f.out, b, stamped)
	if f.json {
		report(f.out)
		return nil
	}
	fmt.Fprintf(cmd.OutOrStdout(), "bundle sign: wrote %s (signed by %s as %s; witness %s; self-check: %s)\n",
		f.out, f.keyID, role, prefix(b.WitnessSha256, 12), selfCheckWords(verdict))
	if len(redacted) > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "redacted:  %d place(s) in unsigned members: %s\n", len(redacted), strings.Join(redacted, ", "))
	}
	for _, u := range verdict.Unverified {
		fmt.Fprintf(cmd.OutOrStdout(), "  · %s\n", u)
	}
	for _, t := range stamped {
		fmt.Fprintf(cmd.OutOrStdout(), "timestamp: %s\n", render.Inline(tokenLine(t)))
	}
	return nil
}
