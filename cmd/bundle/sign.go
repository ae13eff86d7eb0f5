package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/timestamp"
	"github.com/spf13/cobra"
)

type signOptions struct {
	out                    output
	file, keyRef, keyID    string
	asVerifier, force      bool
	unpublishedKey         bool
	hostKeys, verifierKeys []string
	registry               string
	secrets, secretEnvs    []string
	tsa                    tsaFlags
}

func newSignCmd() *cobra.Command {
	var o signOptions
	cmd := command("sign", "sign --key KEY --key-id ID --out OUT [--as-verifier] FILE",
		"Sign an assembled bundle as its host, or countersign it as an independent verifier",
		exactArgs(1, "exactly one bundle FILE"), func(cmd *cobra.Command, args []string) error { return runSign(cmd, &o, args[0]) })
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	fl := cmd.Flags()
	fl.StringVarP(&o.file, "out", "o", "", "write the signed bundle to `FILE` (required; may be the input with --force; - for standard output)")
	fl.BoolVar(&o.force, "force", false, "overwrite OUT if it exists")
	fl.StringVar(&o.keyRef, "key", "", "signing key: `PEM|env:NAME|KMS-URI|pkcs11:URI`")
	fl.StringVar(&o.keyID, "key-id", "", "the signing key's `ID`")
	fl.BoolVar(&o.asVerifier, "as-verifier", false, "countersign as the independent verifier (verifierSignature)")
	fl.BoolVar(&o.unpublishedKey, "unpublished-key", false, "sign as host with a key the bundle's discovery document does not publish under --key-id (a key not yet published); without it such a key is refused")
	fl.StringArrayVar(&o.hostKeys, "host-key", nil, "trusted host key `PEM|DIR|BASE64URL` to check the host signature with (repeatable)")
	fl.StringArrayVar(&o.verifierKeys, "verifier-key", nil, "trusted verifier key `PEM|DIR|BASE64URL` to check a verifierSignature with (repeatable)")
	fl.StringVar(&o.registry, "registry", "", "v2 profile registry `FILE` for the self-check")
	fl.StringArrayVar(&o.secrets, "secret", nil, "a secret `VALUE` that must not be published (repeatable; prefer --secret-env)")
	fl.StringArrayVar(&o.secretEnvs, "secret-env", nil, "the value of environment variable `NAME` must not be published (repeatable)")
	o.tsa.register(cmd, "also ask this Time-Stamp Authority (`URL`, RFC 3161) for a token of the signature made, written beside OUT as OUT.tsr (OUT.verifier.tsr with --as-verifier); docs/timestamps.md")
	// --host-pub and --verifier-pub are the older spellings of --host-key and --verifier-key.
	fl.SetNormalizeFunc(aliases(map[string]string{"host-pub": "host-key", "verifier-pub": "verifier-key"}))
	return cmd
}

