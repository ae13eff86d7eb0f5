package attest_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
	vsa "github.com/in-toto/attestation/go/predicates/vsa/v1"
	intoto "github.com/in-toto/attestation/go/v1"
	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"google.golang.org/protobuf/encoding/protojson"
)

// edVerifier is a go-securesystemslib DSSE verifier over crypto/ed25519 alone:
// neither certcut's nor sigstore's code checks the signature.
type edVerifier struct {
	pub ed25519.PublicKey
	id  string
}

func (v edVerifier) Verify(_ context.Context, data, sig []byte) error {
	if !ed25519.Verify(v.pub, data, sig) {
		return errors.New("ed25519: signature does not verify")
	}
	return nil
}
func (v edVerifier) Public() crypto.PublicKey { return v.pub }
func (v edVerifier) KeyID() (string, error)   { return v.id, nil }

// independentCheck checks an envelope as a tool that is not certcut would:
// go-securesystemslib's DSSE verifier (PAE, then the Ed25519 signature), a PAE
// written out by hand from the DSSE protocol, the in-toto Go bindings' strict
// JSON reading (no unknown field) and Statement validation, and for a VSA the
// bindings' VerificationSummary.
func independentCheck(envelope []byte, pub ed25519.PublicKey, keyID string) (*intoto.Statement, error) {
	var env ssldsse.Envelope
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, fmt.Errorf("envelope: %w", err)
	}
	ev, err := ssldsse.NewEnvelopeVerifier(edVerifier{pub: pub, id: keyID})
	if err != nil {
		return nil, err
	}
	_, payload, err := ev.VerifyAndDecode(context.Background(), &env)
	if err != nil {
		return nil, fmt.Errorf("go-securesystemslib dsse: %w", err)
	}
	if len(env.Signatures) != 1 {
		return nil, fmt.Errorf("%d signatures, want 1", len(env.Signatures))
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		return nil, err
	}
	pae := fmt.Sprintf("DSSEv1 %d %s %d %s", len(env.PayloadType), env.PayloadType, len(payload), payload)
	if !ed25519.Verify(pub, []byte(pae), sig) {
		return nil, errors.New("hand-written PAE: signature does not verify")
	}
	if env.PayloadType != "application/vnd.in-toto+json" {
		return nil, fmt.Errorf("payloadType %q", env.PayloadType)
	}
	st := &intoto.Statement{}
	if err := protojson.Unmarshal(payload, st); err != nil {
		return nil, fmt.Errorf("in-toto statement: %w", err)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("in-toto validation: %w", err)
	}
	if st.GetType() != "https://in-toto.io/Statement/v1" {
		return nil, fmt.Errorf("_type %q", st.GetType())
	}
	if st.GetPredicateType() == "https://slsa.dev/verification_summary/v1" {
		data, err := protojson.Marshal(st.GetPredicate())
		if err != nil {
			return nil, err
		}
		if err := protojson.Unmarshal(data, &vsa.VerificationSummary{}); err != nil {
			return nil, fmt.Errorf("VSA: %w", err)
		}
	}
	return st, nil
}

