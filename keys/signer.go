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

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/kms"

	// The HashiCorp Vault (and OpenBao) transit provider: hashivault:// key URIs.
	_ "github.com/sigstore/sigstore/pkg/signature/kms/hashivault"
)

// Signer is a loaded Ed25519 signing key: a sigstore signer (a local key or a KMS
// key) and its public key.
type Signer struct {
	signature.Signer
	// Public is the Ed25519 public key, read from the key itself (for KMS keys, from
	// the KMS), so a signature can be checked locally.
	Public ed25519.PublicKey
	// Ref says where the key is (a path, env:NAME or a KMS URI), never its material.
	Ref string
	// PEM is the private key's PEM text when it was read from a file or the
	// environment, so that callers can keep it out of any output; nil for KMS keys.
	PEM []byte
}

// Key returns the public key with a key id, as a discovery entry publishes it.
func (s *Signer) Key(keyID string) PublicKey {
	return PublicKey{Key: s.Public, KeyID: keyID, Source: SourceSigner, Origin: s.Ref}
}

// EnvPrefix marks a key reference that names an environment variable holding the
// PEM text: env:OPENWOP_BUNDLE_SIGNING_KEY.
const EnvPrefix = "env:"

// IsKMS reports whether ref is a KMS key URI (scheme://…) rather than a file or
// environment reference.
func IsKMS(ref string) bool { return strings.Contains(ref, "://") }

// LoadSigner loads a signing key from one of three references:
//
//   - a KMS URI (hashivault://KEY, openbao://KEY), through sigstore's KMS support;
//     Vault's address and token come from VAULT_ADDR and VAULT_TOKEN unless opts
//     carry them. The key must be an Ed25519 transit key.
//   - env:NAME, an environment variable holding the PKCS#8 PEM text.
//   - a path to a PKCS#8 PEM file, refused when group or others can read it.
//
// Errors never quote key material.
func LoadSigner(ctx context.Context, ref string, opts ...signature.RPCOption) (*Signer, error) {
	switch {
	case ref == "":
		return nil, errors.New("no signing key given")
	case IsKMS(ref):
		return LoadKMSSigner(ctx, ref, opts...)
	case strings.HasPrefix(ref, EnvPrefix):
		name := strings.TrimPrefix(ref, EnvPrefix)
		text := os.Getenv(name)
		if strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("environment variable %s holds no signing key (set it to the PKCS#8 PEM text)", name)
		}
		priv, err := ParsePrivatePEM([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("environment variable %s: %w", name, err)
		}
		return localSigner(priv, ref, []byte(text))
	default:
		priv, err := LoadPrivatePEM(ref)
		if err != nil {
			return nil, err
		}
		data, _ := os.ReadFile(ref)
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

// LoadKMSSigner loads an Ed25519 KMS key through sigstore's kms.Get, with no
// pre-hash (crypto.Hash(0)): Ed25519 signs the message itself.
func LoadKMSSigner(ctx context.Context, uri string, opts ...signature.RPCOption) (*Signer, error) {
	sv, err := kms.Get(ctx, uri, crypto.Hash(0), opts...)
	if err != nil {
		var nf *kms.ProviderNotFoundError
		if errors.As(err, &nf) {
			return nil, fmt.Errorf("%s: no KMS provider for this URI (certcut signs through hashivault:// and openbao://)", uri)
		}
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	pub, err := sv.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the public key: %w", uri, err)
	}
	edPub, ok := pub.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the KMS key is %T (create the transit key with type ed25519)", uri, ErrNotEd25519, pub)
	}
	return &Signer{Signer: sv, Public: edPub, Ref: uri}, nil
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
