package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/keys"
	"github.com/spf13/cobra"
)

// Suffix of the private key files keys generate writes: <keyId>.key.pem.
const privateSuffix = ".key.pem"

func newKeysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Generate, inspect, retire and pin signing keys",
		Long: `keys manages the Ed25519 keys bundles are signed with.

  bundle keys generate --key-id ID   write <ID>.key.pem (PKCS#8, mode 0600) and
                                     <ID>.pub.pem (SPKI) and print the signingKeys[] entry
  bundle keys public --key KEY       print the public forms of a private key or KMS key
  bundle keys retire --key-id ID     print the entry with retiredAt, to keep it listed
  bundle keys trust --from-discovery URL|FILE --keyring FILE
                                     pin a host's published keys in a keyring
  bundle keys trust --from-pem FILE | --from-bundle FILE --origin ORIGIN --keyring FILE
                                     pin a key offline, with the origins it signs for

A host publishes every key it has signed with in its discovery document's
signingKeys[]; a retired key stays listed (with retiredAt), because dropping it
invalidates every bundle it signed. docs/keys.md has the whole flow;
docs/keys-keyring.md the keyring.`,
		Args: exactArgs(0, "a subcommand: generate, public, retire or trust"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("keys: give a subcommand: generate, public, retire or trust (see 'bundle keys --help')")
		},
	}
	cmd.AddCommand(newKeysGenerateCmd(), newKeysPublicCmd(), newKeysRetireCmd(), newKeysTrustCmd())
	return cmd
}