// tamper returns the envelope with one byte of its decoded payload, or of its
// signature, changed.
func tamper(t *testing.T, envelope []byte, part string) []byte {
	t.Helper()
	var env attest.Envelope
	if err := json.Unmarshal(envelope, &env); err != nil {
		t.Fatal(err)
	}
	field := &env.Payload
	if part == "signature" {
		field = &env.Signatures[0].Sig
	}
	raw, err := base64.StdEncoding.DecodeString(*field)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x01
	*field = base64.StdEncoding.EncodeToString(raw)
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func testSigner(t *testing.T, name string) *keys.Signer {
	t.Helper()
	sv, err := keys.NewSigner(testkit.Key(name))
	if err != nil {
		t.Fatal(err)
	}
	return &keys.Signer{Signer: sv, Public: testkit.Public(name), Ref: "testkit:" + name}
}

func attestorSet(name, keyID string) keys.Set {
	return keys.Set{{Key: testkit.Public(name), KeyID: keyID, Source: keys.SourcePEMFile, Origin: "testkit"}}
}

// TestCorpusIndependent attests every real corpus bundle (under the corpus keys,
// with a test attestor key) with both predicates, and checks each envelope with the
// independent implementation and with Verify; a changed byte in the payload or
// the signature is refused by both.
func TestCorpusIndependent(t *testing.T) {
	dir := testkit.CorpusDir(t)
	hostKeys, err := keys.LoadPublic(filepath.Join(dir, "keys"))
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.Options{HostKeys: hostKeys, Registry: profiles.Default()}
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	if len(files) == 0 {
		t.Fatal("no corpus bundles")
	}
	signer := testSigner(t, "attestor")
	trusted := attestorSet("attestor", "corpus-attestor-1")
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	tested := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := attest.RepoPath(dir, file)
		want, err := verify.Parse(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, predicate := range []string{attest.PredicateVSA, attest.PredicateBundle} {
			t.Run(filepath.Base(file)+"/"+map[string]string{attest.PredicateVSA: "vsa", attest.PredicateBundle: "bundle"}[predicate], func(t *testing.T) {
				a, err := attest.Bundle(attest.BundleRequest{Options: attest.Options{Version: "v0.0.0-test", Time: at},
					Data: data, Name: name, Verify: opts, Predicate: predicate, AllowCoherent: true})
				if err != nil {
					t.Fatal(err)
				}
				env, err := attest.Sign(a.Statement, signer, "corpus-attestor-1")
				if err != nil {
					t.Fatal(err)
				}
				st, err := independentCheck(env, testkit.Public("attestor"), "") // the DSSE default: the key's SHA256 fingerprint
				if err != nil {
					t.Fatalf("independent check refused certcut's envelope: %v", err)
				}
				if !slices.ContainsFunc(st.GetSubject(), func(s *intoto.ResourceDescriptor) bool {
					return s.GetName() == name && s.GetDigest()["sha256"] == attest.Sha256Hex(data)
				}) {
					t.Errorf("no subject names %s with its sha256", name)
				}
				res, err := attest.Verify(env, attest.Policy{Keys: trusted, SubjectDigest: "sha256:" + attest.Sha256Hex(data), PredicateType: predicate})
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case want.Outcome == verify.Verified:
					if res.Outcome != verify.Verified {
						t.Errorf("Verify: %s %v %v", res.Outcome, res.Problems, res.Unverified)
					}
				default: // a COHERENT bundle: its VSA records FAILED, its bundle predicate says so
					if res.Outcome != verify.Rejected || len(res.Problems) != 1 || res.Problems[0].Kind != attest.ProblemFailed {
						t.Errorf("Verify of a FAILED VSA: %s %v", res.Outcome, res.Problems)
					}
				}
				if predicate == attest.PredicateBundle {
					checkBundleRoundTrip(t, st, opts, want)
				}
				for _, part := range []string{"payload", "signature"} {
					bad := tamper(t, env, part)
					if _, err := independentCheck(bad, testkit.Public("attestor"), "corpus-attestor-1"); err == nil {
						t.Errorf("independent check accepted a changed %s", part)
					}
					res, err := attest.Verify(bad, attest.Policy{Keys: trusted})
					if err != nil && part == "signature" {
						t.Fatal(err)
					}
					if err == nil && (res.Outcome != verify.Rejected || !hasProblem(res, attest.ProblemSignature)) {
						t.Errorf("Verify of a changed %s: %s %v", part, res.Outcome, res.Problems)
					}
				}
				tested++
			})
		}
	}
	t.Logf("%d envelopes over %d corpus bundles checked independently", tested, len(files))
}

// checkBundleRoundTrip: the bundle predicate, read back, is judged exactly as the
// bundle file was.
func checkBundleRoundTrip(t *testing.T, st *intoto.Statement, opts verify.Options, want *verify.Verdict) {
	t.Helper()
	data, err := protojson.Marshal(st.GetPredicate())
	if err != nil {
		t.Fatal(err)
	}
	got, err := verify.Parse(data, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome != want.Outcome || !slices.Equal(got.CertifiedProfiles, want.CertifiedProfiles) || got.WitnessRecomputed != want.WitnessRecomputed {
		t.Errorf("the bundle predicate verifies %s %v (witness %s), the file %s %v (witness %s)",
			got.Outcome, got.CertifiedProfiles, got.WitnessRecomputed, want.Outcome, want.CertifiedProfiles, want.WitnessRecomputed)
	}
}

func hasProblem(r *attest.Result, k attest.ProblemKind) bool {
	return slices.ContainsFunc(r.Problems, func(p attest.Problem) bool { return p.Kind == k })
}

// TestGoldenIndependent: the walk-through's golden envelopes pass the independent
// check under the demo attestor's published key, their keyid its DSSE fingerprint.
func TestGoldenIndependent(t *testing.T) {
	pub := mustPublic(t, attestorPub)[0].Key
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if len(files) != 3 {
		t.Fatalf("%d golden envelopes, want 3", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The DSSE default: the verifier computes the key's fingerprint itself.
		if _, err := independentCheck(data, pub, ""); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		var env attest.Envelope
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatal(err)
		}
		if fp, _ := attest.DSSEFingerprint(pub); env.Signatures[0].KeyID != fp {
			t.Errorf("%s: keyid %q", f, env.Signatures[0].KeyID)
		}
	}
}
