package main

import (
	"context"
	"crypto/ed25519"
	"errors"
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
  bundle keys generate --pkcs11 URI --key-id ID
                                     create the pair on a PKCS#11 token instead
  bundle keys public --key KEY       print the public forms of a private, KMS or token key
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
	var keyID, dir, token string
	var force bool
	cmd := &cobra.Command{
		Use:   "generate --key-id ID [--out-dir DIR | --pkcs11 URI]",
		Short: "Generate an Ed25519 signing key pair, in files or on a PKCS#11 token",
		Long: `generate writes a new Ed25519 key pair to DIR (default: the current directory):

  <ID>.key.pem   the private key, unencrypted PKCS#8 PEM, mode 0600: keep it secret
  <ID>.pub.pem   the public key, SPKI PEM (what 'bundle verify --host-key' takes)

and prints the signingKeys[] entry to add to the host's discovery document:
{"keyId", "alg": "ed25519", "publicKey": raw key as base64url, "use": "certification-bundle"}.

With --pkcs11 URI the pair is created on the token the URI names instead
(pkcs11:token=T?module-path=/path/module.so&pin-source=FILE; the key's label is the
URI's object= or ID, its id the URI's id= or 16 random bytes). The private key is
sensitive and never extractable: no file is written. generate prints the entry and
the SPKI PEM public key on stdout, and on stderr the URI to sign with. It needs the
cgo build.

Exit codes: 0 written; 3 a file could not be written, or the token refused (wrong
PIN, locked, no Ed25519 support, missing module); 4 usage (a key file exists: pass
--force, but never replace a key that signed bundles — retire it; a key with that
label or id is on the token already).`,
		Example: `  bundle keys generate --key-id host-2026-11 --out-dir keys
  bundle keys generate --key-id host-2026-11 \
    --pkcs11 'pkcs11:token=release?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/run/secrets/token-pin'`,
		Args: exactArgs(0, "no positional arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keyID == "" {
				return usageErrorf("keys generate: --key-id is required")
			}
			if !keys.KeyIDPattern.MatchString(keyID) {
				return usageErrorf("keys generate: key id %q does not match %s", keyID, keys.KeyIDPattern)
			}
			if token != "" {
				if cmd.Flags().Changed("out-dir") || force {
					return usageErrorf("keys generate: --pkcs11 writes no files: drop --out-dir and --force (the key stays on the token)")
				}
				return generateOnToken(cmd, token, keyID)
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
	cmd.Flags().StringVar(&token, "pkcs11", "", "create the pair on the PKCS#11 token this `URI` names (no file is written)")
	return cmd
}

// generateOnToken is keys generate --pkcs11: the pair is made on the token, and
// its entry and public key printed.
func generateOnToken(cmd *cobra.Command, uri, keyID string) error {
	signer, err := keys.GeneratePKCS11Key(cmd.Context(), uri, keyID)
	if err != nil {
		if errors.Is(err, keys.ErrTokenKeyExists) {
			return usageErrorf("keys generate: --pkcs11 %v", err)
		}
		return inputError(fmt.Errorf("keys generate: --pkcs11 %w", err))
	}
	defer signer.Close()
	pub := signer.Key(keyID)
	pubPEM, err := keys.MarshalPublicPEM(pub.Key)
	if err != nil {
		return fmt.Errorf("keys generate: %w", err)
	}
	printJSON(cmd.OutOrStdout(), pub.Entry())
	cmd.OutOrStdout().Write(pubPEM)
	fmt.Fprintf(cmd.ErrOrStderr(), "bundle: created Ed25519 key %s on the token (sensitive, never extractable; no file written); add the entry above to signingKeys[] in the host's discovery document, and sign with --key '%s'\n", keyID, signer.Ref)
	return nil
}

// keyIDFromRef guesses the key id from a <keyId>.key.pem file name, or from the
// object= label of a pkcs11: URI (keys generate --pkcs11 labels a key with its id).
func keyIDFromRef(ref string) string {
	if keys.IsPKCS11(ref) {
		if u, err := keys.ParsePKCS11URI(ref); err == nil && keys.KeyIDPattern.MatchString(u.Object) {
			return u.Object
		}
		return ""
	}
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
		Short: "Print the public forms of a private key, KMS key or token key",
		Long: `public derives the public key from KEY (a PKCS#8 PEM file, env:NAME, a KMS URI
such as hashivault://KEY with VAULT_ADDR and VAULT_TOKEN set, or a PKCS#11 URI such
as pkcs11:token=T;object=K?module-path=…&pin-source=FILE) and prints:

  entry  the discovery signingKeys[] entry (default; needs --key-id unless KEY is
         a <ID>.key.pem file or a pkcs11: URI whose object= is the id)
  pem    the SPKI PEM, for 'bundle verify --host-key'
  raw    the raw key as 43 base64url characters, as signingKeys[].publicKey holds it

A token key's public key is read from the token (CKA_EC_POINT) and checked by
signing a probe with the key before it is printed: a public key object that does
not belong to the private key is refused, not published.

Exit codes: 0 printed; 3 the key could not be read; 4 usage.`,
		Example: `  bundle keys public --key keys/host-2026-11.key.pem
  bundle keys public --key hashivault://openwop-bundle --key-id host-kms-1
  bundle keys public --key 'pkcs11:token=release;object=host-2026-11?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/run/secrets/token-pin'
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
			defer signer.Close()
			if keys.IsPKCS11(keyRef) {
				if err := keys.CheckSigner(signer); err != nil {
					return inputError(fmt.Errorf("--key: %w", err))
				}
			}
			return printPublic(cmd, signer.Key(keyID), format)
		},
	}
	cmd.Flags().StringVar(&keyRef, "key", "", "private key: PEM `FILE`, env:NAME, KMS URI or pkcs11: URI")
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
raw key) or its private key (--key: PEM file, env:NAME, KMS URI, pkcs11: URI).

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
				defer signer.Close()
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
	cmd.Flags().StringVar(&keyRef, "key", "", "or its private key: PEM `FILE`, env:NAME, KMS URI or pkcs11: URI")
	cmd.Flags().StringVar(&at, "retired-at", "", "when the key stopped signing (RFC 3339 `TIME`; default now)")
	return cmd
}
