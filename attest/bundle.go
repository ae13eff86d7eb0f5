package attest

import (
	"fmt"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/verify"
	vsa "github.com/in-toto/attestation/go/predicates/vsa/v1"
	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/types/known/structpb"
)

// BundleRequest is one bundle file to judge and attest.
type BundleRequest struct {
	Options
	// Data is the bundle file's bytes, exactly as read: the bundle subject's digest.
	Data []byte
	// Name is the file's path in the repository (subject name, input uri).
	Name string
	// Verify is the verification policy: the keys trusted for the host signature.
	Verify verify.Options
	// Timestamps are the time-stamp tokens that come with the bundle (its
	// FILE.tsr beside it): the verdict judges the key at their time.
	Timestamps verify.Timestamps
	// Predicate is PredicateVSA or PredicateBundle.
	Predicate string
	// AllowCoherent attests a COHERENT bundle (a VSA then records FAILED and the
	// reasons); without it only a VERIFIED bundle is attested.
	AllowCoherent bool
}

// NotVerifiedError is a bundle that may not be attested: REJECTED, or COHERENT
// without AllowCoherent. Verdict says why.
type NotVerifiedError struct {
	Name    string
	Verdict *verify.Verdict
}

func (e *NotVerifiedError) Error() string {
	switch e.Verdict.Outcome {
	case verify.Coherent:
		return fmt.Sprintf("%s is COHERENT, not VERIFIED (%s): only a bundle verified under a trusted key is attested; pass its key with --host-key or --keyring, or attest it as FAILED with --allow-coherent",
			e.Name, firstOr(e.Verdict.Unverified, "not independently verified"))
	default:
		kinds := make([]string, 0, len(e.Verdict.Rejections))
		for _, r := range e.Verdict.Rejections {
			kinds = append(kinds, "["+string(r.Kind)+"]")
		}
		return fmt.Sprintf("%s is %s (%d problem(s): %s); a rejected bundle is not attested (run 'bundle verify' on it for the details)",
			e.Name, e.Verdict.Outcome, e.Verdict.ProblemCount(), joinMax(kinds, 5))
	}
}

// Bundle verifies the bundle in req.Data under req.Verify and returns the
// statement that records the judgement (see the package documentation). The
// error is a *bundle.SyntaxError when the data is not I-JSON, a
// *NotVerifiedError when the verdict may not be attested, or a plain error for a
// request that is incomplete.
func Bundle(req BundleRequest) (*Attestation, error) {
	if err := req.Options.check(); err != nil {
		return nil, err
	}
	if req.Name == "" {
		return nil, fmt.Errorf("attest: no name for the bundle file")
	}
	if req.Predicate != PredicateVSA && req.Predicate != PredicateBundle {
		return nil, fmt.Errorf("attest: predicate %q is neither %s nor %s", req.Predicate, PredicateVSA, PredicateBundle)
	}
	b, problems, err := bundle.Parse(req.Data)
	if err != nil {
		return nil, err
	}
	if err := verify.Recognize(b); err != nil {
		err.(*verify.NotABundleError).File = req.Name
		return nil, err // an input of the wrong kind: nothing to attest, not a REJECTED bundle
	}
	v := verify.Judge(b, problems, req.Verify, req.Timestamps)
	switch {
	case v.Outcome == verify.Verified:
	case v.Outcome == verify.Coherent && req.AllowCoherent:
	default:
		return nil, &NotVerifiedError{Name: req.Name, Verdict: v}
	}
	if b.Discovery.URL == "" {
		return nil, fmt.Errorf("attest: %s has no discovery.url, which a VSA needs as its resourceUri", req.Name)
	}
	a := &Attestation{}
	subjects, err := bundleSubjects(req, b, v, a)
	if err != nil {
		return nil, err
	}
	var predicate *structpb.Struct
	if req.Predicate == PredicateBundle {
		predicate = structFields(b.Raw)
	} else {
		s := newVSA(req.Options)
		s.ResourceUri = b.Discovery.URL
		s.Policy = &vsa.VerificationSummary_Policy{Uri: VerifyPolicyURI(req.Version)}
		s.InputAttestations = []*vsa.VerificationSummary_InputAttestation{{Uri: req.URIBase.URI(req.Name), Digest: map[string]string{"sha256": Sha256Hex(req.Data)}}}
		if v.Outcome == verify.Verified {
			s.VerificationResult = Passed
			for _, p := range v.CertifiedProfiles {
				s.VerifiedLevels = append(s.VerifiedLevels, ProfileLevelPrefix+p)
			}
			if len(s.VerifiedLevels) == 0 {
				// VERIFIED with nothing certified is still a pass of verify's
				// rules; the level says that nothing more was verified.
				s.VerifiedLevels = []string{ProfileLevelPrefix + "none"}
			}
		} else {
			s.VerificationResult = Failed
			s.VerifiedLevels = []string{LevelFailed}
		}
		a.Result = s.VerificationResult
		if predicate, err = structOf(s); err != nil {
			return nil, fmt.Errorf("attest: encoding the VSA: %w", err)
		}
	}
	a.Statement = statement(subjects, req.Predicate, predicate)
	if err := a.Statement.Validate(); err != nil {
		return nil, fmt.Errorf("attest: the statement is not a valid in-toto statement: %w", err)
	}
	return a, nil
}

// bundleSubjects returns the host build (when its id is a digest) and the bundle
// file, the latter annotated with certcut's verdict and what the host did not sign.
func bundleSubjects(req BundleRequest, b *bundle.Bundle, v *verify.Verdict, a *Attestation) ([]*intoto.ResourceDescriptor, error) {
	var subjects []*intoto.ResourceDescriptor
	notes := map[string]any{
		AnnotationVerdict: string(v.Outcome),
		AnnotationBuild:   b.Host.Build.String(),
		AnnotationUnsigned: map[string]any{
			"resourceUri": "the bundle's discovery.url, which the host signature does not cover: the signed discovery.sha256 binds the document, not the URL it was served at",
		},
	}
	if digest, why := BuildDigest(b.Host.Build); digest != nil {
		subjects = append(subjects, &intoto.ResourceDescriptor{Name: b.Host.Build.String(), Digest: digest})
	} else {
		notes[AnnotationNoBuild] = "none: " + why
		a.Warnings = append(a.Warnings, fmt.Sprintf("the statement's only subject is the bundle file: the host build %s", why))
	}
	if v.Outcome == verify.Coherent {
		reasons := make([]any, len(v.Unverified))
		for i, r := range v.Unverified {
			reasons[i] = r
		}
		notes[AnnotationReasons] = reasons
	}
	if v.SignatureVerified && v.HostKey != nil {
		notes[AnnotationHostKey] = map[string]any{"keyId": v.HostKey.KeyID, "fingerprint": v.HostKey.Fingerprint}
	}
	ann, err := annotations(notes)
	if err != nil {
		return nil, fmt.Errorf("attest: annotations: %w", err)
	}
	subjects = append(subjects, &intoto.ResourceDescriptor{
		Name: req.Name, Digest: map[string]string{"sha256": Sha256Hex(req.Data)}, Annotations: ann,
	})
	return subjects, nil
}

func firstOr(ss []string, def string) string {
	if len(ss) > 0 {
		return ss[0]
	}
	return def
}

func joinMax(ss []string, n int) string {
	out := ""
	for i, s := range ss {
		if i == n {
			return out + fmt.Sprintf(" and %d more", len(ss)-n)
		}
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}