func newKeysGenerateCmd() *cobra.Command {
	var keyID, dir string
	var force bool
	cmd := &cobra.Command{
		Use:   "generate --key-id ID [--out-dir DIR]",
		Short: "Generate an Ed25519 signing key pair",
		Long: `generate writes a new Ed25519 key pair to DIR (default: the current directory):

  <ID>.key.pem   the private key, unencrypted PKCS#8 PEM, mode 0600: keep it secret
  <ID>.pub.pem   the public key, SPKI PEM (what 'bundle verify --host-key' takes)

and prints the signingKeys[] entry to add to the host's discovery document:
{"keyId", "alg": "ed25519", "publicKey": raw key as base64url, "use": "certification-bundle"}.

Exit codes: 0 written; 3 a file could not be written; 4 usage (a key file exists:
pass --force, but never replace a key that signed bundles — retire it).`,
		Example: `  bundle keys generate --key-id host-2026-11 --out-dir keys`,
		Args:    exactArgs(0, "no positional arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keyID == "" {
				return usageErrorf("keys generate: --key-id is required")
			}
			if !keys.KeyIDPattern.MatchString(keyID) {
				return usageErrorf("keys generate: key id %q does not match %s", keyID, keys.KeyIDPattern)
			}
			privPath := filepath.Join(dir, keyID+privateSuffix)
			pubPath := filepath.Join(dir, keyID+keys.PEMSuffix)
			if !force {
				for _, p := range []string{privPath, pubPath} {
					if _, err := os.Lstat(p); err == nil {
						return usageErrorf("%s already exists; pass --force to overwrite it (never replace a key that signed bundles: retire it and generate one with a new id)", p)
					}
				}
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return inputError(fmt.Errorf("keys generate: %w", err))
			}
			priv, err := keys.Generate(nil)
			if err != nil {
				return fmt.Errorf("keys generate: %w", err)
			}
			privPEM, err := keys.MarshalPrivatePEM(priv)
			if err != nil {
				return fmt.Errorf("keys generate: %w", err)
			}
			pub := keys.PublicKey{Key: priv.Public().(ed25519.PublicKey), KeyID: keyID}
			pubPEM, err := keys.MarshalPublicPEM(pub.Key)
			if err != nil {
				return fmt.Errorf("keys generate: %w", err)
			}
			if err := atomicfile.Write(privPath, privPEM, 0o600, force); err != nil {
				return inputError(fmt.Errorf("keys generate: writing %s: %w", privPath, err))
			}
			if err := atomicfile.Write(pubPath, pubPEM, 0o644, force); err != nil {
				os.Remove(privPath) // nothing partial: a private key without its public half is not kept
				return inputError(fmt.Errorf("keys generate: writing %s: %w", pubPath, err))
			}
			printJSON(cmd.OutOrStdout(), pub.Entry())
			fmt.Fprintf(cmd.ErrOrStderr(), "bundle: wrote %s (mode 0600, keep it secret) and %s; add the entry above to signingKeys[] in the host's discovery document\n", privPath, pubPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyID, "key-id", "", "the key's `ID` ([A-Za-z0-9._~-], at most 128 characters)")
	cmd.Flags().StringVar(&dir, "out-dir", ".", "write the key files to `DIR`")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite existing key files")
	return cmd
}

// keyIDFromRef guesses the key id from a <keyId>.key.pem file name.
func keyIDFromRef(ref string) string {
	if keys.IsKMS(ref) || strings.HasPrefix(ref, keys.EnvPrefix) {
		return ""
	}
	if id, ok := strings.CutSuffix(filepath.Base(ref), privateSuffix); ok && keys.KeyIDPattern.MatchString(id) {
		return id
	}
	return ""
}

func newKeysPublicCmd() *cobra.Command {
	var keyRef, keyID, format string
	cmd := &cobra.Command{
		Use:   "public --key KEY [--key-id ID] [--format entry|pem|raw]",
		Short: "Print the public forms of a private key or KMS key",
		Long: `public derives the public key from KEY (a PKCS#8 PEM file, env:NAME, or a KMS URI
such as hashivault://KEY with VAULT_ADDR and VAULT_TOKEN set) and prints:

  entry  the discovery signingKeys[] entry (default; needs --key-id unless KEY is
         a <ID>.key.pem file)
  pem    the SPKI PEM, for 'bundle verify --host-key'
  raw    the raw key as 43 base64url characters, as signingKeys[].publicKey holds it

Exit codes: 0 printed; 3 the key could not be read; 4 usage.`,
		Example: `  bundle keys public --key keys/host-2026-11.key.pem
  bundle keys public --key hashivault://openwop-bundle --key-id host-kms-1
  bundle keys public --key keys/host-2026-11.key.pem --format pem > host.pub.pem`,
		Args: exactArgs(0, "no positional arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keyRef == "" {
				return usageErrorf("keys public: --key is required")
			}
			if keyID == "" {
				keyID = keyIDFromRef(keyRef)
			}
			if format != "entry" && format != "pem" && format != "raw" {
				return usageErrorf("keys public: --format %q is not entry, pem or raw", format)
			}
			if format == "entry" && keyID == "" {
				return usageErrorf("keys public: --key-id is required for the signingKeys[] entry (or use --format pem|raw)")
			}
			if keyID != "" && !keys.KeyIDPattern.MatchString(keyID) {
				return usageErrorf("keys public: key id %q does not match %s", keyID, keys.KeyIDPattern)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			signer, err := loadSigner(ctx, "--key", keyRef)
			if err != nil {
				return err
			}
			return printPublic(cmd, signer.Key(keyID), format)
		},
	}
	cmd.Flags().StringVar(&keyRef, "key", "", "private key: PEM `FILE`, env:NAME or KMS URI")
	cmd.Flags().StringVar(&keyID, "key-id", "", "the key's `ID` (default: from a <ID>.key.pem file name)")
	cmd.Flags().StringVar(&format, "format", "entry", "what to print: entry, pem or raw")
	return cmd
}

func printPublic(cmd *cobra.Command, pub keys.PublicKey, format string) error {
	switch format {
	case "pem":
		pem, err := keys.MarshalPublicPEM(pub.Key)
		if err != nil {
			return err
		}
		_, err = cmd.OutOrStdout().Write(pem)
		return err
	case "raw":
		fmt.Fprintln(cmd.OutOrStdout(), pub.Base64URL())
		return nil
	}
	printJSON(cmd.OutOrStdout(), pub.Entry())
	return nil
}

func newKeysRetireCmd() *cobra.Command {
	var keyRef, keyID, pubArg, at string
	cmd := &cobra.Command{
		Use:   "retire --key-id ID (--public PUB | --key KEY) [--retired-at TIME]",
		Short: "Print a key's signingKeys[] entry with retiredAt",
		Long: `retire prints the signingKeys[] entry of a key that stops signing, with retiredAt
(default: now). Replace the key's entry in the discovery document with it and keep it
listed: bundles it signed before retiredAt stay valid only while the host publishes it.
Then generate a key with a new id for new bundles.

The key is given as its public key (--public: an SPKI PEM file, or the 43-character
raw key) or its private key (--key: PEM file, env:NAME, KMS URI).

Exit codes: 0 printed; 3 the key could not be read; 4 usage.`,
		Example: `  bundle keys retire --key-id host-2026-11 --public keys/host-2026-11.pub.pem
  bundle keys retire --key-id host-2026-11 --public F588CksLq-PVrpqTFhYcweE4WFYOcj6-jyjz7KmKipU --retired-at 2026-12-01T00:00:00Z`,
		Args: exactArgs(0, "no positional arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keyID == "" {
				return usageErrorf("keys retire: --key-id is required")
			}
			if !keys.KeyIDPattern.MatchString(keyID) {
				return usageErrorf("keys retire: key id %q does not match %s", keyID, keys.KeyIDPattern)
			}
			if (keyRef == "") == (pubArg == "") {
				return usageErrorf("keys retire: give exactly one of --public and --key")
			}
			retiredAt := time.Now().UTC().Truncate(time.Second)
			if at != "" {
				t, err := time.Parse(time.RFC3339Nano, at)
				if err != nil {
					return usageErrorf("keys retire: --retired-at %q is not an RFC 3339 time (e.g. 2026-12-01T00:00:00Z)", at)
				}
				retiredAt = t.UTC()
			}
			var pub keys.PublicKey
			if pubArg != "" {
				set, err := keys.LoadPublic(pubArg)
				if err != nil {
					return inputError(fmt.Errorf("--public %s: %w", pubArg, err))
				}
				if len(set) != 1 {
					return usageErrorf("keys retire: --public names %d keys; give one", len(set))
				}
				pub = set[0]
			} else {
				ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
				defer cancel()
				signer, err := loadSigner(ctx, "--key", keyRef)
				if err != nil {
					return err
				}
				pub = signer.Key(keyID)
			}
			pub.KeyID = keyID
			pub.RetiredAt = retiredAt.Format(time.RFC3339Nano)
			printJSON(cmd.OutOrStdout(), pub.Entry())
			return nil
		},
	}
	cmd.Flags().StringVar(&keyID, "key-id", "", "the retiring key's `ID`")
	cmd.Flags().StringVar(&pubArg, "public", "", "the key's public half: SPKI PEM `FILE` or raw base64url")
	cmd.Flags().StringVar(&keyRef, "key", "", "or its private key: PEM `FILE`, env:NAME or KMS URI")
	cmd.Flags().StringVar(&at, "retired-at", "", "when the key stopped signing (RFC 3339 `TIME`; default now)")
	return cmd
}
