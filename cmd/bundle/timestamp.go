package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/timestamp"
	"github.com/spf13/cobra"
)

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
	fl.StringArrayVar(&t.certs, "tsa-cert", nil, "check the reply under this TSA certificate (PEM `file` of the TSA's or its CA's; repeatable) before writing it")
	fl.DurationVar(&t.timeout, "tsa-timeout", timestamp.DefaultTimeout, "give up on the TSA after this `duration`")
}

// check refuses bad flags before any work: a TSA URL certcut will not ask, a
// timeout that is not positive, an unreadable --tsa-cert.
func (t *tsaFlags) check(name string) (*timestamp.Trust, error) {
	if t.url == "" {
		if len(t.certs) > 0 {
			return nil, usageErrorf("%s: --tsa-cert checks the reply of --tsa URL; give --tsa too", name)
		}
		return nil, nil
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

// stampedFile is one token asked for, before it is written.
type stampedFile struct {
	Path     string `json:"file"`
	Role     string `json:"signature"`
	Time     string `json:"time"`
	Accuracy string `json:"accuracy,omitempty"`
	TSA      string `json:"tsa"`
	// TrustedBy is the --tsa-cert certificate the token chains to; "" when no
	// --tsa-cert was given, and the reply was checked for form and imprint only.
	TrustedBy string `json:"trustedBy,omitempty"`
	reply     []byte
}

// stamp asks the TSA for a token of each role's signature of b, to be written
// beside out. Nothing is written here: a command writes its bundle and the
// tokens only when every token came.
func (t *tsaFlags) stamp(ctx context.Context, name string, b *bundle.Bundle, out string, trust *timestamp.Trust, roles ...timestamp.Role) ([]stampedFile, error) {
	client := &http.Client{
		Timeout:       t.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var files []stampedFile
	for _, role := range roles {
		sig, err := timestamp.SignatureOf(b, role)
		if err != nil {
			return nil, inputError(fmt.Errorf("%s: %s: %w", name, out, err))
		}
		st, err := timestamp.Stamp(ctx, t.url, sig, trust, client)
		if err != nil {
			return nil, inputError(fmt.Errorf("%s: %s signature of %s: %w; nothing written", name, role, out, err))
		}
		f := stampedFile{Path: timestamp.FileFor(out, role), Role: string(role), Time: st.Token.Time.Format(time.RFC3339Nano),
			TSA: st.Token.TSA, TrustedBy: st.Token.Anchor, reply: st.Reply}
		if st.Token.Accuracy > 0 {
			f.Accuracy = st.Token.Accuracy.String()
		}
		files = append(files, f)
	}
	return files, nil
}

// refuseExistingTokens is the --force pre-check for token files.
func refuseExistingTokens(out string, force bool, roles ...timestamp.Role) error {
	if force {
		return nil
	}
	for _, role := range roles {
		if p := timestamp.FileFor(out, role); exists(p) {
			return usageErrorf("%s already exists; pass --force to overwrite it", p)
		}
	}
	return nil
}

// writeTokens writes each token atomically beside its bundle.
func writeTokens(name string, files []stampedFile, force bool) error {
	for _, f := range files {
		if err := atomicfile.Write(f.Path, f.reply, 0o644, force); err != nil {
			var ex *atomicfile.ExistsError
			if errors.As(err, &ex) {
				return usageErrorf("%v", err)
			}
			return inputError(fmt.Errorf("%s: writing %s: %w", name, f.Path, err))
		}
	}
	return nil
}

// tokenLine says what a written token holds.
func tokenLine(f stampedFile) string {
	trust := "not checked against a --tsa-cert"
	if f.TrustedBy != "" {
		trust = "trusted through " + f.TrustedBy
	}
	acc := ""
	if f.Accuracy != "" {
		acc = ", accuracy " + f.Accuracy
	}
	return fmt.Sprintf("wrote %s (%s signature; %s by TSA %s%s; %s)", f.Path, f.Role, f.Time, f.TSA, acc, trust)
}

// warnStaleTokens warns about a token beside out, left from an earlier bundle,
// that does not stamp the signatures of the bundle just written: verify would
// reject it (timestamp-imprint).
func warnStaleTokens(stderr io.Writer, out string, b *bundle.Bundle, written []stampedFile) {
	for _, role := range []timestamp.Role{timestamp.HostRole, timestamp.VerifierRole} {
		path := timestamp.FileFor(out, role)
		fresh := false
		for _, f := range written {
			fresh = fresh || f.Path == path
		}
		f, err := timestamp.ReadBeside(path)
		if fresh || err != nil || f == nil {
			continue
		}
		sig, err := timestamp.SignatureOf(b, role)
		if err == nil {
			_, err = timestamp.Check(f.Reply, sig, nil)
		}
		var te *timestamp.Error
		if err != nil && (!errors.As(err, &te) || te.Problem == timestamp.WrongImprint || te.Problem == timestamp.Malformed) {
			fmt.Fprintf(stderr, "bundle: warning: %s is left from another bundle: it does not stamp the %s signature just written, and verify will reject it; remove it, or ask for a new one with bundle timestamp --force\n", path, role)
		}
	}
}

type timestampOptions struct {
	tsa      tsaFlags
	verifier bool
	force    bool
	json     bool
}

func newTimestampCmd() *cobra.Command {
	var o timestampOptions
	cmd := &cobra.Command{
		Use:   "timestamp --tsa URL [--tsa-cert PEM]... [--verifier] FILE...",
		Short: "Ask an RFC 3161 Time-Stamp Authority to vouch for when a bundle was signed; write FILE.tsr",
		Long: `timestamp asks a Time-Stamp Authority (RFC 3161 over HTTP) for a token over
each bundle's host signature — the SHA-256 of the decoded signature.sig, with a
nonce it checks — and writes the TSA's reply beside the bundle as FILE.tsr.
With --verifier it stamps the independent verifier's countersignature instead
(verifierSignature.sig) and writes FILE.verifier.tsr.

The bundle is not changed. verify, show, report, census, diff and the gates read
the token beside it; with --tsa-cert naming the TSA's certificate they take the
token's time as the signing time, and judge the signing key's retirement by it
(docs/timestamps.md). Any RFC 3161 TSA works, a public one or your own.

Before it is written, the reply is checked: its form, its nonce, its imprint and
the signer's time-stamping usage; with --tsa-cert also the chain to that
certificate.

Exit codes: 0 written; 3 a bundle cannot be read or has no such signature, the
TSA cannot be reached, answers an error, or its reply fails a check (nothing
written for that bundle); 4 usage (FILE.tsr exists without --force, a bad URL).`,
		Example: `  bundle timestamp --tsa https://tsa.example/tsr --tsa-cert tsa-ca.pem evidence/v2-host-bundles/host.json
  bundle verify --host-key keys/ --tsa-cert tsa-ca.pem evidence/v2-host-bundles/host.json
  bundle timestamp --verifier --tsa https://tsa.example/tsr countersigned.json`,
		Args: minArgs(1, "at least one signed bundle FILE"),
		RunE: func(cmd *cobra.Command, args []string) error { return runTimestamp(cmd, &o, args) },
	}
	o.tsa.register(cmd, "the Time-Stamp Authority's `URL` (RFC 3161 over HTTP; required)")
	fl := cmd.Flags()
	fl.BoolVar(&o.verifier, "verifier", false, "stamp the verifier signature (verifierSignature) and write FILE.verifier.tsr")
	fl.BoolVar(&o.force, "force", false, "overwrite a token file that exists")
	fl.BoolVar(&o.json, "json", false, "print what was written as JSON")
	return cmd
}

func runTimestamp(cmd *cobra.Command, o *timestampOptions, files []string) error {
	if o.tsa.url == "" {
		return usageErrorf("timestamp: --tsa URL is required: the Time-Stamp Authority to ask (any RFC 3161 TSA)")
	}
	role := timestamp.HostRole
	if o.verifier {
		role = timestamp.VerifierRole
	}
	for _, file := range files {
		if file == "-" {
			return usageErrorf("timestamp: the token is written beside the bundle, so the bundle must be a file, not standard input")
		}
		if err := refuseExistingTokens(file, o.force, role); err != nil {
			return err
		}
	}
	trust, err := o.tsa.check("timestamp")
	if err != nil {
		return err
	}
	var written []stampedFile
	for _, file := range files {
		data, err := bundle.ReadFile(file)
		if err != nil {
			return inputError(fmt.Errorf("timestamp: %s: %s", file, describeReadError(err)))
		}
		b, _, err := bundle.Parse(data)
		if err != nil {
			return inputError(fmt.Errorf("timestamp: %s: %s", file, describeReadError(err)))
		}
		got, err := o.tsa.stamp(cmd.Context(), "timestamp", b, file, trust, role)
		if err != nil {
			return err
		}
		if err := writeTokens("timestamp", got, o.force); err != nil {
			return err
		}
		written = append(written, got...)
		if !o.json {
			fmt.Fprintf(render.SafeWriter(cmd.OutOrStdout()), "bundle timestamp: %s\n", render.Inline(tokenLine(got[0])))
		}
	}
	if o.json {
		return writeJSON(cmd.OutOrStdout(), written)
	}
	return nil
}
