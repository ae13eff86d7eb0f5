package attest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
	vsa "github.com/in-toto/attestation/go/predicates/vsa/v1"
	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// MaxEnvelope bounds an envelope file: a bundle predicate of the largest bundle
// (bundle.MaxFileSize), base64-encoded, fits.
const MaxEnvelope = 32 << 20

// MaxSignatures bounds the signatures of an envelope Verify looks at.
const MaxSignatures = 16

// ProblemKind names why an attestation is REJECTED.
type ProblemKind string

// Problem kinds (docs/attestations.md).
const (
	ProblemEnvelope      ProblemKind = "envelope"            // not a DSSE envelope
	ProblemPayloadType   ProblemKind = "payload-type"        // payloadType is not application/vnd.in-toto+json
	ProblemSignature     ProblemKind = "signature"           // a signature does not verify under the trusted key its keyid names
	ProblemStatement     ProblemKind = "statement"           // the payload is not an in-toto Statement v1
	ProblemPredicate     ProblemKind = "predicate"           // the predicate is not a valid VSA, or not a bundle
	ProblemPredicateType ProblemKind = "predicate-type"      // not the predicate type asked for
	ProblemSubject       ProblemKind = "subject"             // no subject carries the digest asked for
	ProblemFailed        ProblemKind = "verification-failed" // the VSA records FAILED
)

// Problem is one reason an attestation is REJECTED.
type Problem struct {
	Kind   ProblemKind `json:"kind"`
	Detail string      `json:"detail"`
}

// Policy is what Verify checks an envelope against. Its zero value checks the
// shape only: the result is at best COHERENT.
type Policy struct {
	// Keys are the keys trusted for the envelope's signatures: a signature is
	// checked under the key named by its keyid (keys.Set.Select), or else under the
	// only key given as a file or raw key (keys.Set.Lone), whatever its keyid.
	Keys keys.Set
	// SubjectDigest, "ALG:HEX", must be the digest of one of the subjects.
	SubjectDigest string
	// PredicateType, when set, must be the statement's predicate type.
	PredicateType string
}

// SignatureCheck is what became of one signature of the envelope.
type SignatureCheck struct {
	KeyID    string         `json:"keyid"`
	Verified bool           `json:"verified"`
	Key      *verify.KeyUse `json:"key"`
	Note     string         `json:"note,omitempty"`
}

// Subject is one statement subject (or VSA input): a name or uri and its digests.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Summary is a VSA's predicate, as read.
type Summary struct {
	Verifier     string            `json:"verifier"`
	TimeVerified string            `json:"timeVerified"`
	ResourceURI  string            `json:"resourceUri"`
	Policy       string            `json:"policy"`
	PolicyDigest map[string]string `json:"policyDigest,omitempty"`
	Inputs       []Subject         `json:"inputAttestations"`
	Result       string            `json:"verificationResult"`
	Levels       []string          `json:"verifiedLevels"`
}

// Result is the judgement of one envelope.
type Result struct {
	// Outcome is VERIFIED (every check holds and a trusted key verified a
	// signature), REJECTED (Problems lists why) or COHERENT (every check holds, but
	// no trusted key checked the signature: Unverified says why).
	Outcome    verify.Outcome   `json:"verdict"`
	Problems   []Problem        `json:"problems"`
	Unverified []string         `json:"notIndependentlyVerified"`
	Notes      []string         `json:"notes"`
	Signatures []SignatureCheck `json:"signatures"`

	PayloadType   string    `json:"payloadType"`
	StatementType string    `json:"statementType,omitempty"`
	PredicateType string    `json:"predicateType,omitempty"`
	Subjects      []Subject `json:"subjects"`
	VSA           *Summary  `json:"vsa,omitempty"`
	// BundleVerdict is, for a bundle predicate, the verdict the attestor recorded
	// on the bundle (the subjects' certcut.verdict annotation).
	BundleVerdict string `json:"bundleVerdict,omitempty"`
	// Statement is the payload, when it is JSON.
	Statement json.RawMessage `json:"statement,omitempty"`
}

