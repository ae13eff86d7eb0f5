package keys

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/sigstore/sigstore/pkg/signature"
)

// EncodeSignature writes a 64-byte signature as unpadded base64url (86 characters),
// the form of signature.sig.
func EncodeSignature(sig []byte) string { return base64.RawURLEncoding.EncodeToString(sig) }

// DecodeSignature reads signature.sig. Like the reference (Node's lenient decoder
// after mapping '-' and '_'), it accepts padding and the standard alphabet, but the
// result must be exactly 64 bytes.
func DecodeSignature(s string) ([]byte, error) {
	std := strings.TrimRight(strings.NewReplacer("-", "+", "_", "/").Replace(s), "=")
	b, err := base64.RawStdEncoding.DecodeString(std)
	if err != nil {
		return nil, fmt.Errorf("signature is not base64url: %w", err)
	}
	if len(b) != ed25519.SignatureSize {
		return nil, fmt.Errorf("signature decodes to %d bytes, an Ed25519 signature has %d", len(b), ed25519.SignatureSize)
	}
	return b, nil
}

// ErrBadSignature is returned when a well-formed signature does not verify.
var ErrBadSignature = errors.New("the Ed25519 signature does not verify")

// Verify checks a base64url signature over message under pub, with sigstore's
// Ed25519 verifier (pure Ed25519, RFC 8032).
func Verify(pub ed25519.PublicKey, message []byte, sig string) error {
	raw, err := DecodeSignature(sig)
	if err != nil {
		return err
	}
	v, err := signature.LoadED25519Verifier(pub)
	if err != nil {
		return err
	}
	if err := v.VerifySignature(bytes.NewReader(raw), bytes.NewReader(message)); err != nil {
		return ErrBadSignature
	}
	return nil
}

// Sign signs message with any sigstore signer (a PEM key, a KMS key) and returns the
// signature as unpadded base64url. Ed25519 signs the message itself, never a digest.
// opts go to the signer: options.WithContext(ctx) bounds a KMS or token signature
// by ctx as well as by the signer's timeout.
func Sign(s signature.Signer, message []byte, opts ...signature.SignOption) (string, error) {
	sig, err := s.SignMessage(bytes.NewReader(message), opts...)
	if err != nil {
		return "", err
	}
	if len(sig) != ed25519.SignatureSize {
		return "", fmt.Errorf("signer returned %d bytes, not an Ed25519 signature", len(sig))
	}
	return EncodeSignature(sig), nil
}

// SignBundle signs a sealed bundle as its host: it sets signature (and
// host.signingKeyId when empty) and re-encodes b.Raw. keyID must equal
// host.signingKeyId when that is set. opts go to the signer (Sign).
func SignBundle(b *bundle.Bundle, s signature.Signer, keyID string, opts ...signature.SignOption) error {
	if !KeyIDPattern.MatchString(keyID) {
		return fmt.Errorf("key id %q does not match %s", keyID, KeyIDPattern)
	}
	if b.Host.SigningKeyID == "" {
		b.Host.SigningKeyID = keyID
	}
	if b.Host.SigningKeyID != keyID {
		return fmt.Errorf("key id %q is not host.signingKeyId %q; sign with the key the bundle names", keyID, b.Host.SigningKeyID)
	}
	sig, err := signAttestation(b, s, opts...)
	if err != nil {
		return err
	}
	b.Signature = &bundle.Signature{Alg: bundle.AlgEd25519, KeyID: keyID, Sig: sig, Over: append([]string(nil), bundle.SignatureOver...)}
	b.Raw = b.Value()
	return nil
}

// CountersignBundle adds an independent verifier's signature over the same
// attestation payload. It refuses the host's own key id. opts go to the signer
// (Sign).
func CountersignBundle(b *bundle.Bundle, s signature.Signer, keyID string, opts ...signature.SignOption) error {
	if !KeyIDPattern.MatchString(keyID) {
		return fmt.Errorf("key id %q does not match %s", keyID, KeyIDPattern)
	}
	if b.Signature != nil && keyID == b.Signature.KeyID || keyID == b.Host.SigningKeyID {
		return fmt.Errorf("verifier key id %q is the host's own key id; an independent verifier signs with its own key", keyID)
	}
	sig, err := signAttestation(b, s, opts...)
	if err != nil {
		return err
	}
	b.VerifierSignature = &bundle.Signature{Alg: bundle.AlgEd25519, KeyID: keyID, Sig: sig}
	b.Raw = b.Value()
	return nil
}

func signAttestation(b *bundle.Bundle, s signature.Signer, opts ...signature.SignOption) (string, error) {
	payload, err := b.Attestation() // = bundle.Attestation(b.Value()), without building the document
	if err != nil {
		return "", err
	}
	return Sign(s, payload, opts...)
}
