package main

// What the commands that sign (mint, sign, timestamp, attest) share: signers,
// secrets, refusals and time-stamp tokens.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/timestamp"
	"github.com/spf13/cobra"
)

// Exit code of mint and sign when the self-check refuses the bundle.
const exitRefused = 2

// loadSigner loads a signing key reference (keys.LoadSigner: a PEM file, env:NAME,
// a KMS URI, a pkcs11: URI); every failure is an unreadable input. A KMS or token
// key's calls are bounded by the command's --kms-timeout (root.go) and, while it
// loads, by ctx. The caller closes the signer (a token key holds a session).
// Messages show ref only as keys.ShownRef does: never a pin-value or a URI's
// secret.
func loadSigner(ctx context.Context, cmd *cobra.Command, flag, ref string) (*keys.Signer, error) {
	s, err := keys.LoadSigner(ctx, ref, kmsTimeout(cmd))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, inputError(fmt.Errorf("%s %s: no such key file (create one with 'bundle keys generate')", flag, keys.ShownRef(ref)))
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

// mintError maps mint's typed errors to exit codes.
func mintError(err error) error {
	var ue *mint.UsageError
	var se *mint.SigningError
	var ee *mint.EncodingError
	switch {
	case errors.As(err, &se):
		return signError("mint", se.Err)
	case errors.As(err, &ee):
		return selfCheckError("mint", err)
	case errors.As(err, &ue):
		return usageErrorf("mint: %v", err)
	}
	return inputError(fmt.Errorf("mint: %w", err))
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
// be written. With OUT "-" (standard output) nothing is written: "" and exit 2.
func refuse(name, out string, data []byte, refused *mint.RefusedError, hint string) (string, error) {
	if out == "-" {
		return "", &exitError{code: exitRefused, err: fmt.Errorf("%s refused to write the bundle: %v; nothing written%s", name, refused, hint)}
	}
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

// tsaFlags are the flags of a command that asks a Time-Stamp Authority for
// tokens: timestamp itself, and mint and sign with --tsa.
type tsaFlags struct {
	url     string
	certs   []string
	timeout time.Duration
}

func (t *tsaFlags) register(cmd *cobra.Command, urlUsage string) {
	fl := cmd.Flags()
	fl.StringVar(&t.url, "tsa", "", urlUsage)
	fl.StringArrayVar(&t.certs, "tsa-cert", nil, "check the reply under this TSA certificate (`PEM` file of the TSA's or its CA's; repeatable) before writing it")
	fl.DurationVar(&t.timeout, "tsa-timeout", timestamp.DefaultTimeout, "give up on the TSA after this `DURATION`")
}

// check refuses bad flags before any work: token files beside out that exist
// (without force), a TSA URL certcut will not ask, a timeout that is not
// positive, an unreadable --tsa-cert.
func (t *tsaFlags) check(name, out string, force bool, roles ...timestamp.Role) (*timestamp.Trust, error) {
	if t.url == "" {
		if len(t.certs) > 0 {
			return nil, usageErrorf("%s: --tsa-cert checks the reply of --tsa URL; give --tsa too", name)
		}
		return nil, nil
	}
	for _, role := range roles {
		if err := refuseExisting(force, timestamp.FileFor(out, role)); err != nil {
			return nil, err
		}
	}
	if err := timestamp.CheckURL(t.url); err != nil {
		return nil, usageErrorf("%s: --tsa: %v", name, err)
	}
	if t.timeout <= 0 {
		return nil, usageErrorf("%s: --tsa-timeout must be positive", name)
	}
	if len(t.certs) == 0 {
		return nil, nil
	}
	trust, err := timestamp.LoadTrust(t.certs...)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: --tsa-cert: %w", name, err))
	}
	return trust, nil
}

// stamp asks the TSA for a token of each role's signature of b, to be written
// beside out (timestamp.StampBeside); nothing is written here.
func (t *tsaFlags) stamp(ctx context.Context, name string, b *bundle.Bundle, out string, trust *timestamp.Trust, roles ...timestamp.Role) ([]timestamp.Written, error) {
	files, err := timestamp.StampBeside(ctx, t.url, t.timeout, b, out, trust, roles...)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %w", name, err))
	}
	return files, nil
}

// write writes the tokens beside their bundle.
func (t *tsaFlags) write(name string, files []timestamp.Written, force bool) error {
	err := timestamp.WriteBeside(files, force)
	var ex *atomicfile.ExistsError
	switch {
	case errors.As(err, &ex):
		return usageErrorf("%v", ex)
	case err != nil:
		return inputError(fmt.Errorf("%s: %w", name, err))
	}
	return nil
}

// warnStaleTokens warns about a token beside out, left from an earlier bundle,
// that does not stamp the signatures of b, just written: verify would reject it.
func warnStaleTokens(cmd *cobra.Command, out string, b *bundle.Bundle, written []timestamp.Written) {
	for _, s := range timestamp.FindStale(out, b, written) {
		fmt.Fprintf(cmd.ErrOrStderr(), "bundle: warning: %s is left from another bundle: it does not stamp the %s signature just written, and verify will reject it; remove it, or ask for a new one with bundle timestamp --force\n", render.Inline(s.Path), s.Role)
	}
}