// ExitCode is the result's exit code, as verify's: 0, 1 or 2.
func (r *Result) ExitCode() int { return r.Outcome.ExitCode() }

func (r *Result) reject(kind ProblemKind, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

var subjectDigestRE = lazyRE(`^([A-Za-z0-9_-]+):([0-9a-fA-F]+)$`)

// ParseSubjectDigest checks an "ALG:HEX" subject digest (sha256:…, gitCommit:…)
// and returns the algorithm and the lowercase hex.
func ParseSubjectDigest(s string) (alg, hexDigest string, err error) {
	m := subjectDigestRE().FindStringSubmatch(s)
	if m == nil {
		return "", "", fmt.Errorf("%q is not ALG:HEX (e.g. sha256:<64 hex digits>, gitCommit:<40 hex digits>)", s)
	}
	return m[1], strings.ToLower(m[2]), nil
}

// Verify judges an envelope file's bytes under p. The error is non-nil only when
// the data is not I-JSON (a *bundle.SyntaxError); everything else is in the Result.
func Verify(data []byte, p Policy) (*Result, error) {
	root, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, err
	}
	r := &Result{Problems: []Problem{}, Unverified: []string{}, Notes: []string{}, Signatures: []SignatureCheck{}, Subjects: []Subject{}}
	defer r.conclude()
	env, payload, ok := decodeEnvelope(root, r)
	if !ok {
		return r, nil
	}
	r.PayloadType = env.PayloadType
	if env.PayloadType != PayloadType {
		r.reject(ProblemPayloadType, "payloadType is %q, not %q", env.PayloadType, PayloadType)
	}
	checkSignatures(env, p.Keys, r)
	st := decodeStatement(payload, r)
	if st == nil {
		return r, nil
	}
	if p.PredicateType != "" && st.GetPredicateType() != p.PredicateType {
		r.reject(ProblemPredicateType, "the predicate type is %s, not %s", st.GetPredicateType(), p.PredicateType)
	}
	if p.SubjectDigest != "" {
		alg, want, err := ParseSubjectDigest(p.SubjectDigest)
		if err != nil {
			r.reject(ProblemSubject, "%v", err)
		} else if !hasDigest(r.Subjects, alg, want) {
			r.reject(ProblemSubject, "no subject has digest %s:%s (subjects: %s)", alg, want, describeSubjects(r.Subjects))
		}
	}
	switch st.GetPredicateType() {
	case PredicateVSA:
		checkVSA(st, r)
	case PredicateBundle:
		checkBundlePredicate(st, r)
	default:
		r.Notes = append(r.Notes, fmt.Sprintf("predicate type %s is not one certcut writes: its predicate was not checked", st.GetPredicateType()))
	}
	return r, nil
}

func (r *Result) conclude() {
	switch {
	case len(r.Problems) > 0:
		r.Outcome = verify.Rejected
	case len(r.Unverified) > 0:
		r.Outcome = verify.Coherent
	default:
		r.Outcome = verify.Verified
	}
}

