package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

type verifyAttestationOptions struct {
	out           output
	keys          []string
	subjectDigest string
	predicateType string
}

func newVerifyAttestationCmd() *cobra.Command {
	var o verifyAttestationOptions
	cmd := command("verify-attestation", "verify-attestation --key KEY [--subject-digest ALG:HEX] [--predicate-type TYPE] FILE",
		"Check a DSSE attestation: signature over PAE, in-toto statement, subject",
		exactArgs(1, "exactly one attestation FILE"), func(cmd *cobra.Command, args []string) error { return runVerifyAttestation(cmd, &o, args[0]) })
	cmd.Annotations = map[string]string{annotationPublicKey: "true"}
	addOutput(cmd, &o.out, true, render.Text, render.JSON)
	fl := cmd.Flags()
	stringsVar(fl, &o.keys, "key", "the attestor's public key `PEM|DIR|BASE64URL`: a PEM file, a directory of <keyId>.pub.pem, or a raw base64url key (repeatable)")
	fl.StringVar(&o.subjectDigest, "subject-digest", "", "require a subject with this digest, `ALG:HEX` (sha256:…, gitCommit:…)")
	fl.StringVar(&o.predicateType, "predicate-type", "", "require this predicate type: a `URI`, or vsa / bundle")
	return cmd
}

func runVerifyAttestation(cmd *cobra.Command, o *verifyAttestationOptions, file string) error {
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
	data, err := limitedfile.ReadArg(file, cmd.InOrStdin(), attest.MaxEnvelope)
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
	stdout := cmd.OutOrStdout()
	switch {
	case !o.out.text():
		err = render.WriteJSON(stdout, res)
	case o.out.quiet:
		if res.ExitCode() != 0 {
			err = render.WriteAttestationResult(stdout, file, res, useColor(stdout))
		}
	default:
		err = render.WriteAttestationResult(stdout, file, res, useColor(stdout))
	}
	if err != nil {
		return err
	}
	return exitFor(res.ExitCode())
}
