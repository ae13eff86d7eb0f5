package keys

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/certcut/certcut/internal/panics"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/kms"
	"github.com/sigstore/sigstore/pkg/signature/options"

	// The HashiCorp Vault (and OpenBao) transit provider: hashivault:// key URIs.
	_ "github.com/sigstore/sigstore/pkg/signature/kms/hashivault"
)

// Signer is a loaded Ed25519 signing key: a sigstore signer (a local key, a KMS
// key or a PKCS#11 token key) and its public key. A KMS or token key's calls —
// each SignMessage, PublicKey — wait at most the timeout it was loaded with
// (WithTimeout), and no longer than the context their options carry
// (options.WithContext) allows; a local key never waits.
type Signer struct {
	signature.Signer
	// Public is the Ed25519 public key, read from the key itself (for KMS keys, from
	// the KMS; for token keys, from the token), so a signature can be checked
	// locally.
	Public ed25519.PublicKey
	// Ref says where the key is (a path, env:NAME, a KMS URI, a PKCS#11 URI
	// without its PIN), never its material.
	Ref string
	// PEM is the private key's PEM text when it was read from a file or the
	// environment, so that callers can keep it out of any output; nil for KMS and
	// token keys.
	PEM []byte
}

// Close releases what the key holds: a token key's session and module. It is a
// no-op for file, environment and KMS keys, and safe to call more than once.
func (s *Signer) Close() error {
	if c, ok := s.Signer.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// CheckSigner signs a fixed probe with s and verifies it under s.Public: a key
// whose public half (read from a KMS or a token's public key object) does not
// belong to its private half fails here, before its public key is published.
func CheckSigner(s *Signer) error {
	probe := []byte("certcut: does this key sign under the public key it reports?")
	sig, err := Sign(s, probe)
	if err != nil {
		return err
	}
	if err := Verify(s.Public, probe, sig); err != nil {
		return fmt.Errorf("%s: a signature by the key does not verify under the public key read with it: the public key belongs to another key", s.Ref)
	}
	return nil
}

// Key returns the public key with a key id, as a discovery entry publishes it.
func (s *Signer) Key(keyID string) PublicKey {
	return PublicKey{Key: s.Public, KeyID: keyID, Source: SourceSigner, Origin: s.Ref}
}

// EnvPrefix marks a key reference that names an environment variable holding the
// PEM text: env:OPENWOP_BUNDLE_SIGNING_KEY.
const EnvPrefix = "env:"

// IsKMS reports whether ref is a KMS key URI (scheme://…) rather than a file,
// environment or PKCS#11 reference.
func IsKMS(ref string) bool { return !IsPKCS11(ref) && strings.Contains(ref, "://") }

// LoadSigner loads a signing key from one of four references:
//
//   - a PKCS#11 URI (pkcs11:token=…;object=…?module-path=…&pin-source=…), a key
//     on a token: LoadPKCS11Signer. pin-value is accepted here, where the
//     reference is the caller's own argument.
//   - a KMS URI (hashivault://KEY, openbao://KEY), through sigstore's KMS support;
//     Vault's address and token come from VAULT_ADDR and VAULT_TOKEN unless opts
//     carry them. The key must be an Ed25519 transit key.
//   - env:NAME, an environment variable holding the PKCS#8 PEM text, or a
//     PKCS#11 URI; a pin-value in that URI is refused (ErrPINValueRecorded).
//   - a path to a PKCS#8 PEM file, refused when group or others can read it.
//
// Every call to a KMS or a token is bounded by the signer's timeout (WithTimeout;
// DefaultKMSTimeout when not given) and by ctx while loading; each later call to
// the Signer honours a context given as options.WithContext. Errors never quote
// key material or a PIN. Close the Signer when done (it ends a token session).
//
// A reference with white space around a PKCS#11 URI, KMS URI or env: reference
// is read without it (TrimRef). Errors show the reference only as ShownRef does:
// never a pin-value, a URI's password or token, whatever the reference turned out
// to be (a mistyped scheme is read as a file path).
func LoadSigner(ctx context.Context, ref string, opts ...SignerOption) (*Signer, error) {
	s, err := loadSigner(ctx, TrimRef(ref), opts...)
	return s, hideRef(err, ref)
}

func loadSigner(ctx context.Context, ref string, opts ...SignerOption) (*Signer, error) {
	switch {
	case ref == "":
		return nil, errors.New("no signing key given")
	case IsPKCS11(ref):
		return LoadPKCS11Signer(ctx, ref, opts...)
	case IsKMS(ref):
		return LoadKMSSigner(ctx, ref, opts...)
	case strings.HasPrefix(ref, EnvPrefix):
		name := strings.TrimPrefix(ref, EnvPrefix)
		text := os.Getenv(name)
		if strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("environment variable %s holds no signing key (set it to the PKCS#8 PEM text or a pkcs11: URI)", name)
		}
		if uri := strings.TrimSpace(text); IsPKCS11(uri) {
			u, err := ParsePKCS11URI(uri)
			if err != nil {
				return nil, fmt.Errorf("environment variable %s: %w", name, err)
			}
			if u.HasPINValue() {
				return nil, fmt.Errorf("environment variable %s: %w", name, ErrPINValueRecorded)
			}
			s, err := loadPKCS11URI(ctx, u, newSignerConfig(opts))
			if err != nil {
				return nil, fmt.Errorf("environment variable %s: %w", name, err)
			}
			return s, nil
		}
		priv, err := ParsePrivatePEM([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("environment variable %s: %w", name, err)
		}
		return localSigner(priv, ref, []byte(text))
	default:
		priv, data, err := loadPrivatePEM(ref)
		if err != nil {
			return nil, err
		}
		return localSigner(priv, ShownRef(ref), data)
	}
}

func localSigner(priv ed25519.PrivateKey, ref string, pemText []byte) (*Signer, error) {
	sv, err := NewSigner(priv)
	if err != nil {
		return nil, err
	}
	return &Signer{Signer: sv, Public: priv.Public().(ed25519.PublicKey), Ref: ref, PEM: pemText}, nil
}

// DefaultKMSTimeout bounds each call to a KMS or a token (loading the key and
// reading its public key, each signature) when the signer is loaded without
// WithTimeout.
const DefaultKMSTimeout = 30 * time.Second

// SignerOption configures a key as LoadSigner, LoadKMSSigner, LoadPKCS11Signer or
// GeneratePKCS11Key loads it: WithTimeout, WithRPCOptions.
type SignerOption func(*signerConfig)

type signerConfig struct {
	timeout time.Duration
	rpc     []signature.RPCOption
}

func newSignerConfig(opts []SignerOption) signerConfig {
	c := signerConfig{timeout: DefaultKMSTimeout}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTimeout bounds every call the loaded signer makes to its KMS or token —
// loading the key, reading its public key, each signature it makes later — by d;
// past it the call fails with *KMSTimeoutError (a token's with a *PKCS11Error
// wrapping ErrTokenTimeout). A d of zero or less keeps DefaultKMSTimeout. File
// and environment keys make no such calls and ignore it.
func WithTimeout(d time.Duration) SignerOption {
	return func(c *signerConfig) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithRPCOptions passes sigstore's RPC options (options.WithRPCAuthOpts: Vault's
// address and token) to the KMS provider when a KMS key is loaded.
func WithRPCOptions(opts ...signature.RPCOption) SignerOption {
	return func(c *signerConfig) { c.rpc = append(c.rpc, opts...) }
}

// callContext returns the context an option list carries (options.WithContext),
// context.Background() when none.
func callContext[O signature.RPCOption](opts []O) context.Context {
	ctx := context.Background()
	for _, o := range opts {
		o.ApplyContext(&ctx)
	}
	return ctx
}

// KMSTimeoutError is a KMS call that did not complete within its bound
// (WithTimeout). The call is abandoned: sigstore's Vault client takes no context,
// so it cannot be cancelled, only no longer waited for.
type KMSTimeoutError struct {
	URI     string
	Call    string // "loading the key", "reading the public key", "signing"
	Timeout time.Duration
}

func (e *KMSTimeoutError) Error() string {
	return fmt.Sprintf("%s: the KMS did not answer within %s (%s); check VAULT_ADDR and that the KMS is up, or raise --kms-timeout", e.URI, e.Timeout, e.Call)
}

// KMSError is a KMS call that failed (refused, unreachable, a malformed answer).
type KMSError struct {
	URI  string
	Call string
	Err  error
}

func (e *KMSError) Error() string { return fmt.Sprintf("%s: %s: %v", e.URI, e.Call, e.Err) }
func (e *KMSError) Unwrap() error { return e.Err }

// withinKMS runs one KMS call, waiting at most timeout (and no longer than ctx
// allows: under a cancelled ctx it returns ctx.Err() at once, without making the
// call). A panic in the call is re-raised in the caller's goroutine.
func withinKMS[T any](ctx context.Context, timeout time.Duration, uri, call string, f func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var v T
	var err error
	done := panics.Go(func() { v, err = f() })
	select {
	case perr := <-done:
		if perr != nil {
			panic(perr)
		}
		return v, err
	case <-ctx.Done():
		var zero T
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, &KMSTimeoutError{URI: uri, Call: call, Timeout: timeout}
		}
		return zero, ctx.Err()
	}
}

// kmsSigner bounds every call to a KMS signer by its timeout, and by the context
// a call's options carry (options.WithContext).
type kmsSigner struct {
	sv      signature.SignerVerifier
	uri     string
	timeout time.Duration
}

func (k *kmsSigner) PublicKey(opts ...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return withinKMS(callContext(opts), k.timeout, k.uri, "reading the public key", func() (crypto.PublicKey, error) {
		pub, err := k.sv.PublicKey(opts...)
		if err != nil {
			return nil, &KMSError{URI: k.uri, Call: "reading the public key", Err: err}
		}
		return pub, nil
	})
}

func (k *kmsSigner) SignMessage(message io.Reader, opts ...signature.SignOption) ([]byte, error) {
	return withinKMS(callContext(opts), k.timeout, k.uri, "signing", func() ([]byte, error) {
		sig, err := k.sv.SignMessage(message, opts...)
		if err != nil {
			return nil, &KMSError{URI: k.uri, Call: "signing", Err: err}
		}
		return sig, nil
	})
}

// LoadKMSSigner loads an Ed25519 KMS key through sigstore's kms.Get, with no
// pre-hash (crypto.Hash(0)): Ed25519 signs the message itself. Every call to the
// KMS — loading the key, reading its public key, each signature the Signer makes —
// is bounded by the timeout (WithTimeout, DefaultKMSTimeout when not given) and
// fails with *KMSTimeoutError past it; loading is also bounded by ctx, and each
// later call by the context its options carry (options.WithContext): cancelled,
// the call returns the context's error at once. Other failures of a call are
// *KMSError.
func LoadKMSSigner(ctx context.Context, uri string, opts ...SignerOption) (*Signer, error) {
	return loadKMS(ctx, uri, newSignerConfig(opts))
}

// loadKMS loads a KMS key through kms.Get and wraps it in a kmsSigner.
func loadKMS(ctx context.Context, uri string, c signerConfig) (*Signer, error) {
	get := func(ctx context.Context, uri string, rpc ...signature.RPCOption) (signature.SignerVerifier, error) {
		return kms.Get(ctx, uri, crypto.Hash(0), rpc...)
	}
	return wrapKMS(ctx, uri, c, get)
}

// wrapKMS loads a key with get, bounded by c.timeout and ctx, and reads its
// Ed25519 public key through the bounded signer.
func wrapKMS(ctx context.Context, uri string, c signerConfig, get func(context.Context, string, ...signature.RPCOption) (signature.SignerVerifier, error)) (*Signer, error) {
	rpc := append([]signature.RPCOption{options.WithContext(ctx)}, c.rpc...)
	sv, err := withinKMS(ctx, c.timeout, uri, "loading the key", func() (signature.SignerVerifier, error) {
		return get(ctx, uri, rpc...)
	})
	if err != nil {
		var nf *kms.ProviderNotFoundError
		var te *KMSTimeoutError
		switch {
		case errors.As(err, &nf):
			return nil, fmt.Errorf("%s: no KMS provider for this URI (certcut signs through hashivault:// and openbao://)", uri)
		case errors.As(err, &te), errors.Is(err, context.Canceled):
			return nil, err
		}
		return nil, &KMSError{URI: uri, Call: "loading the key", Err: err}
	}
	bounded := &kmsSigner{sv: sv, uri: uri, timeout: c.timeout}
	pub, err := bounded.PublicKey(options.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	edPub, ok := pub.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the KMS key is %T (create the transit key with type ed25519)", uri, ErrNotEd25519, pub)
	}
	return &Signer{Signer: bounded, Public: edPub, Ref: ShownRef(uri)}, nil
}

// Generate makes a new Ed25519 key pair from rnd (crypto/rand when nil).
func Generate(rnd io.Reader) (ed25519.PrivateKey, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	_, priv, err := ed25519.GenerateKey(rnd)
	return priv, err
}

// MarshalPrivatePEM returns the unencrypted PKCS#8 PEM form of an Ed25519 private
// key, the form LoadPrivatePEM reads.
func MarshalPrivatePEM(priv ed25519.PrivateKey) ([]byte, error) {
	return cryptoutils.MarshalPrivateKeyToPEM(priv)
}
