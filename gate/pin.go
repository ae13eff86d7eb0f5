package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
)

// PinSource is where keys to pin in a keyring come from ('bundle keys trust'):
// a discovery document whose signingKeys[] are pinned, or one key.
type PinSource struct {
	Doc  *bundle.Value   // the document whose keys are pinned, or nil
	Key  *keys.PublicKey // the one key (a PEM file), or nil
	Only []string        // the key ids to pin from Doc (all when empty)
	// Source is what the keyring records the keys came from; Describe says it
	// for people.
	Source, Describe string
	// Origin is the origin a fetch bound (a discovery URL); Name the host name
	// the document gives.
	Origin, Name string
	// UnsignedOrigin is the origin of a bundle's discovery.url: not signed, so
	// never pinned, only compared with what the caller pins.
	UnsignedOrigin string
	DocSha256      string
}

// PinArgError is a source named wrongly: a discovery URL that cannot be asked,
// key ids that do not fit the source.
type PinArgError struct{ Err error }

func (e *PinArgError) Error() string { return e.Err.Error() }
func (e *PinArgError) Unwrap() error { return e.Err }

// PinKeyIDError is a pin from a bundle asked for key ids other than the one
// the bundle is signed with, the only one it can vouch for.
type PinKeyIDError struct {
	Signed string
	Asked  []string
}

func (e *PinKeyIDError) Error() string {
	return fmt.Sprintf("the bundle is signed with %s, the only key it can vouch for, not %s", e.Signed, strings.Join(e.Asked, ", "))
}

// PinRefusedError is a bundle that does not prove the key it would pin: it is
// not signed, its signature does not verify under the key its own document
// publishes, or the document does not hash to discovery.sha256.
type PinRefusedError struct {
	File, Why string
}

func (e *PinRefusedError) Error() string { return e.File + ": " + e.Why + "; nothing was pinned" }

// PinFromDiscovery reads the keys a discovery document publishes: fetched from
// its origin when from is a URL (the origin is then bound), else read from the
// file from names. Errors about a file start with its name.
func PinFromDiscovery(ctx context.Context, from string, major int, only []string) (*PinSource, error) {
	var doc *discovery.Document
	var err error
	src := &PinSource{Only: only, Source: from}
	if discovery.IsURL(from) {
		u, uerr := discovery.NormalizeURL(from)
		if uerr != nil {
			return nil, &PinArgError{Err: fmt.Errorf("%s: %w", discovery.Redact(from), uerr)}
		}
		src.Source = u
		if doc, err = discovery.Fetch(ctx, u, discovery.Options{TargetMajor: major}); err != nil {
			return nil, err
		}
		src.Origin = doc.Origin()
	} else {
		data, rerr := limitedfile.Read(from, limitedfile.MaxDiscovery)
		if rerr != nil {
			return nil, fmt.Errorf("%s: %w", from, rerr)
		}
		if doc, err = discovery.Parse(data, from); err != nil {
			return nil, fmt.Errorf("%s: %w", from, err)
		}
	}
	src.Doc, src.DocSha256, src.Name = &doc.Value, doc.Sha256, bundle.ImplementationName(doc.Value)
	src.Describe = fmt.Sprintf("%s (discovery sha256 %s)", src.Source, doc.Sha256)
	return src, nil
}

// PinFromPEM reads one SPKI PEM key, to be pinned under keyID.
func PinFromPEM(file, keyID string) (*PinSource, error) {
	pub, err := keys.LoadPublicPEM(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	pub.KeyID = keyID
	src := &PinSource{Key: &pub, Source: "pem-file " + file}
	src.Describe = fmt.Sprintf("%s (key %s)", src.Source, pub.Fingerprint())
	return src, nil
}

// PinFromBundle takes the key a committed bundle's embedded discovery document
// publishes under its signature.keyId, once the bundle proves it: the signature
// verifies under that key (verify, with the key as the only trusted one) and the
// document hashes to the signed discovery.sha256 (else *PinRefusedError). The
// origin is never taken from the bundle. only, when given, must name that key.
func PinFromBundle(file string, only []string) (*PinSource, error) {
	data, err := bundle.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	b, problems, err := bundle.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	refuse := func(format string, args ...any) error {
		return &PinRefusedError{File: file, Why: fmt.Sprintf(format, args...)}
	}
	if b.Signature == nil || b.Signature.KeyID == "" {
		return nil, refuse("the bundle is not signed, so it vouches for no key")
	}
	keyID := b.Signature.KeyID
	if len(only) > 0 && (len(only) != 1 || only[0] != keyID) {
		return nil, &PinKeyIDError{Signed: keyID, Asked: only}
	}
	key, err := keys.FromDiscovery(b.Discovery.Document, keyID, keys.SourceDiscovery, file+" discovery.document")
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
	src := &PinSource{Doc: b.Discovery.Document, Only: []string{keyID}, DocSha256: b.Discovery.Sha256, Name: bundle.ImplementationName(*b.Discovery.Document)}
	src.Source = fmt.Sprintf("bundle %s (sha256 %s): discovery.document signingKeys[] %s; signature verified, discovery.sha256 checked", file, sha, keyID)
	src.Describe = fmt.Sprintf("bundle %s (sha256 %s), key %s %s: its signature verifies and its discovery document hashes to discovery.sha256 %s", file, sha[:12], keyID, key.Fingerprint(), prefix12(b.Discovery.Sha256))
	src.UnsignedOrigin, _ = bundle.Origin(b.Discovery.URL)
	return src, nil
}

func prefix12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
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
