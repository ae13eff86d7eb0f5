package main

import (
	"fmt"

	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

// trustFlags are the flags every command that judges bundles shares (verify, show,
// report, gate, census, diff), so each judges exactly as verify does: the keys the
// user trusts, a keyring, and the profile registry.
type trustFlags struct {
	hostKeys     []string
	verifierKeys []string
	keyring      string
	registry     string
	tsaCerts     []string
	// loneKey: the command judges bundles as the reference --verify does, so a lone
	// --host-key (or --verifier-key) file or raw key is used whatever the bundle's
	// key id (verify.Options.UnsafeLoneKeyAnyKeyID).
	loneKey bool
}

// registerReference registers the flags for a command that judges bundles one by
// one as the reference --verify does (verify, show, report): a single --host-key
// PEM file or raw key is used for a bundle whatever its key id, and the verdict
// notes it when the ids differ. gate, census and diff call register: there keys are
// matched by id only.
func (t *trustFlags) registerReference(cmd *cobra.Command) {
	t.loneKey = true
	t.register(cmd)
}

func (t *trustFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&t.hostKeys, "host-key", nil, "trusted host key: PEM `file`, directory of <keyId>.pub.pem, or raw base64url (repeatable)")
	fl.StringArrayVar(&t.verifierKeys, "verifier-key", nil, "trusted independent-verifier key, same forms as --host-key (repeatable)")
	fl.StringVar(&t.keyring, "keyring", "", "keyring `file` of pinned keys: resolves signature.keyId; a revoked key never verifies (docs/keys-keyring.md)")
	fl.StringVar(&t.registry, "registry", "", "v2 profile registry `file` (OpenWOP spec/v2/profiles.json); default: the embedded three v2 profiles")
	fl.StringArrayVar(&t.tsaCerts, "tsa-cert", nil, "trusted Time-Stamp Authority certificate: PEM `file` of the TSA's certificate or its CA's (repeatable); a bundle's FILE.tsr gives its signing time only under one (docs/timestamps.md)")
}

// options loads what the flags name into verify options. An unreadable key,
// keyring or registry is an input error (exit 3).
func (t *trustFlags) options() (verify.Options, error) {
	opts := verify.Options{UnsafeLoneKeyAnyKeyID: t.loneKey}
	var err error
	if opts.HostKeys, err = loadKeyArgs("--host-key", t.hostKeys); err != nil {
		return opts, err
	}
	if opts.VerifierKeys, err = loadKeyArgs("--verifier-key", t.verifierKeys); err != nil {
		return opts, err
	}
	if t.keyring != "" {
		if opts.Keyring, err = keys.LoadKeyring(t.keyring); err != nil {
			return opts, inputError(fmt.Errorf("--keyring %s: %w", t.keyring, err))
		}
	}
	if len(t.tsaCerts) > 0 {
		if opts.TSA, err = timestamp.LoadTrust(t.tsaCerts...); err != nil {
			return opts, inputError(fmt.Errorf("--tsa-cert: %w", err))
		}
	}
	if t.registry == "" {
		opts.Registry = profiles.Default()
	} else if opts.Registry, err = profiles.Load(t.registry); err != nil {
		return opts, inputError(err)
	}
	return opts, nil
}

func loadKeyArgs(flag string, args []string) (keys.Set, error) {
	var set keys.Set
	for _, a := range args {
		ks, err := keys.LoadPublic(a)
		if err != nil {
			return nil, inputError(fmt.Errorf("%s %s: %w", flag, keys.ShownArg(a), err))
		}
		set = append(set, ks...)
	}
	return set, nil
}

// tokensFor reads the time-stamp tokens of a bundle named on the command line:
// the files given (--timestamp, --verifier-timestamp) when they are, else
// FILE.tsr and FILE.verifier.tsr beside it when they are there (none for
// standard input). A token file that is there but cannot be read is an error.
func tokensFor(file, host, verifier string) (verify.Timestamps, error) {
	var ts verify.Timestamps
	for _, t := range []struct {
		given, beside string
		dst           **timestamp.File
	}{{host, timestamp.HostFile(file), &ts.Host}, {verifier, timestamp.VerifierFile(file), &ts.Verifier}} {
		var err error
		switch {
		case t.given != "":
			*t.dst, err = timestamp.ReadFile(t.given)
		case file != "-":
			*t.dst, err = timestamp.ReadBeside(t.beside)
		}
		if err != nil {
			return ts, fmt.Errorf("time-stamp token: %w", err)
		}
	}
	return ts, nil
}
