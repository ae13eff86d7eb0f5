package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/certcut/certcut/bundle"
	vsa "github.com/in-toto/attestation/go/predicates/vsa/v1"
	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Type URIs and words an attestation carries.
const (
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// StatementType is the in-toto Statement v1 type.
	StatementType = intoto.StatementTypeUri
	// PredicateVSA is the SLSA Verification Summary v1 predicate type.
	PredicateVSA = "https://slsa.dev/verification_summary/v1"
	// PredicateBundle is certcut's predicate type for an OpenWOP bundle v3 carried
	// whole (docs/attestations.md).
	PredicateBundle = "https://github.com/certcut/certcut/predicates/openwop-bundle/v3"
	// VerifierURI names certcut's bundle command; verifier.id is VerifierURI@version.
	VerifierURI = "https://github.com/certcut/certcut/cmd/bundle"

	// Passed and Failed are the two verificationResult values.
	Passed = "PASSED"
	Failed = "FAILED"
	// LevelFailed is the verifiedLevels entry of a FAILED VSA (SLSA's spelling).
	LevelFailed = "FAILED"
	// ProfileLevelPrefix spells a certified profile as a verified level:
	// OPENWOP_CERTIFIED_openwop-core-standard.
	ProfileLevelPrefix = "OPENWOP_CERTIFIED_"
	// GateLevelPrefix spells a passed gate as a verified level: OPENWOP_GATE_ACCEPTED.
	GateLevelPrefix = "OPENWOP_GATE_"
)

// Annotation keys on a statement's subjects (ResourceDescriptor.annotations).
const (
	AnnotationVerdict    = "certcut.verdict"                  // VERIFIED or COHERENT
	AnnotationReasons    = "certcut.notIndependentlyVerified" // why COHERENT
	AnnotationHostKey    = "certcut.hostKey"                  // {keyId, fingerprint} the host signature verified under
	AnnotationUnsigned   = "certcut.unsigned"                 // fields of the statement no signature of the host covers
	AnnotationBuild      = "openwop.build"                    // host.build, kind:id
	AnnotationNoBuild    = "certcut.buildSubject"             // why the build is no subject
	AnnotationGate       = "certcut.gate"                     // {gate, subject, status, criteria counts, settings}
	AnnotationGateFailed = "certcut.failedCriteria"           // the failed criteria, one line each
)

// Attestation is a statement ready to sign, with what the caller reports.
type Attestation struct {
	Statement *intoto.Statement
	// Result is PASSED or FAILED for a VSA, "" for a bundle predicate.
	Result string
	// Warnings are facts the caller should show (a build with no digest).
	Warnings []string
}

// Options are what every statement needs besides its content.
type Options struct {
	// Version is certcut's module version, written into verifier.id.
	Version string
	// Time is timeVerified (UTC, whole seconds). It is required: pass time.Now(), or
	// a fixed time for reproducible output.
	Time time.Time
	// URIBase makes the repository paths a VSA names (resourceUri, policy.uri,
	// inputAttestations[].uri) absolute URIs: RepoURIBase derives it from git,
	// ParseURIBase reads an explicit one. Zero leaves them repository paths,
	// which in-toto's ResourceURI does not allow: the CLI always sets it.
	URIBase URIBase
}

func (o Options) check() error {
	if o.Time.IsZero() {
		return errors.New("attest: no verification time given")
	}
	if o.Version == "" {
		return errors.New("attest: no certcut version given")
	}
	return nil
}

// VerifierID returns verifier.id for a certcut version: VerifierURI@version.
func VerifierID(version string) string { return VerifierURI + "@" + version }

// The patterns are compiled when first used, not at start (package init runs for
// every command of the binary).
var releaseRE = lazyRE(`^v\d+\.\d+\.\d+$`)

// lazyRE is a regular expression compiled at its first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// VerifyPolicyURI names the rules a bundle VSA applied, certcut's verify, as the
// documentation of that version states them: docs/verify.md at the release tag,
// or on main for a build that is no release.
func VerifyPolicyURI(version string) string {
	ref := "main"
	if releaseRE().MatchString(version) {
		ref = version
	}
	return "https://github.com/certcut/certcut/blob/" + ref + "/docs/verify.md"
}

var (
	hex40  = lazyRE(`^[0-9a-f]{40}$`)
	hex64  = lazyRE(`^[0-9a-f]{64}$`)
	hex128 = lazyRE(`^[0-9a-f]{128}$`)
)

