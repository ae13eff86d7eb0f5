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

// Sign encodes the statement (Payload) and signs it with sigstore's DSSE signer
// over the pre-authentication encoding, under keyID (written as the signature's
// keyid). It checks the signature under s.Public before returning the envelope
// file's bytes: one line of JSON and a newline. A failure to sign is a *SignError.
func Sign(st *intoto.Statement, s *keys.Signer, keyID string) ([]byte, error) {
	if s == nil {
		return nil, errors.New("attest: no signer")
	}
	if !keys.KeyIDPattern.MatchString(keyID) {
		return nil, fmt.Errorf("key id %q does not match %s", keyID, keys.KeyIDPattern)
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
	env.Signatures[0].KeyID = keyID
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