// decodeEnvelope reads {payloadType, payload, signatures: [{keyid?, sig}]} and
// decodes the payload (standard or URL base64, as DSSE allows).
func decodeEnvelope(root bundle.Value, r *Result) (Envelope, []byte, bool) {
	var env Envelope
	if root.Kind() != bundle.Object {
		r.reject(ProblemEnvelope, "the file is a JSON %s, not a DSSE envelope object", root.Kind())
		return env, nil, false
	}
	if a, b, ok := ambiguous(root); ok {
		r.reject(ProblemEnvelope, "members %q and %q differ only in case or underscores: readers that fold them would see another envelope", a, b)
		return env, nil, false
	}
	str := func(v bundle.Value, name string) (string, bool) {
		m, ok := v.Get(name)
		if !ok {
			return "", false
		}
		s, isStr := m.Str()
		if !isStr {
			r.reject(ProblemEnvelope, "%s is a JSON %s, not a string", name, m.Kind())
		}
		return s, isStr
	}
	var ok bool
	if env.PayloadType, ok = str(root, "payloadType"); !ok {
		r.reject(ProblemEnvelope, "payloadType is missing or not a string")
	}
	if env.Payload, ok = str(root, "payload"); !ok {
		r.reject(ProblemEnvelope, "payload is missing or not a string")
		return env, nil, false
	}
	sigs, ok := root.Get("signatures")
	switch {
	case !ok || sigs.Kind() != bundle.Array:
		r.reject(ProblemEnvelope, "signatures is missing or not an array")
	case len(sigs.Items()) == 0:
		r.reject(ProblemEnvelope, "the envelope has no signature")
	case len(sigs.Items()) > MaxSignatures:
		r.reject(ProblemEnvelope, "the envelope has %d signatures; certcut looks at %d at most", len(sigs.Items()), MaxSignatures)
	default:
		for i, s := range sigs.Items() {
			if s.Kind() != bundle.Object {
				r.reject(ProblemEnvelope, "signature %d is a JSON %s, not an object", i+1, s.Kind())
				continue
			}
			if a, b, dup := ambiguous(s); dup {
				r.reject(ProblemEnvelope, "signature %d: members %q and %q differ only in case or underscores", i+1, a, b)
				continue
			}
			var es EnvelopeSignature
			es.KeyID, _ = str(s, "keyid")
			if es.Sig, ok = str(s, "sig"); !ok {
				r.reject(ProblemEnvelope, "signature %d has no sig", i+1)
				continue
			}
			env.Signatures = append(env.Signatures, es)
		}
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		if payload, err = base64.URLEncoding.DecodeString(env.Payload); err != nil {
			r.reject(ProblemEnvelope, "payload is not base64")
			return env, nil, false
		}
	}
	return env, payload, true
}

// checkSignatures checks each signature under the trusted key it names, or the
// lone key given.
func checkSignatures(env Envelope, trusted keys.Set, r *Result) {
	verified := false
	for _, s := range env.Signatures {
		c := SignatureCheck{KeyID: s.KeyID}
		key, match, found := chooseKey(trusted, s.KeyID)
		switch {
		case len(trusted) == 0:
			c.Note = "no trusted key was given: the signature was not checked"
		case !found:
			c.Note = fmt.Sprintf("no trusted key is named %q (keys given: %s)", s.KeyID, describeKeys(trusted))
		default:
			c.Key = &verify.KeyUse{KeyID: key.KeyID, Source: string(key.Source), Origin: key.Origin, PublicKey: key.Base64URL(), Fingerprint: key.Fingerprint(), Match: match}
			if err := checkSignature(env, s, key.Key); err != nil {
				r.reject(ProblemSignature, "the signature with keyid %q does not verify under %s over the payload's pre-authentication encoding", s.KeyID, key.Describe())
			} else {
				c.Verified, verified = true, true
				if match == verify.MatchLoneKey && key.KeyID != "" && key.KeyID != s.KeyID {
					r.Notes = append(r.Notes, fmt.Sprintf("the signature's keyid %q is not the id of the key given (%s); it was checked under that key, the only one given", s.KeyID, key.KeyID))
				}
			}
		}
		r.Signatures = append(r.Signatures, c)
	}
	if !verified && len(env.Signatures) > 0 {
		if len(trusted) == 0 {
			r.Unverified = append(r.Unverified, "no trusted key was given: the signature was not checked (pass the attestor's public key with --key)")
		} else {
			r.Unverified = append(r.Unverified, "no signature's keyid names a trusted key, and more than one key (or a directory) was given: the signature was not checked")
		}
	}
}

// chooseKey picks the key a signature is checked under: the key named by keyid
// (its certcut key id, or its DSSE fingerprint), else the only key given as a
// file or raw key.
func chooseKey(trusted keys.Set, keyID string) (keys.PublicKey, string, bool) {
	if keyID != "" {
		if k, ok := trusted.Select(keyID); ok {
			return k, verify.MatchKeyID, true
		}
		// A keyid that is a key's DSSE fingerprint names that key.
		for _, k := range trusted {
			if fp, err := DSSEFingerprint(k.Key); err == nil && fp == keyID {
				return k, verify.MatchKeyID, true
			}
		}
	}
	if k, ok := trusted.Lone(); ok {
		return k, verify.MatchLoneKey, true
	}
	return keys.PublicKey{}, "", false
}

