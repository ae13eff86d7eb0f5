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

	// The HashiCorp Vault (and OpenBao) transit provider: hashivault:// key URIs.
	_ "github.com/sigstore/sigstore/pkg/signature/kms/hashivault"
)

// Signer is a loaded Ed25519 signing key: a sigstore signer (a local key, a KMS
// key or a PKCS#11 token key) and its public key.
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
// Every call to a KMS or a token is bounded by KMSTimeout(ctx). Errors never quote
// key material or a PIN. Close the Signer when done (it ends a token session).
func LoadSigner(ctx context.Context, ref string, opts ...signature.RPCOption) (*Signer, error) {
	switch {
	case ref == "":
		return nil, errors.New("no signing key given")
	case IsPKCS11(ref):
		return LoadPKCS11Signer(ctx, ref)
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
			s, err := loadPKCS11URI(ctx, u)
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
		return localSigner(priv, ref, data)
	}
}

func localSigner(priv ed25519.PrivateKey, ref string, pemText []byte) (*Signer, error) {
	sv, err := NewSigner(priv)
	if err != nil {
		return nil, err
	}
	return &Signer{Signer: sv, Public: priv.Public().(ed25519.PublicKey), Ref: ref, PEM: pemText}, nil
}

// DefaultKMSTimeout bounds each call to a KMS (loading the key and reading its
// public key, making a signature) when the context carries no other bound
// (WithKMSTimeout).
const DefaultKMSTimeout = 30 * time.Second

type kmsTimeoutKey struct{}

// WithKMSTimeout returns a context under which LoadSigner bounds every call to a
// KMS key it loads (the public key now, each signature later) by d.
func WithKMSTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, kmsTimeoutKey{}, d)
}

// KMSTimeout returns the per-call KMS bound ctx carries, DefaultKMSTimeout when
// none.
func KMSTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(kmsTimeoutKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return DefaultKMSTimeout
}

// KMSTimeoutError is a KMS call that did not complete within its bound. The call
// is abandoned: sigstore's Vault client takes no context, so it cannot be
// cancelled, only no longer waited for.
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
// allows). A panic in the call is re-raised in the caller's goroutine.
func withinKMS[T any](ctx context.Context, timeout time.Duration, uri, call string, f func() (T, error)) (T, error) {
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

// kmsSigner bounds every call to a KMS signer by a timeout.
type kmsSigner struct {
	sv      signature.SignerVerifier
	uri     string
	timeout time.Duration
}

func (k *kmsSigner) PublicKey(opts ...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return withinKMS(context.Background(), k.timeout, k.uri, "reading the public key", func() (crypto.PublicKey, error) {
		pub, err := k.sv.PublicKey(opts...)
		if err != nil {
			return nil, &KMSError{URI: k.uri, Call: "reading the public key", Err: err}
		}
		return pub, nil
	})
}

func (k *kmsSigner) SignMessage(message io.Reader, opts ...signature.SignOption) ([]byte, error) {
	return withinKMS(context.Background(), k.timeout, k.uri, "signing", func() ([]byte, error) {
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
// is bounded by KMSTimeout(ctx) and fails with *KMSTimeoutError past it; other
// failures of a call are *KMSError.
func LoadKMSSigner(ctx context.Context, uri string, opts ...signature.RPCOption) (*Signer, error) {
	timeout := KMSTimeout(ctx)
	sv, err := withinKMS(ctx, timeout, uri, "loading the key", func() (signature.SignerVerifier, error) {
		return kms.Get(ctx, uri, crypto.Hash(0), opts...)
	})
	if err != nil {
		var nf *kms.ProviderNotFoundError
		var te *KMSTimeoutError
		switch {
		case errors.As(err, &nf):
			return nil, fmt.Errorf("%s: no KMS provider for this URI (certcut signs through hashivault:// and openbao://)", uri)
		case errors.As(err, &te):
			return nil, err
		}
		return nil, &KMSError{URI: uri, Call: "loading the key", Err: err}
	}
	bounded := &kmsSigner{sv: sv, uri: uri, timeout: timeout}
	pub, err := withinKMS(ctx, timeout, uri, "reading the public key", func() (crypto.PublicKey, error) {
		pub, err := sv.PublicKey()
		if err != nil {
			return nil, &KMSError{URI: uri, Call: "reading the public key", Err: err}
		}
		return pub, nil
	})
	if err != nil {
		return nil, err
	}
	edPub, ok := pub.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the KMS key is %T (create the transit key with type ed25519)", uri, ErrNotEd25519, pub)
	}
	return &Signer{Signer: bounded, Public: edPub, Ref: uri}, nil
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