// runSign checks the flags, loads the key, reads the bundle and signs it
// (mint.SignFile: secrets kept out, signed, self-checked), then writes it. No
// message it returns quotes a secret: its error is scrubbed of every secret known
// by then.
func runSign(cmd *cobra.Command, o *signOptions, file string) (err error) {
	var secrets []string
	defer func() { err = scrubError(err, secrets) }()
	switch {
	case o.file == "":
		return usageErrorf("sign: --out FILE is required")
	case o.keyRef == "" || o.keyID == "":
		return usageErrorf("sign: --key and --key-id are required")
	case !keys.KeyIDPattern.MatchString(o.keyID):
		return usageErrorf("sign: key id %q does not match %s", o.keyID, keys.KeyIDPattern)
	case o.file == limitedfile.Stdin && o.tsa.url != "":
		return usageErrorf("sign: --tsa writes its token beside the bundle, so --out must be a file, not - (standard output)")
	case o.asVerifier && o.unpublishedKey:
		return usageErrorf("sign: --unpublished-key is about the host's key; a verifier's key is not published in the host's discovery document, so drop it with --as-verifier")
	}
	if err := refuseExisting(o.force, o.file); err != nil {
		return err
	}
	role := timestamp.HostRole
	if o.asVerifier {
		role = timestamp.VerifierRole
	}
	tsaTrust, err := o.tsa.check("sign", o.file, o.force, role)
	if err != nil {
		return err
	}
	given, err := secretValues("sign", o.secrets, o.secretEnvs)
	if err != nil {
		return err
	}
	env := os.Environ()
	secrets = mint.Secrets(given, env, nil, o.keyID)
	data, err := limitedfile.ReadArg(file, cmd.InOrStdin(), limitedfile.MaxBundle)
	if err != nil {
		return inputError(fmt.Errorf("bundle %s: %s", file, describeReadError(err)))
	}
	job := mint.SignJob{Data: data, Name: file, KeyID: o.keyID, AsVerifier: o.asVerifier}
	if job.Registry, err = profiles.LoadOrDefault(o.registry); err != nil {
		return inputError(err)
	}
	if job.HostKeys, err = loadKeyArgs("--host-key", o.hostKeys); err != nil {
		return err
	}
	if job.VerifierKeys, err = loadKeyArgs("--verifier-key", o.verifierKeys); err != nil {
		return err
	}
	if job.Signer, err = loadSigner(cmd.Context(), cmd, "--key", o.keyRef); err != nil {
		return err
	}
	defer job.Signer.Close()
	job.Secrets = mint.CollectSecrets(given, env, job.Signer.PEM, o.keyID)
	secrets = job.Secrets.Values
	job.UnpublishedKey = o.unpublishedKey

	signed, err := mint.SignFile(job)
	var (
		syn      *bundle.SyntaxError
		inSigned *mint.SecretInSignedError
		already  *mint.AlreadySignedError
		mismatch *mint.KeyIDMismatchError
		signing  *mint.SigningError
		refused  *mint.RefusedError
		encoding *mint.EncodingError
		unpub    *mint.UnpublishedKeyError
	)
	switch {
	case errors.As(err, &syn):
		return inputError(fmt.Errorf("%s: not a bundle: the file is not valid I-JSON: %v", file, syn))
	case errors.As(err, &inSigned):
		return inputError(fmt.Errorf("sign: %w", err))
	case errors.As(err, &already):
		return usageErrorf("sign: %v", err)
	case errors.As(err, &mismatch):
		return usageErrorf("sign: --key-id %s is not the bundle's host.signingKeyId %s; sign with the key the bundle names", mismatch.Given, mismatch.Bundle)
	case errors.As(err, &unpub):
		return inputError(fmt.Errorf("sign: %s: %w; nothing written", file, err))
	case errors.As(err, &signing):
		return signError("sign", signing.Err)
	case errors.As(err, &encoding):
		return selfCheckError("sign", err)
	case errors.As(err, &refused):
		rejected, err := refuse("sign", o.file, signed.Data, refused, "")
		if rejected != "" && !o.out.text() {
			render.WriteJSON(cmd.OutOrStdout(), render.SignReport{File: rejected, ExitCode: signed.Verdict.ExitCode(), Verdict: signed.Verdict, Redacted: signed.Redacted})
		}
		return err
	case err != nil:
		return inputError(err)
	}
	rep := render.SignReport{File: o.file, ExitCode: signed.Verdict.ExitCode(), Verdict: signed.Verdict, Redacted: signed.Redacted,
		LeftAlone: signed.LeftAlone, KeyNotPublished: signed.KeyNotPublished, Signer: o.keyID, Role: signed.Role, Witness: signed.Bundle.WitnessSha256}
	if o.tsa.url != "" {
		if rep.Timestamps, err = o.tsa.stamp(cmd.Context(), "sign", signed.Bundle, o.file, tsaTrust, role); err != nil {
			return err
		}
	}
	if err := writeOut(cmd.OutOrStdout(), "sign", o.file, signed.Data, o.force); err != nil {
		return err
	}
	if err := o.tsa.write("sign", rep.Timestamps, o.force); err != nil {
		return err
	}
	out := reportWriter(cmd, o.file)
	if o.file != limitedfile.Stdin {
		warnStaleTokens(cmd, o.file, signed.Bundle, rep.Timestamps)
	}
	switch {
	case !o.out.text():
		return render.WriteJSON(out, rep)
	case o.out.quiet:
		return nil
	}
	return render.WriteSign(out, &rep)
}