// decodeStatement reads the payload as an in-toto Statement v1 and validates it
// with the in-toto bindings; nil when it is none.
func decodeStatement(payload []byte, r *Result) *intoto.Statement {
	v, err := bundle.ParseIJSON(payload)
	if err != nil {
		r.reject(ProblemStatement, "the payload is not I-JSON: %v", err)
		return nil
	}
	r.Statement = json.RawMessage(payload)
	if a, b, ok := ambiguousStatement(v); ok {
		r.reject(ProblemStatement, "members %q and %q of the statement differ only in case or underscores: readers that fold them (encoding/json, protojson's proto names) would read another statement", a, b)
		return nil
	}
	st := &intoto.Statement{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(payload, st); err != nil {
		r.reject(ProblemStatement, "the payload is not an in-toto statement: %v", err)
		return nil
	}
	r.StatementType, r.PredicateType = st.GetType(), st.GetPredicateType()
	for _, s := range st.GetSubject() {
		r.Subjects = append(r.Subjects, Subject{Name: s.GetName(), Digest: s.GetDigest()})
	}
	if st.GetType() != StatementType {
		r.reject(ProblemStatement, "_type is %q, not %q", st.GetType(), StatementType)
		return nil
	}
	if err := st.Validate(); err != nil {
		r.reject(ProblemStatement, "the in-toto statement is not valid: %v", err)
		return nil
	}
	return st
}

func hasDigest(subjects []Subject, alg, want string) bool {
	for _, s := range subjects {
		if got, ok := s.Digest[alg]; ok && strings.EqualFold(got, want) {
			return true
		}
	}
	return false
}

// checkVSA reads the predicate as a SLSA VSA v1 and checks its required fields.
func checkVSA(st *intoto.Statement, r *Result) {
	data, err := protojson.Marshal(st.GetPredicate())
	if err != nil {
		r.reject(ProblemPredicate, "the predicate cannot be read: %v", err)
		return
	}
	s := &vsa.VerificationSummary{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, s); err != nil {
		r.reject(ProblemPredicate, "the predicate is not a verification summary: %v", err)
		return
	}
	sum := &Summary{
		Verifier: s.GetVerifier().GetId(), ResourceURI: s.GetResourceUri(),
		Policy: s.GetPolicy().GetUri(), PolicyDigest: s.GetPolicy().GetDigest(),
		Inputs: []Subject{}, Result: s.GetVerificationResult(), Levels: s.GetVerifiedLevels(),
	}
	if sum.Levels == nil {
		sum.Levels = []string{}
	}
	if t := s.GetTimeVerified(); t != nil {
		sum.TimeVerified = t.AsTime().UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
	}
	for _, in := range s.GetInputAttestations() {
		sum.Inputs = append(sum.Inputs, Subject{Name: in.GetUri(), Digest: in.GetDigest()})
		if len(in.GetDigest()) == 0 {
			r.reject(ProblemPredicate, "input attestation %q has no digest", in.GetUri())
		}
	}
	r.VSA = sum
	for _, f := range []struct{ name, value string }{
		{"verifier.id", sum.Verifier}, {"timeVerified", sum.TimeVerified}, {"resourceUri", sum.ResourceURI},
		{"policy.uri", sum.Policy}, {"verificationResult", sum.Result},
	} {
		if f.value == "" {
			r.reject(ProblemPredicate, "the VSA has no %s", f.name)
		}
	}
	if len(sum.Levels) == 0 {
		r.reject(ProblemPredicate, "the VSA has no verifiedLevels")
	}
	switch sum.Result {
	case Passed:
		if slices.Contains(sum.Levels, LevelFailed) {
			r.reject(ProblemPredicate, "the VSA records PASSED with verifiedLevels FAILED")
		}
	case Failed:
		r.reject(ProblemFailed, "the VSA records FAILED: %s did not pass %s", describeSubjects(r.Subjects), sum.Policy)
	case "":
	default:
		r.reject(ProblemPredicate, "verificationResult is %q, neither PASSED nor FAILED", sum.Result)
	}
}

// checkBundlePredicate reads the predicate as a bundle and checks that its host
// build, when it is a digest, is a subject.
func checkBundlePredicate(st *intoto.Statement, r *Result) {
	data, err := protojson.Marshal(st.GetPredicate())
	if err != nil {
		r.reject(ProblemPredicate, "the predicate cannot be read: %v", err)
		return
	}
	b, problems, err := bundle.Parse(data)
	if err != nil {
		r.reject(ProblemPredicate, "the predicate is not I-JSON: %v", err)
		return
	}
	if len(problems) > 0 {
		r.reject(ProblemPredicate, "the predicate is not a bundle v3: %s (and %d more)", problems[0], len(problems)-1)
		return
	}
	digest, _ := BuildDigest(b.Host.Build)
	for alg, h := range digest {
		if !hasDigest(r.Subjects, alg, h) {
			r.reject(ProblemSubject, "the predicate's host.build %s is not a subject", b.Host.Build)
		}
	}
	// certcut records its verdict on the bundle in the subjects' annotations: a
	// bundle it did not verify is, like a FAILED VSA, an authentic no.
	for _, s := range st.GetSubject() {
		if v := s.GetAnnotations().GetFields()[AnnotationVerdict]; v != nil {
			r.BundleVerdict = v.GetStringValue()
		}
	}
	switch r.BundleVerdict {
	case "":
		r.Notes = append(r.Notes, "no subject records certcut's verdict on the bundle ("+AnnotationVerdict+"): verify the bundle itself")
	case string(verify.Verified):
	default:
		r.reject(ProblemFailed, "the attestor recorded the bundle as %s, not VERIFIED", r.BundleVerdict)
	}
}

func describeSubjects(ss []Subject) string {
	if len(ss) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(ss))
	for _, s := range ss {
		algs := make([]string, 0, len(s.Digest))
		for alg := range s.Digest {
			algs = append(algs, alg)
		}
		slices.Sort(algs)
		ds := make([]string, len(algs))
		for i, alg := range algs {
			ds[i] = alg + ":" + s.Digest[alg]
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", s.Name, strings.Join(ds, ", ")))
	}
	return strings.Join(parts, "; ")
}

func describeKeys(ks keys.Set) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = k.Describe()
	}
	return joinMax(parts, 3)
}

