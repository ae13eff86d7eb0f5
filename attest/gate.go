package attest

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/limitedfile"
	vsa "github.com/in-toto/attestation/go/predicates/vsa/v1"
	intoto "github.com/in-toto/attestation/go/v1"
)

// GateRequest is one gate decision to attest.
type GateRequest struct {
	Options
	// Report is the gate's decision; it must be about an RFC (Report.RFC set).
	Report *gate.Report
	// Root is the spec repository's root: files are named by their path inside it.
	Root string
	// GateFile is the gate file the decision read, "" when none: it is then the
	// VSA's policy, else the RFC is.
	GateFile string
}

// BlockedError is a BLOCKED decision: it decided neither PASSED nor FAILED, so
// no VSA records it.
type BlockedError struct{ Subject string }

func (e *BlockedError) Error() string {
	return fmt.Sprintf("the gate on %s is BLOCKED: it decided neither PASSED nor FAILED, so no attestation records it (unblock it and run the gate again)", e.Subject)
}

// ErrNoRFC is a decision about explicit ids only: a gate VSA's subject is an RFC.
var ErrNoRFC = errors.New("the gate decided no RFC: a gate attestation's subject is the RFC file (give --rfc, or a --gate-file naming one)")

// MaxFailedCriteria bounds the failed criteria a gate VSA lists.
const MaxFailedCriteria = 50

// Gate returns the VSA of a gate decision: subject the RFC file (path in the
// repository, SHA-256 of its text, read now), resourceUri that path as an
// absolute URI under Options.URIBase, policy the gate
// file (or the RFC) with its digest, inputAttestations the bundles the decision
// relied on with the digests the gate judged, verificationResult PASSED (PASS) or
// FAILED (FAIL), verifiedLevels GateLevelPrefix+GATE when PASSED. A BLOCKED report
// gives *BlockedError, one about no RFC ErrNoRFC; a file that cannot be read, the
// error of limitedfile.Read.
func Gate(req GateRequest) (*Attestation, error) {
	if err := req.Options.check(); err != nil {
		return nil, err
	}
	rep := req.Report
	if rep == nil {
		return nil, errors.New("attest: no gate report")
	}
	if rep.RFC == nil || rep.RFC.File == "" {
		return nil, ErrNoRFC
	}
	if rep.Status == gate.Blocked {
		return nil, &BlockedError{Subject: rep.Subject}
	}
	if rep.Status != gate.Pass && rep.Status != gate.Fail {
		return nil, fmt.Errorf("attest: the gate report's status %q is none of PASS, FAIL, BLOCKED", rep.Status)
	}
	text, err := limitedfile.Read(rep.RFC.File, limitedfile.MaxPolicy)
	if err != nil {
		return nil, fmt.Errorf("reading the RFC %s: %w", rep.RFC.File, err)
	}
	rfcPath, _ := RepoPath(req.Root, rep.RFC.File)
	rfcDigest := map[string]string{"sha256": Sha256Hex(text)}

	s := newVSA(req.Options)
	s.ResourceUri = req.URIBase.URI(rfcPath)
	s.Policy = &vsa.VerificationSummary_Policy{Uri: req.URIBase.URI(rfcPath), Digest: rfcDigest}
	if req.GateFile != "" {
		data, err := limitedfile.Read(req.GateFile, limitedfile.MaxPolicy)
		if err != nil {
			return nil, fmt.Errorf("reading the gate file %s: %w", req.GateFile, err)
		}
		p, _ := RepoPath(req.Root, req.GateFile)
		s.Policy = &vsa.VerificationSummary_Policy{Uri: req.URIBase.URI(p), Digest: map[string]string{"sha256": Sha256Hex(data)}}
	}
	for _, ref := range reliedOn(rep) {
		p, _ := RepoPath(req.Root, ref.File)
		s.InputAttestations = append(s.InputAttestations, &vsa.VerificationSummary_InputAttestation{Uri: req.URIBase.URI(p), Digest: map[string]string{"sha256": ref.Sha256}})
	}
	a := &Attestation{}
	if rep.Status == gate.Pass {
		s.VerificationResult = Passed
		s.VerifiedLevels = []string{GateLevelPrefix + strings.ToUpper(rep.Gate)}
	} else {
		s.VerificationResult = Failed
		s.VerifiedLevels = []string{LevelFailed}
	}
	a.Result = s.VerificationResult
	predicate, err := structOf(s)
	if err != nil {
		return nil, fmt.Errorf("attest: encoding the VSA: %w", err)
	}
	ann, err := annotations(gateNotes(rep, req.Root))
	if err != nil {
		return nil, fmt.Errorf("attest: annotations: %w", err)
	}
	subject := &intoto.ResourceDescriptor{Name: rfcPath, Digest: rfcDigest, Annotations: ann}
	a.Statement = statement([]*intoto.ResourceDescriptor{subject}, PredicateVSA, predicate)
	if err := a.Statement.Validate(); err != nil {
		return nil, fmt.Errorf("attest: the statement is not a valid in-toto statement: %w", err)
	}
	return a, nil
}

// reliedOn returns the bundles a decision relied on — those its bundle criteria
// name — once each, by file.
func reliedOn(rep *gate.Report) []gate.BundleRef {
	seen := map[string]gate.BundleRef{}
	for _, c := range rep.Criteria {
		if c.Bundle != nil && c.Bundle.Sha256 != "" {
			seen[c.Bundle.File] = *c.Bundle
		}
	}
	out := make([]gate.BundleRef, 0, len(seen))
	for _, r := range seen {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// gateNotes are the RFC subject's annotations: what was gated, the counts, the
// settings that weaken or strengthen the decision, and the failed criteria.
func gateNotes(rep *gate.Report, root string) map[string]any {
	counts := map[gate.Status]int{}
	var failed []any
	for _, c := range rep.Criteria {
		counts[c.Status]++
		if c.Status == gate.Fail && len(failed) < MaxFailedCriteria {
			line := string(c.ID)
			if c.Requirement != "" {
				line += " " + c.Requirement
			}
			if c.Bundle != nil {
				line += " " + c.Bundle.File
			}
			failed = append(failed, line+": "+c.Reason)
		}
	}
	st := rep.Settings
	keyring := st.Keyring
	if keyring != "" && filepath.IsAbs(keyring) {
		// The signed annotation names the keyring as the repository does, not
		// by a path of the signer's machine.
		if p, inside := RepoPath(root, keyring); inside {
			keyring = p
		} else {
			keyring = filepath.Base(keyring)
		}
	}
	notes := map[string]any{
		AnnotationGate: map[string]any{
			"gate":    rep.Gate,
			"subject": rep.Subject,
			"status":  string(rep.Status),
			"criteria": map[string]any{
				"pass": float64(counts[gate.Pass]), "fail": float64(counts[gate.Fail]), "blocked": float64(counts[gate.Blocked]),
			},
			"settings": map[string]any{
				"minTier": float64(st.MinTier), "live": st.Live, "trustUnsignedOrigin": st.TrustUnsignedOrigin, "historyBase": st.HistoryBase, "keyring": keyring,
			},
		},
	}
	if len(failed) > 0 {
		notes[AnnotationGateFailed] = failed
	}
	return notes
}
