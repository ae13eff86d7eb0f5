package attest

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/certcut/certcut/keys"
	intoto "github.com/in-toto/attestation/go/v1"
	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/sigstore/sigstore/pkg/signature"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
)

// Envelope is a DSSE envelope as certcut writes it: members in this order, one
// line of JSON.
type Envelope struct {
	PayloadType string              `json:"payloadType"`
	Payload     string              `json:"payload"`
	Signatures  []EnvelopeSignature `json:"signatures"`
}

// EnvelopeSignature is one signature of an envelope. KeyID is a hint that no
// signature covers.
type EnvelopeSignature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// SignError is a signature that could not be made (the signer, a KMS, failed) or
// that does not verify under the signer's own public key.
type SignError struct{ Err error }

func (e *SignError) Error() string { return "signing the attestation: " + e.Err.Error() }
func (e *SignError) Unwrap() error { return e.Err }

// KeyIDMode says what an envelope signature's keyid holds. The keyid is a hint
// no signature covers; verifiers use it to pick a key.
type KeyIDMode string

// KeyID modes.
const (
	// KeyIDFingerprint writes the key's SSH-style SHA-256 fingerprint
	// ("SHA256:" and unpadded base64, DSSEFingerprint): what slsa-verifier
	// verify-vsa and go-securesystemslib's DSSE verifier expect by default, so
	// `slsa-verifier verify-vsa --public-key-path KEY` passes without
	// --public-key-id. The default.
	KeyIDFingerprint KeyIDMode = "fingerprint"
	// KeyIDNone writes an empty keyid: every DSSE verifier then tries the key
	// it is given.
	KeyIDNone KeyIDMode = "none"
	// KeyIDName writes the attestor's certcut key id (--key-id): verifiers must
	// then be told it (slsa-verifier --public-key-id ID).
	KeyIDName KeyIDMode = "id"
)

// ParseKeyIDMode reads a --dsse-keyid word.
func ParseKeyIDMode(s string) (KeyIDMode, error) {
	switch m := KeyIDMode(s); m {
	case KeyIDFingerprint, KeyIDNone, KeyIDName:
		return m, nil
	}
	return "", fmt.Errorf("%q is none of fingerprint, none, id", s)
}

// DSSEFingerprint is the keyid DSSE verifiers compute for a key by default:
// "SHA256:" and the unpadded base64 SHA-256 of the key in SSH wire form (what
// `ssh-keygen -l` prints), as go-securesystemslib's dsse.SHA256KeyID.
func DSSEFingerprint(pub ed25519.PublicKey) (string, error) {
	return ssldsse.SHA256KeyID(pub)
}

// EnvelopeKeyID is the keyid written for mode: the key's DSSE fingerprint, "",
// or the certcut key id.
func EnvelopeKeyID(mode KeyIDMode, keyID string, pub ed25519.PublicKey) (string, error) {
	switch mode {
	case KeyIDNone:
		return "", nil
	case KeyIDName:
		return keyID, nil
	case KeyIDFingerprint, "":
		return DSSEFingerprint(pub)
	}
	return "", fmt.Errorf("attest: keyid mode %q is none of fingerprint, none, id", mode)
}

// Sign encodes the statement (Payload) and signs it with sigstore's DSSE signer
// over the pre-authentication encoding, under keyID, the certcut key id of the
// attestor's key; the signature's keyid is what mode says (KeyIDFingerprint
// when ""). It checks the signature under s.Public before returning the
// envelope file's bytes: one line of JSON and a newline. A failure to sign is a
// *SignError.
func Sign(st *intoto.Statement, s *keys.Signer, keyID string) ([]byte, error) {
	return SignWith(st, s, keyID, KeyIDFingerprint)
}

// SignWith is Sign with the keyid mode given.
func SignWith(st *intoto.Statement, s *keys.Signer, keyID string, mode KeyIDMode) ([]byte, error) {
	if s == nil {
		return nil, errors.New("attest: no signer")
	}
	if !keys.KeyIDPattern.MatchString(keyID) {
		return nil, fmt.Errorf("key id %q does not match %s", keyID, keys.KeyIDPattern)
	}
	written, err := EnvelopeKeyID(mode, keyID, s.Public)
	if err != nil {
		return nil, err
	}
	payload, err := Payload(st)
	if err != nil {
		return nil, err
	}
	raw, err := sigdsse.WrapSigner(s.Signer, PayloadType).SignMessage(bytes.NewReader(payload))
	if err != nil {
		return nil, &SignError{Err: err}
	}
	var env Envelope
	if err := json.Unmarshal(raw, &env); err != nil || len(env.Signatures) != 1 {
		return nil, &SignError{Err: fmt.Errorf("the DSSE signer returned no envelope with one signature")}
	}
	env.Signatures[0].KeyID = written
	if err := checkSignature(env, env.Signatures[0], s.Public); err != nil {
		return nil, &SignError{Err: fmt.Errorf("the signature made with %s does not verify under its public key: %w", s.Ref, err)}
	}
	out, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// checkSignature verifies one signature of env under pub with sigstore's DSSE
// verifier (PAE over payloadType and the decoded payload). The key was chosen by
// the caller, so the keyid hint is cleared: the DSSE library would otherwise
// compare it with an SSH-style fingerprint of the key.
func checkSignature(env Envelope, sig EnvelopeSignature, pub ed25519.PublicKey) error {
	v, err := signature.LoadED25519Verifier(pub)
	if err != nil {
		return err
	}
	one := ssldsse.Envelope{PayloadType: env.PayloadType, Payload: env.Payload, Signatures: []ssldsse.Signature{{Sig: sig.Sig}}}
	data, err := json.Marshal(one)
	if err != nil {
		return err
	}
	return sigdsse.WrapVerifier(v).VerifySignature(bytes.NewReader(data), nil)
}
