package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

func newKeysCmd() *cobra.Command {
	return group("keys", "keys", "Generate, inspect, retire and pin signing keys",
		newKeysGenerateCmd(), newKeysPublicCmd(), newKeysRetireCmd(), newKeysTrustCmd())
}

func newKeysGenerateCmd() *cobra.Command {
	var keyID, dir, token string
	var force bool
	cmd := command("keys-generate", "generate --key-id ID [--out-dir DIR | --pkcs11 URI]", "Generate an Ed25519 signing key pair, in files or on a PKCS#11 token",
		exactArgs(0, "no positional arguments"), func(cmd *cobra.Command, _ []string) error {
			switch {
			case keyID == "":
				return usageErrorf("keys generate: --key-id is required")
			case !keys.KeyIDPattern.MatchString(keyID):
				return usageErrorf("keys generate: key id %q does not match %s", keyID, keys.KeyIDPattern)
			case token != "" && (cmd.Flags().Changed("out-dir") || force):
				return usageErrorf("keys generate: --pkcs11 writes no files: drop --out-dir and --force (the key stays on the token)")
			case token != "":
				return generateOnToken(cmd, token, keyID)
			}
			files, err := keys.GenerateFiles(dir, keyID, force)
			var exists *atomicfile.ExistsError
			switch {
			case errors.As(err, &exists):
				return usageErrorf("%v (never replace a key that signed bundles: retire it and generate one with a new id)", exists)
			case err != nil:
				return inputError(fmt.Errorf("keys generate: %w", err))
			}
			if err := render.WriteJSON(cmd.OutOrStdout(), files.Key.Entry()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "bundle: wrote %s (mode 0600, keep it secret) and %s; add the entry above to signingKeys[] in the host's discovery document\n", files.Private, files.Public)
			return nil
		})
	cmd.Flags().StringVar(&keyID, "key-id", "", "the key's `ID` ([A-Za-z0-9._~-], at most 128 characters)")
	cmd.Flags().StringVar(&dir, "out-dir", ".", "write the key files to `DIR`, outside the repository's work tree")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite existing key files")
	cmd.Flags().StringVar(&token, "pkcs11", "", "create the pair on the PKCS#11 token this `URI` names (no file is written)")
	return cmd
}

// generateOnToken is keys generate --pkcs11: the pair is made on the token, and
// its entry and public key printed.
func generateOnToken(cmd *cobra.Command, uri, keyID string) error {
	signer, err := keys.GeneratePKCS11Key(cmd.Context(), uri, keyID, kmsTimeout(cmd))
	if err != nil {
		if errors.Is(err, keys.ErrTokenKeyExists) {
			return usageErrorf("keys generate: --pkcs11 %v", err)
		}
		return inputError(fmt.Errorf("keys generate: --pkcs11 %w", err))
	}
	defer signer.Close()
	if err := printPublic(cmd, signer.Key(keyID), "entry"); err != nil {
		return err
	}
	if err := printPublic(cmd, signer.Key(keyID), "pem"); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "bundle: created Ed25519 key %s on the token (sensitive, never extractable; no file written); add the entry above to signingKeys[] in the host's discovery document, and sign with --key '%s'\n", keyID, signer.Ref)
	return nil
}

func newKeysPublicCmd() *cobra.Command {
	var keyRef, keyID string
	var o output
	cmd := command("keys-public", "public --key KEY [--key-id ID] [--format entry|pem|raw]", "Print the public forms of a private key, KMS key or token key",
		exactArgs(0, "no positional arguments"), func(cmd *cobra.Command, _ []string) error {
			if keyRef == "" {
				return usageErrorf("keys public: --key is required")
			}
			if keyID == "" {
				keyID = keys.KeyIDFromRef(keyRef)
			}
			if o.f == "entry" && keyID == "" {
				return usageErrorf("keys public: --key-id is required for the signingKeys[] entry (or use --format pem|raw)")
			}
			if keyID != "" && !keys.KeyIDPattern.MatchString(keyID) {
				return usageErrorf("keys public: key id %q does not match %s", keyID, keys.KeyIDPattern)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			signer, err := loadSigner(ctx, cmd, "--key", keyRef)
			if err != nil {
				return err
			}
			defer signer.Close()
			if keys.IsPKCS11(keyRef) {
				if err := keys.CheckSigner(signer); err != nil {
					return inputError(fmt.Errorf("--key: %w", err))
				}
			}
			return printPublic(cmd, signer.Key(keyID), string(o.f))
		})
	// entry is a JSON object: --json and --format json are its other names.
	addOutput(cmd, &o, false, "entry", "pem", "raw", render.JSON)
	chainPreRun(cmd, func(*cobra.Command) error {
		if o.f == render.JSON {
			o.f = "entry"
		}
		return nil
	})
	cmd.Flags().StringVar(&keyRef, "key", "", "private key: `PEM|env:NAME|KMS-URI|pkcs11:URI`")
	cmd.Flags().StringVar(&keyID, "key-id", "", "the key's `ID` (default: from a <ID>.key.pem file name)")
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
		_, err := fmt.Fprintln(cmd.OutOrStdout(), pub.Base64URL())
		return err
	}
	return render.WriteJSON(cmd.OutOrStdout(), pub.Entry())
}

func newKeysRetireCmd() *cobra.Command {
	var keyRef, keyID, pubArg, at string
	cmd := command("keys-retire", "retire --key-id ID (--public PUB | --key KEY) [--retired-at TIME]", "Print a key's signingKeys[] entry with retiredAt",
		exactArgs(0, "no positional arguments"), func(cmd *cobra.Command, _ []string) error {
			switch {
			case keyID == "":
				return usageErrorf("keys retire: --key-id is required")
			case !keys.KeyIDPattern.MatchString(keyID):
				return usageErrorf("keys retire: key id %q does not match %s", keyID, keys.KeyIDPattern)
			case (keyRef == "") == (pubArg == ""):
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
				signer, err := loadSigner(ctx, cmd, "--key", keyRef)
				if err != nil {
					return err
				}
				defer signer.Close()
				pub = signer.Key(keyID)
			}
			pub.KeyID = keyID
			pub.RetiredAt = retiredAt.Format(time.RFC3339Nano)
			return render.WriteJSON(cmd.OutOrStdout(), pub.Entry())
		})
	cmd.Flags().StringVar(&keyID, "key-id", "", "the retiring key's `ID`")
	cmd.Flags().StringVar(&pubArg, "public", "", "the key's public half: `PEM|BASE64URL`")
	cmd.Flags().StringVar(&keyRef, "key", "", "or its private key: `PEM|env:NAME|KMS-URI|pkcs11:URI`")
	cmd.Flags().StringVar(&at, "retired-at", "", "when the key stopped signing (RFC 3339 `TIME`; default now)")
	return cmd
}
