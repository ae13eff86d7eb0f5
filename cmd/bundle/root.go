package main

import (
	"io"

	"github.com/certcut/certcut/keys"
	"github.com/spf13/cobra"
)

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "bundle",
		Short: "Mint, sign, verify and gate OpenWOP conformance evidence bundles",
		Long: `bundle works with OpenWOP certification bundles (v3): signed evidence that a host
ran the conformance suite, one row per requirement.

  bundle verify FILE...      re-derive every claim and check the signature
  bundle show FILE           a reviewer's summary of one bundle
  bundle report FILE...      one self-contained HTML page (--html OUT)
  bundle mint --out FILE     assemble, scrub, sign and self-verify a host bundle
  bundle sign FILE           sign an assembled bundle, or countersign it as a verifier
  bundle attest FILE         verify a bundle and write the verdict as a signed in-toto attestation
  bundle verify-attestation FILE   check an attestation's signature, statement and subject
  bundle keys generate|public|retire|trust   make, inspect, retire and pin signing keys
  bundle gate accepted|audit|cut   the Accepted predicate and the cut gates over committed bundles
  bundle census [ID...]      which committed bundles carry a row for ids, a prefix or a scenario
  bundle diff A B            what changed between two cuts (--regressions-only gates CI)
  bundle schema [NAME]       print a JSON Schema (bundle, key, keyring, gate)
  bundle man DIR             write the man pages
  bundle completion SHELL    shell completion (bash, zsh, fish, powershell)
  bundle version             module version and commit

Exit codes are documented in docs/exit-codes.md; each command's help lists its own.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageErrorf("%v (see --help)", err)
	})
	root.SetVersionTemplate("bundle {{.Version}}\n")
	root.AddCommand(newVerifyCmd())
	root.AddCommand(newMintCmd())
	root.AddCommand(newSignCmd())
	root.AddCommand(newTimestampCmd())
	root.AddCommand(newAttestCmd(), newVerifyAttestationCmd())
	root.AddCommand(newGateCmd())
	root.AddCommand(newCensusCmd())
	root.AddCommand(newDiffCmd())
	root.AddCommand(newKeysCmd())
	root.AddCommand(newSchemaCmd(), newShowCmd(), newReportCmd(), newManCmd(), newVersionCmd())
	addKMSTimeout(root)
	return root
}

// annotationPublicKey marks a command whose --key is a public key (it gets no
// --kms-timeout).
const annotationPublicKey = "certcut/public-key"

// addKMSTimeout gives every command that takes a signing key (--key: mint, sign,
// keys public, keys retire; --pkcs11: keys generate) a --kms-timeout flag, and passes its value to
// keys.LoadSigner through the command's context (keys.WithKMSTimeout), which bounds
// every KMS call by it. Commands add the flag here, once, rather than each.
func addKMSTimeout(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		signs := c.Flags().Lookup("key") != nil || c.Flags().Lookup("pkcs11") != nil
		if !signs || c.Annotations[annotationPublicKey] != "" {
			return
		}
		timeout := c.Flags().Duration("kms-timeout", keys.DefaultKMSTimeout, "give up on a KMS key (hashivault://) or a token key (pkcs11:) when a call to it does not answer within this `duration`")
		prev := c.PreRunE
		c.PreRunE = func(cmd *cobra.Command, args []string) error {
			if *timeout <= 0 {
				return usageErrorf("--kms-timeout %s: give a positive duration, e.g. 30s", *timeout)
			}
			cmd.SetContext(keys.WithKMSTimeout(cmd.Context(), *timeout))
			if prev != nil {
				return prev(cmd, args)
			}
			return nil
		}
	}
	walk(root)
}

// exactArgs and minArgs wrap cobra's argument checks as usage errors.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s: give %s (see '%s --help')", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s: give %s (see '%s --help')", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}
