package attest_test

import (
	"bytes"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

var at = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func opts() attest.Options { return attest.Options{Version: "v0.0.0-test", Time: at} }

func hostTrust() verify.Options {
	return verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}
}

func TestBuildDigest(t *testing.T) {
	hex40 := strings.Repeat("ab", 20)
	hex64 := strings.Repeat("cd", 32)
	for _, tc := range []struct {
		build bundle.Build
		want  map[string]string
		why   string
	}{
		{bundle.Build{Kind: "commit", ID: hex40}, map[string]string{"gitCommit": hex40}, ""},
		{bundle.Build{Kind: "commit", ID: "8bd19f29b"}, nil, "not a full 40-hex-digit git commit id"},
		{bundle.Build{Kind: "commit", ID: strings.ToUpper(hex40)}, nil, "not a full 40-hex-digit"},
		{bundle.Build{Kind: "commit", ID: hex64}, nil, "not a full 40-hex-digit"},
		{bundle.Build{Kind: "image-digest", ID: "sha256:" + hex64}, map[string]string{"sha256": hex64}, ""},
		{bundle.Build{Kind: "image-digest", ID: "sha512:" + hex64 + hex64}, map[string]string{"sha512": hex64 + hex64}, ""},
		{bundle.Build{Kind: "image-digest", ID: hex64}, nil, "not sha256:<64 hex digits>"},
		{bundle.Build{Kind: "image-digest", ID: "md5:" + hex40[:32]}, nil, "not sha256:"},
		{bundle.Build{Kind: "artifact-sha256", ID: hex64}, map[string]string{"sha256": hex64}, ""},
		{bundle.Build{Kind: "artifact-sha256", ID: hex40}, nil, "not 64 lowercase hex digits"},
		{bundle.Build{Kind: "tarball", ID: hex64}, nil, "none of commit"},
	} {
		got, why := attest.BuildDigest(tc.build)
		if len(got) != len(tc.want) || (tc.want != nil && got[firstKey(tc.want)] != tc.want[firstKey(tc.want)]) {
			t.Errorf("%s: digest %v, want %v", tc.build, got, tc.want)
		}
		if !strings.Contains(why, tc.why) || (tc.why == "" && why != "") {
			t.Errorf("%s: why %q, want %q", tc.build, why, tc.why)
		}
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

func TestVerifyPolicyURI(t *testing.T) {
	for version, want := range map[string]string{
		"v1.2.3":                             "https://github.com/certcut/certcut/blob/v1.2.3/docs/verify.md",
		"(devel)":                            "https://github.com/certcut/certcut/blob/main/docs/verify.md",
		"v0.0.0-20261120100000-0123456789ab": "https://github.com/certcut/certcut/blob/main/docs/verify.md",
		"v1.2.3+dirty":                       "https://github.com/certcut/certcut/blob/main/docs/verify.md",
	} {
		if got := attest.VerifyPolicyURI(version); got != want {
			t.Errorf("%s: %s, want %s", version, got, want)
		}
	}
}

func TestRepoPath(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		root, file, want string
		inside           bool
	}{
		{root, filepath.Join(root, "evidence", "b.json"), "evidence/b.json", true},
		{root, filepath.Join(root, "..", "b.json"), filepath.ToSlash(filepath.Clean(filepath.Join(root, "..", "b.json"))), false},
		{root, root, filepath.ToSlash(root), false},
		{"", "a/b.json", "a/b.json", true},
		{".", "../b.json", "../b.json", false},
	} {
		got, inside := attest.RepoPath(tc.root, tc.file)
		if got != tc.want || inside != tc.inside {
			t.Errorf("RepoPath(%q, %q) = %q, %v; want %q, %v", tc.root, tc.file, got, inside, tc.want, tc.inside)
		}
	}
}

func TestBundleVerdicts(t *testing.T) {
	fresh := testkit.Encode(testkit.Signed("https://host.example"))
	req := attest.BundleRequest{Options: opts(), Data: fresh, Name: "fresh.json", Verify: hostTrust(), Predicate: attest.PredicateVSA}

	a, err := attest.Bundle(req)
	if err != nil || a.Result != attest.Passed || len(a.Statement.GetSubject()) != 2 || len(a.Warnings) != 0 {
		t.Fatalf("VERIFIED bundle: %v %+v", err, a)
	}

	// COHERENT: refused, unless allowed; then FAILED with the reasons.
	coherent := req
	coherent.Verify = verify.Options{Registry: profiles.Default()}
	var nv *attest.NotVerifiedError
	if _, err := attest.Bundle(coherent); !errors.As(err, &nv) || nv.Verdict.Outcome != verify.Coherent {
		t.Fatalf("COHERENT without AllowCoherent: %v", err)
	}
	coherent.AllowCoherent = true
	a, err = attest.Bundle(coherent)
	if err != nil || a.Result != attest.Failed {
		t.Fatalf("COHERENT with AllowCoherent: %v %+v", err, a)
	}
	ann := a.Statement.GetSubject()[1].GetAnnotations().GetFields()
	if ann[attest.AnnotationVerdict].GetStringValue() != "COHERENT" || len(ann[attest.AnnotationReasons].GetListValue().GetValues()) == 0 {
		t.Errorf("COHERENT annotations: %v", ann)
	}
	if _, ok := ann[attest.AnnotationHostKey]; ok {
		t.Errorf("a COHERENT bundle names no trusted host key: %v", ann)
	}

	// REJECTED: refused even with AllowCoherent.
	b := testkit.Signed("https://host.example")
	b.Raw = b.Raw.With("assertionCount", bundle.IntValue(b.AssertionCount+1))
	rejected := req
	rejected.Data, rejected.AllowCoherent = testkit.Encode(b), true
	if _, err := attest.Bundle(rejected); !errors.As(err, &nv) || nv.Verdict.Outcome != verify.Rejected || !strings.Contains(err.Error(), "[assertion-count]") {
		t.Fatalf("REJECTED: %v", err)
	}

	// Not I-JSON: the reader's error.
	broken := req
	broken.Data = []byte(`{"bundleVersion": "3",`)
	var syn *bundle.SyntaxError
	if _, err := attest.Bundle(broken); !errors.As(err, &syn) {
		t.Fatalf("not JSON: %v", err)
	}

	// An incomplete request says so.
	for _, bad := range []attest.BundleRequest{
		{Options: attest.Options{Version: "v"}, Data: fresh, Name: "x", Predicate: attest.PredicateVSA},
		{Options: opts(), Data: fresh, Predicate: attest.PredicateVSA},
		{Options: opts(), Data: fresh, Name: "x", Predicate: "https://slsa.dev/provenance/v1"},
	} {
		if _, err := attest.Bundle(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// An abbreviated commit is no digest: the bundle file is the only subject, and
// the statement says why.
func TestBundleAbbreviatedCommit(t *testing.T) {
	b := testkit.Unsigned("https://host.example")
	b.Host.Build = bundle.Build{Kind: bundle.BuildCommit, ID: "8bd19f29b"}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	a, err := attest.Bundle(attest.BundleRequest{Options: opts(), Data: testkit.Encode(b), Name: "short.json", Verify: hostTrust(), Predicate: attest.PredicateVSA})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(a.Statement.GetSubject()); n != 1 {
		t.Fatalf("%d subjects, want 1", n)
	}
	why := a.Statement.GetSubject()[0].GetAnnotations().GetFields()[attest.AnnotationNoBuild].GetStringValue()
	if !strings.Contains(why, "commit 8bd19f29b is not a full") || len(a.Warnings) != 1 {
		t.Errorf("annotation %q, warnings %v", why, a.Warnings)
	}
	env, err := attest.SignWith(a.Statement, testSigner(t, "attestor"), "lab-1", attest.KeyIDName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := independentCheck(env, testkit.Public("attestor"), "lab-1"); err != nil {
		t.Fatal(err)
	}
}

// The payload is canonical JSON, and the same statement gives the same bytes.
func TestPayloadCanonical(t *testing.T) {
	a, err := attest.Bundle(attest.BundleRequest{Options: opts(), Data: testkit.Encode(testkit.Signed("https://host.example")),
		Name: "fresh.json", Verify: hostTrust(), Predicate: attest.PredicateBundle})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := attest.Payload(a.Statement)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := attest.Payload(a.Statement)
	v, err := bundle.ParseIJSON(p1)
	if err != nil {
		t.Fatal(err)
	}
	canon, _ := bundle.Canonical(v)
	if !bytes.Equal(p1, p2) || !bytes.Equal(p1, canon) {
		t.Error("the payload is not stable canonical JSON")
	}
}

func gateReport(status gate.Status) *gate.Report {
	return &gate.Report{
		Gate: "accepted", Subject: "RFC 0901", Status: status,
		RFC: &gate.RFCInfo{File: "testdata-rfc.md", Number: "0901"},
		Criteria: []gate.Criterion{
			{ID: gate.CritRequirement, Status: gate.Pass, Requirement: "openwop.requirement.0901.good"},
			{ID: gate.CritVerified, Status: gate.Pass, Bundle: &gate.BundleRef{File: "evidence/b.json", Sha256: strings.Repeat("1", 64)}},
			{ID: gate.CritGuard, Status: status, Reason: "the guard row is executed-fail", Bundle: &gate.BundleRef{File: "evidence/b.json", Sha256: strings.Repeat("1", 64)}},
			{ID: gate.CritTier, Status: gate.Pass, Bundle: &gate.BundleRef{File: "evidence/a.json", Sha256: strings.Repeat("2", 64)}},
		},
	}
}

func TestGate(t *testing.T) {
	dir := t.TempDir()
	rfcFile := filepath.Join(dir, "RFCS", "0901.md")
	if err := os.MkdirAll(filepath.Dir(rfcFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rfcFile, []byte("# RFC 0901\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := func(s gate.Status) attest.GateRequest {
		rep := gateReport(s)
		rep.RFC.File = rfcFile
		return attest.GateRequest{Options: opts(), Report: rep, Root: dir}
	}

	a, err := attest.Gate(req(gate.Fail))
	if err != nil || a.Result != attest.Failed {
		t.Fatalf("FAIL: %v %+v", err, a)
	}
	subject := a.Statement.GetSubject()[0]
	if subject.GetName() != "RFCS/0901.md" || subject.GetDigest()["sha256"] != attest.Sha256Hex([]byte("# RFC 0901\n")) {
		t.Errorf("subject %v", subject)
	}
	failed := subject.GetAnnotations().GetFields()[attest.AnnotationGateFailed].GetListValue().GetValues()
	if len(failed) != 1 || !strings.Contains(failed[0].GetStringValue(), "bundle.guard-closed evidence/b.json: the guard row is executed-fail") {
		t.Errorf("failed criteria %v", failed)
	}
	inputs := a.Statement.GetPredicate().GetFields()["inputAttestations"].GetListValue().GetValues()
	if len(inputs) != 2 || inputs[0].GetStructValue().GetFields()["uri"].GetStringValue() != "evidence/a.json" {
		t.Errorf("inputs: each bundle relied on once, in order: %v", inputs)
	}

	if a, err := attest.Gate(req(gate.Pass)); err != nil || a.Result != attest.Passed ||
		a.Statement.GetPredicate().GetFields()["verifiedLevels"].GetListValue().GetValues()[0].GetStringValue() != "OPENWOP_GATE_ACCEPTED" {
		t.Errorf("PASS: %v %+v", err, a)
	}
	var blocked *attest.BlockedError
	if _, err := attest.Gate(req(gate.Blocked)); !errors.As(err, &blocked) {
		t.Errorf("BLOCKED: %v", err)
	}
	noRFC := req(gate.Pass)
	noRFC.Report.RFC = nil
	if _, err := attest.Gate(noRFC); !errors.Is(err, attest.ErrNoRFC) {
		t.Errorf("no RFC: %v", err)
	}
	missing := req(gate.Pass)
	missing.Report.RFC.File = filepath.Join(dir, "absent.md")
	if _, err := attest.Gate(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing RFC file: %v", err)
	}
	withFile := req(gate.Pass)
	withFile.GateFile = filepath.Join(dir, "absent.yaml")
	if _, err := attest.Gate(withFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing gate file: %v", err)
	}
}

// failingSigner is a signer (a KMS, say) that fails, or returns a signature of
// other bytes.
type failingSigner struct {
	err   error
	wrong bool
}

func (f failingSigner) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return testkit.Public("attestor"), nil
}

func (f failingSigner) SignMessage(r io.Reader, _ ...signature.SignOption) ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	other, _ := keys.NewSigner(testkit.Key("other"))
	return other.SignMessage(r)
}

func TestSignFailures(t *testing.T) {
	a, err := attest.Bundle(attest.BundleRequest{Options: opts(), Data: testkit.Encode(testkit.Signed("https://host.example")),
		Name: "fresh.json", Verify: hostTrust(), Predicate: attest.PredicateVSA})
	if err != nil {
		t.Fatal(err)
	}
	var se *attest.SignError
	for _, s := range []failingSigner{{err: errors.New("the KMS is down")}, {wrong: true}} {
		signer := &keys.Signer{Signer: s, Public: testkit.Public("attestor"), Ref: "kms://test"}
		if _, err := attest.Sign(a.Statement, signer, "lab-1"); !errors.As(err, &se) {
			t.Errorf("%+v: %v, want a *SignError", s, err)
		}
	}
	if _, err := attest.Sign(a.Statement, testSigner(t, "attestor"), "bad id"); err == nil {
		t.Error("a bad key id was accepted")
	}
}

// envelopeOf builds an envelope around any payload, signed by the test attestor.
func envelopeOf(t *testing.T, payloadType string, payload []byte) []byte {
	t.Helper()
	s := testSigner(t, "attestor")
	pae := []byte("DSSEv1 " + strconv.Itoa(len(payloadType)) + " " + payloadType + " " + strconv.Itoa(len(payload)) + " " + string(payload))
	sig, err := s.SignMessage(bytes.NewReader(pae))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(attest.Envelope{PayloadType: payloadType, Payload: base64.StdEncoding.EncodeToString(payload),
		Signatures: []attest.EnvelopeSignature{{KeyID: "lab-1", Sig: base64.StdEncoding.EncodeToString(sig)}}})
	return out
}

// TestVerifyHostile: envelopes that are not what they claim are REJECTED with the
// right kind, never accepted, never a panic.
func TestVerifyHostile(t *testing.T) {
	trusted := attestorSet("attestor", "lab-1")
	const stmt = `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"` +
		"0000000000000000000000000000000000000000000000000000000000000000" + `"}}],"predicateType":"https://example.com/p","predicate":{"a":1}}`
	vsaStmt := func(pred string) []byte {
		return []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"` +
			strings.Repeat("0", 64) + `"}}],"predicateType":"https://slsa.dev/verification_summary/v1","predicate":` + pred + `}`)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want attest.ProblemKind // "" means VERIFIED
		err  bool
	}{
		{"not JSON", []byte("nope"), "", true},
		{"duplicate member", []byte(`{"payload":"e30=","payload":"e30="}`), "", true},
		{"an array", []byte(`[]`), attest.ProblemEnvelope, false},
		{"no payload", []byte(`{"payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AA=="}]}`), attest.ProblemEnvelope, false},
		{"payload not base64", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"!!","signatures":[{"sig":"AA=="}]}`), attest.ProblemEnvelope, false},
		{"no signatures", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[]}`), attest.ProblemEnvelope, false},
		{"signature not a string", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"sig":7}]}`), attest.ProblemEnvelope, false},
		{"too many signatures", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[` + strings.Repeat(`{"sig":"AA=="},`, attest.MaxSignatures) + `{"sig":"AA=="}]}`), attest.ProblemEnvelope, false},
		{"a plain statement", envelopeOf(t, attest.PayloadType, []byte(stmt)), "", false},
		{"wrong payload type, signed", envelopeOf(t, "application/json", []byte(stmt)), attest.ProblemPayloadType, false},
		{"payload not JSON, signed", envelopeOf(t, attest.PayloadType, []byte("hello")), attest.ProblemStatement, false},
		{"duplicate member in the payload, signed", envelopeOf(t, attest.PayloadType, []byte(`{"_type":"a","_type":"https://in-toto.io/Statement/v1"}`)), attest.ProblemStatement, false},
		{"statement v0.1", envelopeOf(t, attest.PayloadType, []byte(strings.Replace(stmt, "Statement/v1", "Statement/v0.1", 1))), attest.ProblemStatement, false},
		{"no subject", envelopeOf(t, attest.PayloadType, []byte(`{"_type":"https://in-toto.io/Statement/v1","predicateType":"p","predicate":{}}`)), attest.ProblemStatement, false},
		{"a bad digest", envelopeOf(t, attest.PayloadType, []byte(strings.Replace(stmt, strings.Repeat("0", 64), "xyz", 1))), attest.ProblemStatement, false},
		{"a VSA without its fields", envelopeOf(t, attest.PayloadType, vsaStmt(`{"verifier":{"id":"x"}}`)), attest.ProblemPredicate, false},
		{"a VSA with a bad time", envelopeOf(t, attest.PayloadType, vsaStmt(`{"timeVerified":"yesterday"}`)), attest.ProblemPredicate, false},
		{"a VSA that says PASSED and FAILED", envelopeOf(t, attest.PayloadType, vsaStmt(`{"verifier":{"id":"x"},"timeVerified":"2026-11-20T10:00:00Z","resourceUri":"r","policy":{"uri":"p"},"verificationResult":"PASSED","verifiedLevels":["FAILED"]}`)), attest.ProblemPredicate, false},
		{"a VSA that says MAYBE", envelopeOf(t, attest.PayloadType, vsaStmt(`{"verifier":{"id":"x"},"timeVerified":"2026-11-20T10:00:00Z","resourceUri":"r","policy":{"uri":"p"},"verificationResult":"MAYBE","verifiedLevels":["L"]}`)), attest.ProblemPredicate, false},
		{"a VSA that FAILED", envelopeOf(t, attest.PayloadType, vsaStmt(`{"verifier":{"id":"x"},"timeVerified":"2026-11-20T10:00:00Z","resourceUri":"r","policy":{"uri":"p"},"verificationResult":"FAILED","verifiedLevels":["FAILED"]}`)), attest.ProblemFailed, false},
		{"a VSA that PASSED", envelopeOf(t, attest.PayloadType, vsaStmt(`{"verifier":{"id":"x"},"timeVerified":"2026-11-20T10:00:00Z","resourceUri":"r","policy":{"uri":"p"},"verificationResult":"PASSED","verifiedLevels":["L"],"inputAttestations":[{"uri":"i","digest":{"sha256":"00"}}]}`)), "", false},
		{"a VSA input without digest", envelopeOf(t, attest.PayloadType, vsaStmt(`{"verifier":{"id":"x"},"timeVerified":"2026-11-20T10:00:00Z","resourceUri":"r","policy":{"uri":"p"},"verificationResult":"PASSED","verifiedLevels":["L"],"inputAttestations":[{"uri":"i"}]}`)), attest.ProblemPredicate, false},
		{"case-folded envelope member", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","Payload":"e30=","signatures":[{"sig":"AA=="}]}`), attest.ProblemEnvelope, false},
		{"case-folded signature member", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"sig":"AA==","Sig":"AA=="}]}`), attest.ProblemEnvelope, false},
		{"proto-name alias in the statement, signed", envelopeOf(t, attest.PayloadType, []byte(strings.Replace(stmt, `"predicate":`, `"predicate_type":"https://slsa.dev/verification_summary/v1","predicate":`, 1))), attest.ProblemStatement, false},
		{"case-folded member in a VSA, signed", envelopeOf(t, attest.PayloadType, vsaStmt(`{"verifier":{"id":"x"},"timeVerified":"2026-11-20T10:00:00Z","resourceUri":"r","policy":{"uri":"p"},"verificationResult":"FAILED","VerificationResult":"PASSED","verifiedLevels":["L"]}`)), attest.ProblemStatement, false},
		{"a bundle predicate that is no bundle", envelopeOf(t, attest.PayloadType, []byte(strings.Replace(stmt, "https://example.com/p", attest.PredicateBundle, 1))), attest.ProblemPredicate, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := attest.Verify(tc.data, attest.Policy{Keys: trusted})
			if tc.err {
				if err == nil {
					t.Fatalf("no error; result %+v", res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.Outcome != verify.Verified {
					t.Fatalf("%s %v", res.Outcome, res.Problems)
				}
				return
			}
			if res.Outcome != verify.Rejected || !hasProblem(res, tc.want) {
				t.Fatalf("%s %v, want REJECTED [%s]", res.Outcome, res.Problems, tc.want)
			}
		})
	}
}

// A bundle predicate whose host build is no subject is refused: the statement
// would say one build and show another.
func TestVerifyBundlePredicateBuildMismatch(t *testing.T) {
	a, err := attest.Bundle(attest.BundleRequest{Options: opts(), Data: testkit.Encode(testkit.Signed("https://host.example")),
		Name: "fresh.json", Verify: hostTrust(), Predicate: attest.PredicateBundle})
	if err != nil {
		t.Fatal(err)
	}
	a.Statement.Subject[0].Digest = map[string]string{"gitCommit": strings.Repeat("f", 40)}
	env, err := attest.Sign(a.Statement, testSigner(t, "attestor"), "lab-1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := attest.Verify(env, attest.Policy{Keys: attestorSet("attestor", "lab-1")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != verify.Rejected || !hasProblem(res, attest.ProblemSubject) {
		t.Fatalf("%s %v", res.Outcome, res.Problems)
	}
}

// Key choice: the key named by keyid among several; none named → COHERENT; a
// signature under a named key that does not verify → REJECTED.
func TestVerifyKeyChoice(t *testing.T) {
	env := envelopeOf(t, attest.PayloadType, []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"`+strings.Repeat("0", 64)+`"}}],"predicateType":"p","predicate":{}}`))
	two := append(attestorSet("other", "lab-2"), attestorSet("attestor", "lab-1")...)
	for _, tc := range []struct {
		name string
		keys keys.Set
		want verify.Outcome
	}{
		{"named among two", two, verify.Verified},
		{"none given", nil, verify.Coherent},
		{"none named among two", append(attestorSet("other", "lab-2"), attestorSet("attestor", "lab-3")...), verify.Coherent},
		{"named, wrong key", attestorSet("other", "lab-1"), verify.Rejected},
		{"lone key of another id", attestorSet("attestor", "lab-9"), verify.Verified},
	} {
		res, err := attest.Verify(env, attest.Policy{Keys: tc.keys})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != tc.want {
			t.Errorf("%s: %s %v %v, want %s", tc.name, res.Outcome, res.Problems, res.Unverified, tc.want)
		}
	}
}
