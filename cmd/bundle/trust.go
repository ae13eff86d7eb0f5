package main

import (
	"fmt"

	"github.com/certcut/certcut/internal/jsonkind"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
)

// trustFlags are the flags every command that judges bundles shares (verify, show,
// report, attest, gate, census, diff), so each judges exactly as verify does: the
// keys the user trusts, a keyring, the TSAs and the profile registry.
type trustFlags struct {
	hostKeys, verifierKeys []string
	keyring, registry      string
	tsaCerts               []string
	// loneKey: the command judges bundles as the reference --verify does, so a lone
	// --host-key (or --verifier-key) file or raw key is used whatever the bundle's
	// key id (verify.Options.UnsafeLoneKeyAnyKeyID). gate, census and diff match
	// keys by id only.
	loneKey bool
}

func (t *trustFlags) register(cmd *cobra.Command, loneKey bool) {
	t.loneKey = loneKey
	fl := cmd.Flags()
	stringsVar(fl, &t.hostKeys, "host-key", "trusted host key `PEM|DIR|BASE64URL`: an SPKI PEM file, a directory of <keyId>.pub.pem, or a raw base64url key (repeatable)")
	stringsVar(fl, &t.verifierKeys, "verifier-key", "trusted independent-verifier key `PEM|DIR|BASE64URL`, as --host-key (repeatable)")
	fl.StringVar(&t.keyring, "keyring", "", "keyring `FILE` of pinned keys: resolves signature.keyId; a revoked key never verifies (docs/keys-keyring.md)")
	fl.StringVar(&t.registry, "registry", "", "v2 profile registry `FILE` (OpenWOP spec/v2/profiles.json); default: the embedded three v2 profiles")
	stringsVar(fl, &t.tsaCerts, "tsa-cert", "trusted Time-Stamp Authority certificate: `PEM` file of the TSA's certificate or its CA's (repeatable); a bundle's FILE.tsr gives its signing time only under one (docs/timestamps.md)")
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
			return opts, wrongKind("--keyring", t.keyring, jsonkind.Keyring, err)
		}
	}
	if len(t.tsaCerts) > 0 {
		if opts.TSA, err = timestamp.LoadTrust(t.tsaCerts...); err != nil {
			return opts, inputError(fmt.Errorf("--tsa-cert: %w", err))
		}
	}
	if opts.Registry, err = profiles.LoadOrDefault(t.registry); err != nil {
		return opts, wrongKind("--registry", t.registry, jsonkind.Registry, err)
	}
	return opts, nil
}

// wrongKind is the input error of a policy file that could not be read: when it
// is JSON of another kind than want, it says what it is instead (and, for a
// discovery document given as a keyring, how to pin its keys).
func wrongKind(flag, path string, want jsonkind.Kind, err error) error {
	if data, rerr := limitedfile.Read(path, limitedfile.MaxPolicy); rerr == nil {
		if k := jsonkind.Sniff(data); k != "" && k != want {
			hint := ""
			if k == jsonkind.Discovery && want == jsonkind.Keyring {
				hint = fmt.Sprintf("; pin the keys it publishes with 'bundle keys trust --from-discovery %s --keyring FILE'", path)
			}
			return inputError(fmt.Errorf("%s %s: not %s: it is %s%s", flag, path, want, k, hint))
		}
	}
	if flag == "--registry" {
		return inputError(err)
	}
	return inputError(fmt.Errorf("%s %s: %w", flag, path, err))
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