// BuildDigest returns the in-toto digest set of a host build, or ok false and why
// when its id is no full digest: commit (40 lowercase hex digits) → gitCommit;
// image-digest sha256:HEX or sha512:HEX → sha256 or sha512; artifact-sha256 (64
// lowercase hex digits) → sha256.
func BuildDigest(b bundle.Build) (map[string]string, string) {
	switch b.Kind {
	case bundle.BuildCommit:
		if hex40().MatchString(b.ID) {
			return map[string]string{"gitCommit": b.ID}, ""
		}
		return nil, fmt.Sprintf("commit %s is not a full 40-hex-digit git commit id, so it is no digest a subject can carry", b.ID)
	case bundle.BuildImageDigest:
		alg, h, _ := strings.Cut(b.ID, ":")
		if (alg == "sha256" && hex64().MatchString(h)) || (alg == "sha512" && hex128().MatchString(h)) {
			return map[string]string{alg: h}, ""
		}
		return nil, fmt.Sprintf("image digest %s is not sha256:<64 hex digits> or sha512:<128 hex digits>", b.ID)
	case bundle.BuildArtifactSHA256:
		if hex64().MatchString(b.ID) {
			return map[string]string{"sha256": b.ID}, ""
		}
		return nil, fmt.Sprintf("artifact-sha256 %s is not 64 lowercase hex digits", b.ID)
	}
	return nil, fmt.Sprintf("build kind %q is none of commit, image-digest, artifact-sha256", b.Kind)
}

// Sha256Hex returns the lowercase hex SHA-256 of data.
func Sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// RepoPath names file by its path inside the repository at root, with forward
// slashes; ok is false when file is not inside root (the cleaned path is returned
// then, as given).
func RepoPath(root, file string) (string, bool) {
	if root == "" {
		root = "."
	}
	absRoot, err1 := filepath.Abs(root)
	absFile, err2 := filepath.Abs(file)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(absRoot, absFile); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "." {
			return filepath.ToSlash(rel), true
		}
	}
	return filepath.ToSlash(filepath.Clean(file)), false
}

// structOf converts a proto message to a Struct through its protojson form.
func structOf(m proto.Message) (*structpb.Struct, error) {
	data, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	if err := protojson.Unmarshal(data, s); err != nil {
		return nil, err
	}
	return s, nil
}

// structValue converts a JSON value the bundle reader produced to a protobuf
// Value. I-JSON numbers are exact as float64, so nothing is lost.
func structValue(v bundle.Value) *structpb.Value {
	switch v.Kind() {
	case bundle.Bool:
		b, _ := v.Bool()
		return structpb.NewBoolValue(b)
	case bundle.Number:
		f, _ := v.Float()
		return structpb.NewNumberValue(f)
	case bundle.String:
		s, _ := v.Str()
		return structpb.NewStringValue(s)
	case bundle.Array:
		items := v.Items()
		list := &structpb.ListValue{Values: make([]*structpb.Value, len(items))}
		for i, it := range items {
			list.Values[i] = structValue(it)
		}
		return structpb.NewListValue(list)
	case bundle.Object:
		return structpb.NewStructValue(structFields(v))
	}
	return structpb.NewNullValue()
}

func structFields(v bundle.Value) *structpb.Struct {
	s := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(v.Members()))}
	for _, m := range v.Members() {
		s.Fields[m.Name] = structValue(m.Value)
	}
	return s
}

// annotations builds a Struct from plain Go values (strings, string slices, maps of
// those), for ResourceDescriptor.annotations.
func annotations(m map[string]any) (*structpb.Struct, error) {
	return structpb.NewStruct(m)
}

// Payload returns the DSSE payload of a statement: its protojson form, validated
// by the in-toto bindings, written as RFC 8785 canonical JSON.
func Payload(st *intoto.Statement) ([]byte, error) {
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("attest: the statement is not a valid in-toto statement: %w", err)
	}
	data, err := protojson.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("attest: encoding the statement: %w", err)
	}
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("attest: reading back the encoded statement: %w", err)
	}
	return bundle.Canonical(v)
}

// newVSA returns the VSA fields every certcut VSA shares.
func newVSA(o Options) *vsa.VerificationSummary {
	return &vsa.VerificationSummary{
		Verifier:     &vsa.VerificationSummary_Verifier{Id: VerifierID(o.Version)},
		TimeVerified: timestamppb.New(o.Time.UTC().Truncate(time.Second)),
	}
}

func statement(subjects []*intoto.ResourceDescriptor, predicateType string, predicate *structpb.Struct) *intoto.Statement {
	return &intoto.Statement{Type: StatementType, Subject: subjects, PredicateType: predicateType, Predicate: predicate}
}