// ambiguous reports two member names of an object that are equal once case and
// underscores are ignored ("payload" and "Payload", "predicateType" and
// "predicate_type"): JSON readers disagree on which one counts (encoding/json
// folds case and keeps the last, protojson takes both spellings of a field), so
// such an object is refused rather than read one way.
func ambiguous(obj bundle.Value) (string, string, bool) {
	seen := map[string]string{}
	for _, m := range obj.Members() {
		key := strings.ToLower(strings.ReplaceAll(m.Name, "_", ""))
		if first, ok := seen[key]; ok {
			return first, m.Name, true
		}
		seen[key] = m.Name
	}
	return "", "", false
}

// ambiguousStatement applies ambiguous to the statement's own objects: the
// statement, its subjects, and a VSA predicate with its verifier, policy and
// inputs. A bundle predicate and annotations are data, not read by name folding.
func ambiguousStatement(v bundle.Value) (string, string, bool) {
	objs := []bundle.Value{v}
	subjects, _ := v.Get("subject")
	objs = append(objs, subjects.Items()...)
	if pt, _ := v.Get("predicateType"); pt.Kind() == bundle.String {
		if t, _ := pt.Str(); t == PredicateVSA {
			pred, _ := v.Get("predicate")
			objs = append(objs, pred)
			for _, name := range []string{"verifier", "policy"} {
				if o, ok := pred.Get(name); ok {
					objs = append(objs, o)
				}
			}
			inputs, _ := pred.Get("inputAttestations")
			objs = append(objs, inputs.Items()...)
		}
	}
	for _, o := range objs {
		if o.Kind() != bundle.Object {
			continue
		}
		if a, b, ok := ambiguous(o); ok {
			return a, b, true
		}
	}
	return "", "", false
}
