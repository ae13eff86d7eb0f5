package mint

import (
	"fmt"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/declaration"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

// Job is a bundle to cut: its assembled inputs and the keys that sign it.
type Job struct {
	Input Input
	// Host signs under Input.KeyID; nil writes the bundle unsigned, for a later
	// 'bundle sign' (the self-check then tolerates the missing signatures).
	Host *keys.Signer
	// Verifier, when set, countersigns as the independent verifier under
	// VerifierKeyID.
	Verifier      *keys.Signer
	VerifierKeyID string
	// UnpublishedKey signs with a Host key whose public half differs from the
	// one the discovery document publishes under Input.KeyID (a key not yet
	// published); without it Run refuses such a key (*UnpublishedKeyError). The
	// self-check then verifies under the signer's own key, and the Report says
	// the key is not published.
	UnpublishedKey bool
	// Maturity, when set, applies the maturity bound (RFC 0197 §C.7) to the
	// assembled discovery document (CheckMaturity): a cut that overstates a
	// family record at a bound suite is refused before anything is signed (a
	// *RefusedError of kind maturity-overstated, its Data the unsigned bundle);
	// one below the bound is cut with a warning.
	Maturity *verify.MaturityPolicy
}

// Cut is a bundle minted and self-checked, not yet written.
type Cut struct {
	Bundle  *bundle.Bundle
	Data    []byte // the file's bytes (Encode)
	Verdict *verify.Verdict
	Report  Report
}

// SigningError is a signature that could not be made: the signer failed (a KMS
// or token error, *keys.KMSError and the like, is wrapped) or refused the key id.
type SigningError struct{ Err error }

func (e *SigningError) Error() string { return e.Err.Error() }
func (e *SigningError) Unwrap() error { return e.Err }

// Run assembles the bundle (Assemble), signs it (Sign) unless job.Host is nil,
// encodes it (Encode) and verifies the bytes as 'bundle verify' would
// (SelfCheck). It returns the Cut and nil when the bundle may be written; the
// Cut and a *RefusedError when the self-check refused it (write Data with
// WriteRejected, never to the output); an *EncodingError when certcut cannot
// read back what it encoded (a defect); Assemble's errors; a *SigningError.
func Run(job Job) (*Cut, error) {
	asm, err := Assemble(job.Input)
	if err != nil {
		return nil, err
	}
	tolerated := ToleratedUnsigned
	var hostKeys, verifierKeys keys.Set
	notPublished := false
	mat := checkMaturity(job.Maturity, asm)
	overstated := mat != nil && mat.Outcome() == declaration.MaturityFails
	if job.Host != nil && !overstated {
		tolerated = Tolerated
		// The self-check verifies under the key the document publishes, as any
		// reviewer does: a key that is not it is refused before anything is signed.
		hostKey, unpub, err := selfCheckHostKey(asm.Bundle.Discovery.Document, job.Host, job.Input.KeyID, job.UnpublishedKey)
		if err != nil {
			return nil, err
		}
		notPublished = unpub
		if err := Sign(asm, job.Host, job.Input.KeyID, job.Verifier, job.VerifierKeyID); err != nil {
			return nil, &SigningError{Err: err}
		}
		hostKeys = keys.Set{hostKey}
		if job.Verifier != nil {
			verifierKeys = keys.Set{job.Verifier.Key(job.VerifierKeyID)}
		}
	}
	data, err := Encode(asm.Bundle)
	if err != nil {
		return nil, err
	}
	verdict, err := SelfCheck(data, hostKeys, verifierKeys, job.Input.Registry, tolerated)
	if verdict == nil {
		return nil, err
	}
	c := &Cut{Bundle: asm.Bundle, Data: data, Verdict: verdict, Report: newReport(job.Input.KeyID, asm, job.Host != nil && !overstated, verdict)}
	c.Report.KeyNotPublished = job.Host != nil && notPublished
	if mat != nil {
		c.Report.Maturity, c.Report.MaturityFamilyKeys = mat, job.Maturity.Keys.From
	}
	if overstated {
		var refused []verify.Rejection
		if r, ok := err.(*RefusedError); ok {
			refused = r.Refused
		}
		err = &RefusedError{Verdict: verdict, Refused: append(refused, MaturityRejection(*mat))}
	}
	return c, err
}

// checkMaturity applies the bound when a policy is given; a bound that does not
// refuse but has something to say is a warning.
func checkMaturity(p *verify.MaturityPolicy, asm *Assembled) *declaration.Maturity {
	if p == nil {
		return nil
	}
	m := declaration.CheckMaturity(asm.Bundle, p.Keys, p.Declaration, p.FirstSuite)
	switch {
	case m.Outcome() == declaration.MaturityReported && m.SuiteUnreadable:
		asm.Warnings = append(asm.Warnings, fmt.Sprintf("maturity bound: suite version %q has no major.minor, so whether RFC 0197 §C.7 binds it cannot be decided; %d family record(s) say status stable while the declaration does not: %s", m.Suite, len(m.Overstated), m.OverstatedList()))
	case m.Outcome() == declaration.MaturityReported:
		asm.Warnings = append(asm.Warnings, fmt.Sprintf("maturity bound: %d family record(s) say status stable while the declaration does not (%s); suite %s is below %s, where RFC 0197 §C.7 becomes a MUST: this cut is reported, a cut at %s or later is refused", len(m.Overstated), m.OverstatedList(), m.Suite, m.FirstSuite, m.FirstSuite))
	case m.Outcome() == declaration.MaturityNothing:
		asm.Warnings = append(asm.Warnings, "maturity bound: the bundle carries no discovery document; nothing to measure")
	}
	return &m
}

// MaturityRejection is the rejection a cut that overstates family records at a
// bound suite is refused with.
func MaturityRejection(m declaration.Maturity) verify.Rejection {
	return verify.Rejection{Kind: verify.KindMaturityOverstated, Detail: fmt.Sprintf("%d family record(s) of the discovery document say status stable while the declaration does not (%s), on suite %s ≥ %s, where RFC 0197 §C.7 is a MUST; nothing was signed: correct the document's status members (or the declaration) and cut again", len(m.Overstated), m.OverstatedList(), m.Suite, m.FirstSuite)}
}

// Report is what mint reports of a bundle it cut (bundle mint --json).
type Report struct {
	Out             string                `json:"out"`
	Written         bool                  `json:"written"`
	Rejected        string                `json:"rejected,omitempty"`
	Signed          bool                  `json:"signed"`
	KeyID           string                `json:"keyId"`
	Rows            int                   `json:"rows"`
	AssertionCount  int64                 `json:"assertionCount"`
	Totals          bundle.Totals         `json:"totals"`
	WitnessSha256   string                `json:"witnessSha256"`
	DiscoverySha256 string                `json:"discoverySha256"`
	Certified       []string              `json:"certified"`
	Profiles        []profiles.Assessment `json:"profiles"`
	DurabilityRung  string                `json:"durabilityRung,omitempty"`
	Redacted        []string              `json:"redacted"`
	// LeftAlone notes what was considered a secret and not scrubbed, and why.
	LeftAlone []string `json:"leftAlone"`
	Warnings  []string `json:"warnings"`
	// KeyNotPublished: the discovery document does not publish the signing key
	// under KeyID (none, or another with --unpublished-key), so the self-check
	// verified under the signer's own key, not under a key a reviewer resolves.
	KeyNotPublished bool `json:"keyNotPublished"`
	// Maturity is the maturity bound applied to the cut (Job.Maturity), and
	// MaturityFamilyKeys where its family keys came from: the capabilities
	// schema, or the declaration's own keys when no schema was given.
	Maturity           *declaration.Maturity `json:"maturity,omitempty"`
	MaturityFamilyKeys string                `json:"maturityFamilyKeys,omitempty"`
	// Verdict is the self-check's outcome (VERIFIED, or COHERENT for a bundle
	// still waiting for a signature); SelfCheck is the verdict itself.
	Verdict   string             `json:"verdict,omitempty"`
	SelfCheck *verify.Verdict    `json:"-"`
	Refused   []RefusedRejection `json:"refused,omitempty"`
	// Timestamps are the RFC 3161 tokens written beside the bundle.
	Timestamps []timestamp.Written `json:"timestamps,omitempty"`
}

// RefusedRejection is one rejection that refused a bundle.
type RefusedRejection struct {
	Detail  string `json:"detail"`
	Kind    string `json:"kind"`
	Profile string `json:"profile"`
}

func newReport(keyID string, asm *Assembled, signed bool, v *verify.Verdict) Report {
	b := asm.Bundle
	nonNil := func(ss []string) []string {
		if ss == nil {
			return []string{}
		}
		return ss
	}
	rep := Report{
		Signed: signed, KeyID: keyID, Rows: len(b.Results.Requirements), AssertionCount: b.AssertionCount,
		Totals: b.Results.Totals, WitnessSha256: b.WitnessSha256, DiscoverySha256: b.Discovery.Sha256,
		Certified: []string{}, Profiles: asm.Profiles, Redacted: nonNil(asm.Redacted), LeftAlone: nonNil(asm.LeftAlone), Warnings: nonNil(asm.Warnings),
		Verdict: string(v.Outcome), SelfCheck: v,
	}
	if rep.Profiles == nil {
		rep.Profiles = []profiles.Assessment{}
	}
	for _, p := range b.ClaimedProfiles {
		if p.Certified {
			rep.Certified = append(rep.Certified, p.ID)
		}
	}
	if b.Durability != nil {
		rep.DurabilityRung = b.Durability.Rung
	}
	return rep
}

// Refusals lists a refusal's rejections as a Report carries them.
func Refusals(e *RefusedError) []RefusedRejection {
	out := make([]RefusedRejection, len(e.Refused))
	for i, r := range e.Refused {
		out[i] = RefusedRejection{Detail: r.Detail, Kind: string(r.Kind), Profile: r.Profile}
	}
	return out
}
