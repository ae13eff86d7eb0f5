package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

type verifyAttestationOptions struct {
	keys          []string
	subjectDigest string
	predicateType string
	json          bool
}

func newVerifyAttestationCmd() *cobra.Command {
	var o verifyAttestationOptions
	cmd := &cobra.Command{
		Use:   "verify-attestation FILE --key PEM [--subject-digest ALG:HEX] [--predicate-type URI]",
		Short: "Check a DSSE attestation: signature over PAE, in-toto statement, subject",
		Long: `verify-attestation checks a DSSE envelope that 'bundle attest' or 'bundle gate
accepted --attest' wrote (or any in-toto attestation):

  - the signature, over the DSSE pre-authentication encoding of payloadType and
    payload, under the key given with --key: the key named by the signature's keyid
    (a <keyId>.pub.pem file or a directory of them), else the only key given
  - the payload: an in-toto Statement v1, valid by the in-toto bindings; a VSA has
    verifier.id, timeVerified, resourceUri, policy.uri, verificationResult and
    verifiedLevels; a bundle predicate is a bundle v3 whose host.build is a subject
  - with --subject-digest ALG:HEX, that a subject carries that digest (sha256:… of
    the bundle file or the image, gitCommit:… of the build)
  - with --predicate-type, the predicate type (a URI, or vsa / bundle)

A VSA that records FAILED is REJECTED: it is authentic, and says no.

  VERIFIED — the signature verifies under a trusted key and every check holds     exit 0
  REJECTED — one [kind] line per problem                                         exit 1
  COHERENT, NOT INDEPENDENTLY VERIFIED — every check holds, but no trusted key   exit 2
             checked the signature (no --key, or none named by its keyid)
  (file missing, unreadable, not JSON, over 32 MiB)                              exit 3

A usage error exits 4. docs/attestations.md says what each predicate states.`,
		Example: `  bundle verify-attestation --key attestor.pub.pem demo-host.vsa.json
  bundle verify-attestation --key keys/ --subject-digest sha256:$(sha256sum image.tar | cut -c1-64) att.json
  bundle verify-attestation --key attestor.pub.pem --predicate-type vsa --json att.json | jq .vsa.verifiedLevels`,
		Annotations: map[string]string{annotationPublicKey: "true"},
		Args:        exactArgs(1, "exactly one attestation FILE"),
		RunE:        func(cmd *cobra.Command, args []string) error { return runVerifyAttestation(cmd, o, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.keys, "key", nil, "the attestor's public key: PEM `file`, directory of <keyId>.pub.pem, or raw base64url (repeatable)")
	fl.StringVar(&o.subjectDigest, "subject-digest", "", "require a subject with this digest, `ALG:HEX` (sha256:…, gitCommit:…)")
	fl.StringVar(&o.predicateType, "predicate-type", "", "require this predicate type: a `URI`, or vsa / bundle")
	fl.BoolVar(&o.json, "json", false, "print the result as JSON")
	return cmd
}

func runVerifyAttestation(cmd *cobra.Command, o verifyAttestationOptions, file string) error {
	p := attest.Policy{SubjectDigest: o.subjectDigest, PredicateType: o.predicateType}
	if t, ok := predicateTypes[o.predicateType]; ok {
		p.PredicateType = t
	}
	if o.subjectDigest != "" {
		if _, _, err := attest.ParseSubjectDigest(o.subjectDigest); err != nil {
			return usageErrorf("verify-attestation: --subject-digest: %v", err)
		}
	}
	var err error
	if p.Keys, err = loadKeyArgs("--key", o.keys); err != nil {
		return err
	}
	data, err := limitedfile.Read(file, attest.MaxEnvelope)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return inputError(fmt.Errorf("verify-attestation: %s: no such file", file))
		}
		return inputError(fmt.Errorf("verify-attestation: %w", err))
	}
	res, err := attest.Verify(data, p)
	if err != nil {
		var syn *bundle.SyntaxError
		if errors.As(err, &syn) {
			return inputError(fmt.Errorf("verify-attestation: %s: not an attestation: the file is not valid I-JSON: %v", file, syn))
		}
		return inputError(fmt.Errorf("verify-attestation: %s: %w", file, err))
	}
	if o.json {
		printJSON(cmd.OutOrStdout(), res)
	} else {
		writeAttestationResult(cmd.OutOrStdout(), file, res)
	}
	return exitFor(res.ExitCode())
}

// writeAttestationResult prints a result for people. Everything read from the
// attestation is escaped (render.Inline): it is the signer's text, and until the
// signature is checked, anyone's.
func writeAttestationResult(w io.Writer, file string, r *attest.Result) {
	fmt.Fprintf(w, "attestation: %s\n", render.Inline(file))
	if r.PredicateType != "" {
		fmt.Fprintf(w, "statement:   %s (%s)\n", render.Inline(r.PredicateType), render.Inline(r.StatementType))
	}
	for _, s := range r.Subjects {
		fmt.Fprintf(w, "subject:     %s (%s)\n", render.Inline(s.Name), digestWords(s.Digest))
	}
	for _, s := range r.Signatures {
		state := "not checked: " + s.Note
		switch {
		case s.Key != nil && s.Verified:
			state = fmt.Sprintf("verifies under %s from %s %s", s.Key.Fingerprint, s.Key.Source, render.Inline(s.Key.Origin))
		case s.Key != nil:
			state = fmt.Sprintf("DOES NOT VERIFY under %s from %s %s", s.Key.Fingerprint, s.Key.Source, render.Inline(s.Key.Origin))
		}
		fmt.Fprintf(w, "signature:   keyid %s · %s\n", render.Inline(orDash(s.KeyID)), render.Inline(state))
	}
	if v := r.VSA; v != nil {
		fmt.Fprintf(w, "vsa:         %s by %s at %s\n", render.Inline(orDash(v.Result)), render.Inline(orDash(v.Verifier)), render.Inline(orDash(v.TimeVerified)))
		fmt.Fprintf(w, "resource:    %s\n", render.Inline(orDash(v.ResourceURI)))
		fmt.Fprintf(w, "policy:      %s", render.Inline(orDash(v.Policy)))
		if len(v.PolicyDigest) > 0 {
			fmt.Fprintf(w, " (%s)", digestWords(v.PolicyDigest))
		}
		fmt.Fprintln(w)
		for _, in := range v.Inputs {
			fmt.Fprintf(w, "input:       %s (%s)\n", render.Inline(in.Name), digestWords(in.Digest))
		}
		levels := make([]string, len(v.Levels))
		for i, l := range v.Levels {
			levels[i] = render.Inline(l)
		}
		fmt.Fprintf(w, "levels:      %s\n", listOrNone(levels))
	}
	if r.BundleVerdict != "" {
		fmt.Fprintf(w, "bundle:      the attestor judged it %s (the predicate is the bundle itself)\n", render.Inline(r.BundleVerdict))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note:        %s\n", render.Inline(n))
	}
	switch r.Outcome {
	case verify.Verified:
		fmt.Fprintln(w, "VERIFIED — the signature verifies under a trusted key, the statement is valid, every check holds.")
	case verify.Rejected:
		fmt.Fprintf(w, "REJECTED — %d problem%s:\n", len(r.Problems), plural(len(r.Problems)))
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  [%s] %s\n", p.Kind, render.Inline(p.Detail))
		}
	default:
		fmt.Fprintln(w, "COHERENT, NOT INDEPENDENTLY VERIFIED — every check holds, but:")
		for _, u := range r.Unverified {
			fmt.Fprintf(w, "  · %s\n", render.Inline(u))
		}
	}
}
