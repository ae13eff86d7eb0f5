package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// trustSource is what one `keys trust` source yields: the document whose
// signingKeys[] are pinned (or a single key), what to call it in the keyring's
// source, and the origins and host name it suggests.
type trustSource struct {
	doc    *bundle.Value
	key    *keys.PublicKey // --from-pem: the one key
	only   []string
	source string
	// describe is the "source:" line of the text output.
	describe  string
	origin    string // the origin a fetch bound (--from-discovery URL)
	name      string // the host name the document gives
	unsigned  string // --from-bundle: the origin of the bundle's unsigned discovery.url
	docSha256 string
}

func newKeysTrustCmd() *cobra.Command {
	var (
		fromDiscovery, fromPEM, fromBundle, keyringPath, hostName string
		origins, onlyIDs                                          []string
		major                                                     int
		jsonOut                                                   bool
	)
	cmd := &cobra.Command{
		Use:   "trust (--from-discovery URL|FILE | --from-pem FILE | --from-bundle FILE) [flags]",
		Short: "Pin a host's keys, with the origins they sign for, in a keyring",
		Long: `trust adds signing keys to the keyring, with the host's name and the discovery
origins the keys are pinned with, from one of:

  --from-discovery URL   the host's live discovery document (its origin's
                         /.well-known/openwop, Accept: application/json and, at major 2,
                         OpenWOP-Version: 2.0; redirects to another origin are refused):
                         every signingKeys[] entry (or those named by --key-id), pinned
                         with the URL's origin unless --origin says otherwise
  --from-discovery FILE  a saved discovery document: the same, with the origins
                         --origin gives (none otherwise)
  --from-pem FILE        one key you hold as an SPKI PEM, offline: give --key-id,
                         --host-name and the --origin(s) it signs for
  --from-bundle FILE     offline, from a committed bundle: the key its embedded discovery
                         document publishes under the bundle's signature.keyId, refused
                         unless the bundle's signature verifies under that key and the
                         document hashes to discovery.sha256; --origin is required (the
                         bundle's discovery.url is not signed, so it is never taken)

An origin pinned with a key is what lets 'bundle gate' take a host's tier from a
bundle's discovery.url (docs/gate.md). --origin is repeatable. The keyring is
created if absent and written atomically.

A key already pinned with the same public key gains the document's retiredAt and
any origin it was not yet pinned with. A key id the keyring pins with a different
public key, or a key the keyring revoked, is refused and nothing is written: a
reviewer must decide.

Review the result before committing it: pinning is the moment trust is granted.

Exit codes: 0 pinned (or already pinned), 1 refused (conflict with the keyring, or
a bundle whose signature or discovery digest does not check), 3 the document, key,
bundle or keyring could not be read, 4 usage error.`,
		Example: `  bundle keys trust --from-discovery https://api.myndhyve.ai --keyring keyring.json
  bundle keys trust --from-discovery discovery.json --host-name openwop-host-v2-reference \
      --origin http://127.0.0.1:3838 --keyring keyring.json
  bundle keys trust --from-pem keys/v2-reference-4.pub.pem --key-id v2-reference-4 \
      --host-name openwop-host-v2-reference --origin http://127.0.0.1:3838 --keyring keyring.json
  bundle keys trust --from-bundle evidence/v2-host-bundles/myndhyve-2.45.25.json \
      --origin https://api.myndhyve.ai --keyring keyring.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			given := 0
			for _, f := range []string{fromDiscovery, fromPEM, fromBundle} {
				if f != "" {
					given++
				}
			}
			if given != 1 {
				return usageErrorf("bundle keys trust: give one of --from-discovery URL|FILE, --from-pem FILE or --from-bundle FILE")
			}
			if major != 1 && major != 2 {
				return usageErrorf("--major must be 1 or 2")
			}
			pinned, err := normalOrigins(origins)
			if err != nil {
				return err
			}
			var src *trustSource
			switch {
			case fromDiscovery != "":
				src, err = trustFromDiscovery(fromDiscovery, major, onlyIDs)
			case fromPEM != "":
				src, err = trustFromPEM(fromPEM, onlyIDs, hostName)
			default:
				if len(pinned) == 0 {
					return usageErrorf("--from-bundle needs --origin: the origin you vouch for the key signing for (the bundle's discovery.url is not signed, so it is never taken)")
				}
				src, err = trustFromBundle(fromBundle, onlyIDs)
			}
			if err != nil {
				return err
			}
			if len(pinned) == 0 && src.origin != "" {
				pinned = []string{src.origin}
			}
			if hostName == "" {
				hostName = src.name
			}
			if hostName == "" {
				return usageErrorf("the source names no host (implementation.name): give --host-name NAME")
			}
			ring, err := keys.LoadKeyring(keyringPath)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				ring = keys.NewKeyring()
			case err != nil:
				return inputError(err)
			}
			host := keys.KeyringHost{Name: hostName}.WithOrigins(pinned...)
			var res keys.TrustResult
			if src.key != nil {
				res, err = ring.TrustKey(*src.key, host, src.source, time.Now())
			} else {
				res, err = ring.Trust(*src.doc, host, src.source, time.Now(), src.only)
			}
			var conflict *keys.KeyConflictError
			switch {
			case errors.As(err, &conflict):
				return &exitError{code: 1, err: fmt.Errorf("%v; %s was not changed", err, keyringPath)}
			case err != nil:
				return inputError(fmt.Errorf("%s: %w", src.source, err))
			}
			if err := ring.Save(keyringPath); err != nil {
				return inputError(err)
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				first := ""
				if len(pinned) > 0 {
					first = pinned[0]
				}
				return writeJSON(out, map[string]any{"keyring": keyringPath, "host": hostName, "origin": first, "origins": orEmpty(pinned),
					"source": src.source, "discoverySha256": src.docSha256, "result": res})
			}
			fmt.Fprintf(out, "keyring:   %s\n", render.Inline(keyringPath))
			fmt.Fprintf(out, "host:      %s %s\n", render.Inline(hostName), orDash(strings.Join(pinned, ", ")))
			fmt.Fprintf(out, "source:    %s\n", render.Inline(src.describe))
			for _, l := range []struct {
				label string
				ids   []string
			}{{"added", res.Added}, {"updated", res.Updated}, {"unchanged", res.Unchanged}} {
				if len(l.ids) > 0 {
					fmt.Fprintf(out, "%-10s %s\n", l.label+":", strings.Join(l.ids, ", "))
				}
			}
			if src.unsigned != "" && !slices.Contains(pinned, src.unsigned) {
				fmt.Fprintf(out, "note:      the bundle's discovery.url names %s (not signed), which is not among the origins you pinned; gate will FAIL its tier\n", src.unsigned)
			}
			fmt.Fprintln(out, "Review the keyring diff before committing it: pinning a key is granting trust.")
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&fromDiscovery, "from-discovery", "", "discovery `URL` (its origin's /.well-known/openwop) or FILE")
	fl.StringVar(&fromPEM, "from-pem", "", "SPKI PEM `file` of one key (offline; with --key-id, --host-name, --origin)")
	fl.StringVar(&fromBundle, "from-bundle", "", "committed bundle `file`: pin the key its discovery document publishes under signature.keyId (offline; with --origin)")
	fl.StringVar(&keyringPath, "keyring", "keyring.json", "keyring `file` to create or update")
	fl.StringVar(&hostName, "host-name", "", "host `name` (default: the document's implementation.name)")
	fl.StringArrayVar(&origins, "origin", nil, "discovery `origin` the keys sign for (repeatable; default: the URL's origin, none for a file)")
	fl.StringArrayVar(&onlyIDs, "key-id", nil, "pin only this key `id` (repeatable; with --from-pem, the key's one id)")
	fl.IntVar(&major, "major", 2, "protocol major to ask for (2 sends OpenWOP-Version: 2.0)")
	fl.BoolVar(&jsonOut, "json", false, "print the result as JSON")
	// --host is the older spelling of --host-name.
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "host" {
			name = "host-name"
		}
		return pflag.NormalizedName(name)
	})
	return cmd
}

// normalOrigins validates each --origin with bundle.Origin and returns them
// normalized, each once.
func normalOrigins(in []string) ([]string, error) {
	var out []string
	for _, o := range in {
		n, err := bundle.Origin(o)
		if err != nil {
			return nil, usageErrorf("--origin %s: %v", o, err)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func orEmpty(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func trustFromDiscovery(from string, major int, only []string) (*trustSource, error) {
	var doc *discovery.Document
	var err error
	src := &trustSource{only: only, source: from}
	if discovery.IsURL(from) {
		u, uerr := discovery.NormalizeURL(from)
		if uerr != nil {
			return nil, usageErrorf("--from-discovery %s: %v", discovery.Redact(from), uerr)
		}
		src.source = u
		if doc, err = discovery.Fetch(context.Background(), u, discovery.Options{TargetMajor: major}); err != nil {
			return nil, inputError(err)
		}
		src.origin = doc.Origin()
	} else {
		data, rerr := limitedfile.Read(from, limitedfile.MaxDiscovery)
		if rerr != nil {
			return nil, inputError(fmt.Errorf("--from-discovery: %w", rerr))
		}
		if doc, err = discovery.Parse(data, from); err != nil {
			return nil, inputError(fmt.Errorf("--from-discovery %s: %w", from, err))
		}
	}
	src.doc, src.docSha256, src.name = &doc.Value, doc.Sha256, bundle.ImplementationName(doc.Value)
	src.describe = fmt.Sprintf("%s (discovery sha256 %s)", src.source, doc.Sha256)
	return src, nil
}

func trustFromPEM(file string, only []string, hostName string) (*trustSource, error) {
	if len(only) != 1 {
		return nil, usageErrorf("--from-pem needs one --key-id: the id bundles name the key by (signature.keyId)")
	}
	if hostName == "" {
		return nil, usageErrorf("--from-pem needs --host-name: a PEM file does not say whose key it is")
	}
	pub, err := keys.LoadPublicPEM(file)
	if err != nil {
		return nil, inputError(fmt.Errorf("--from-pem: %w", err))
	}
	pub.KeyID = only[0]
	if !keys.KeyIDPattern.MatchString(pub.KeyID) {
		return nil, usageErrorf("--key-id %q does not match %s", pub.KeyID, keys.KeyIDPattern)
	}
	src := &trustSource{key: &pub, source: fmt.Sprintf("pem-file %s", file)}
	src.describe = fmt.Sprintf("%s (key %s)", src.source, pub.Fingerprint())
	return src, nil
}

// trustFromBundle takes the key a committed bundle's embedded discovery document
// publishes under its signature.keyId, once the bundle proves it: the signature
// verifies under that key (verify, with the key as the only trusted one) and the
// document hashes to the signed discovery.sha256. The origin is never taken from
// the bundle.
func trustFromBundle(file string, only []string) (*trustSource, error) {
	data, err := bundle.ReadFile(file)
	if err != nil {
		return nil, inputError(fmt.Errorf("--from-bundle: %w", err))
	}
	b, problems, err := bundle.Parse(data)
	if err != nil {
		return nil, inputError(fmt.Errorf("--from-bundle %s: %w", file, err))
	}
	refuse := func(format string, args ...any) error {
		return &exitError{code: 1, err: fmt.Errorf("--from-bundle %s: "+format+"; nothing was pinned", append([]any{file}, args...)...)}
	}
	if b.Signature == nil || b.Signature.KeyID == "" {
		return nil, refuse("the bundle is not signed, so it vouches for no key")
	}
	keyID := b.Signature.KeyID
	if len(only) > 0 && (len(only) != 1 || only[0] != keyID) {
		return nil, usageErrorf("--from-bundle pins the key the bundle is signed with, %s; --key-id names %s", keyID, strings.Join(only, ", "))
	}
	where := file + " discovery.document"
	key, err := keys.FromDiscovery(b.Discovery.Document, keyID, keys.SourceDiscovery, where)
	if err != nil {
		return nil, refuse("its discovery document does not publish the signing key %s: %v", keyID, err)
	}
	v := verify.Bundle(b, problems, verify.Options{HostKeys: keys.Set{key}})
	switch {
	case !v.SignatureVerified:
		return nil, refuse("the signature does not verify under the key %s its discovery document publishes (%s)", keyID, firstRejection(v, "signature"))
	case v.DiscoveryRecomputed == "" || v.DiscoveryRecomputed != b.Discovery.Sha256:
		return nil, refuse("the embedded discovery document hashes to %s, not to the signed discovery.sha256 %s", orDash(v.DiscoveryRecomputed), orDash(b.Discovery.Sha256))
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	src := &trustSource{doc: b.Discovery.Document, only: []string{keyID}, docSha256: b.Discovery.Sha256, name: bundle.ImplementationName(*b.Discovery.Document)}
	src.source = fmt.Sprintf("bundle %s (sha256 %s): discovery.document signingKeys[] %s; signature verified, discovery.sha256 checked", file, sha, keyID)
	src.describe = fmt.Sprintf("bundle %s (sha256 %s), key %s %s: its signature verifies and its discovery document hashes to discovery.sha256 %s", file, short12(sha), keyID, key.Fingerprint(), short12(b.Discovery.Sha256))
	src.unsigned, _ = bundle.Origin(b.Discovery.URL)
	return src, nil
}

func firstRejection(v *verify.Verdict, kindPrefix string) string {
	for _, r := range v.Rejections {
		if strings.HasPrefix(string(r.Kind), kindPrefix) {
			return r.Detail
		}
	}
	if len(v.Unverified) > 0 {
		return v.Unverified[0]
	}
	return "no further detail"
}

func short12(s string) string { return prefix(s, 12) }
