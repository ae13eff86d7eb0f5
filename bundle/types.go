// Package bundle is the OpenWOP certification bundle v3 format: its types, a strict
// I-JSON reader that keeps presence, RFC 8785 canonical JSON, the witness and
// discovery digests, the attestation payload a signature covers, and assembly of a
// bundle from its parts. It imports nothing else of certcut's but the leaf
// internal/limitedfile, through which every file is read.
//
// A bundle is held twice: as the Value tree the reader produced (the exact data the
// digests and the signature are computed over, member order and presence included)
// and as the typed Bundle decoded from it, which rules read. Digests are always
// computed from the Value tree, so a type the decoder does not model can never
// change a digest.
package bundle

// Version is the only bundleVersion this package reads and writes.
const Version = "3"

// SuiteName is the only suite.name a v3 bundle carries.
const SuiteName = "@openwop/openwop-conformance"

// The five results a requirement row can have.
const (
	ExecutedPass = "executed-pass"
	ExecutedFail = "executed-fail"
	Skipped      = "skipped"
	Inapplicable = "inapplicable"
	Blocked      = "blocked"
)

// Results lists the five result words in the order totals are printed.
var Results = []string{ExecutedPass, ExecutedFail, Skipped, Inapplicable, Blocked}

// ValidResult reports whether s is one of the five result words.
func ValidResult(s string) bool {
	switch s {
	case ExecutedPass, ExecutedFail, Skipped, Inapplicable, Blocked:
		return true
	}
	return false
}

// Build kinds.
const (
	BuildImageDigest    = "image-digest"
	BuildCommit         = "commit"
	BuildArtifactSHA256 = "artifact-sha256"
)

// Evidence tiers of a claimed profile.
const (
	TierSelf        = "self"
	TierSteward     = "steward"
	TierIndependent = "independent"
)

// DeploymentColocatedCompanion is the only host.deployment value (RFC 0216).
const DeploymentColocatedCompanion = "colocated-companion"

// AlgEd25519 is the only signature algorithm.
const AlgEd25519 = "ed25519"

// SignatureOver is the exact list of members the signature covers, in order.
var SignatureOver = []string{"witnessSha256", "host.build", "suite.version", "discovery.sha256"}

// Bundle is the typed view of a v3 bundle. Optional members that are absent hold
// their zero value; where absence matters to a rule the field is a pointer.
type Bundle struct {
	BundleVersion     string           `json:"bundleVersion"`
	GeneratedAt       string           `json:"generatedAt"`
	Suite             Suite            `json:"suite"`
	Host              Host             `json:"host"`
	Discovery         Discovery        `json:"discovery"`
	ClaimedProfiles   []ClaimedProfile `json:"claimedProfiles"`
	Results           ResultSet        `json:"results"`
	WitnessSha256     string           `json:"witnessSha256"`
	AssertionCount    int64            `json:"assertionCount"`
	Detail            *Detail          `json:"detail,omitempty"`
	Durability        *Durability      `json:"durability,omitempty"`
	Signature         *Signature       `json:"signature"`
	VerifierSignature *Signature       `json:"verifierSignature,omitempty"`

	// Raw is the parsed document this view was decoded from (or, for a bundle being
	// assembled, the document it encodes to).
	Raw Value `json:"-"`
}

// Suite names the conformance suite run that produced the rows.
type Suite struct {
	Name                 string `json:"name"`
	Version              string `json:"version"`
	TargetMajor          int    `json:"targetMajor"`
	SpecArtifactsVersion string `json:"specArtifactsVersion"`
	StampSha256          string `json:"stampSha256,omitempty"`
}

// Host is the implementation under test.
type Host struct {
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Vendor       string       `json:"vendor,omitempty"`
	Build        Build        `json:"build"`
	SigningKeyID string       `json:"signingKeyId,omitempty"`
	Relaxations  []Relaxation `json:"relaxations,omitempty"`
	Deployment   string       `json:"deployment,omitempty"`
}

// Build identifies the exact build the suite ran against.
type Build struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// String returns "kind:id".
func (b Build) String() string { return b.Kind + ":" + b.ID }

// Relaxation durabilities (RFC 0173 §A.2): lost on restart, set at deploy time,
// persisted and auditable.
const (
	RelaxationSession    = "session"
	RelaxationDeployment = "deployment"
	RelaxationPersisted  = "persisted"
)

// Relaxation is an obligation the host declares it does not meet for this run.
type Relaxation struct {
	Obligation string `json:"obligation"`
	Durability string `json:"durability"`
	Reason     string `json:"reason"`
}

// Discovery is the host's discovery document as captured for the run.
type Discovery struct {
	URL              string   `json:"url"`
	Sha256           string   `json:"sha256"`
	ProtocolVersions []string `json:"protocolVersions"`
	PreferredVersion string   `json:"preferredVersion"`
	// Document is the captured /.well-known/openwop, kept exactly as parsed;
	// nil when the bundle carries none (bundles cut before suite 2.0.5).
	Document *Value `json:"document,omitempty"`
}

// ClaimedProfile is one profile the bundle claims and whether it certifies.
type ClaimedProfile struct {
	ID           string `json:"id"`
	EvidenceTier string `json:"evidenceTier"`
	WitnessCount int    `json:"witnessCount"`
	Certified    bool   `json:"certified"`
}

// ResultSet is the ledger of requirement rows and their totals.
type ResultSet struct {
	Totals       Totals `json:"totals"`
	Requirements []Row  `json:"requirements"`
}

// Totals counts rows by result.
type Totals struct {
	ExecutedPass int `json:"executedPass"`
	ExecutedFail int `json:"executedFail"`
	Skipped      int `json:"skipped"`
	Inapplicable int `json:"inapplicable"`
	Blocked      int `json:"blocked"`
}

// Get returns the count for a result word (0 for an unknown word).
func (t Totals) Get(result string) int {
	switch result {
	case ExecutedPass:
		return t.ExecutedPass
	case ExecutedFail:
		return t.ExecutedFail
	case Skipped:
		return t.Skipped
	case Inapplicable:
		return t.Inapplicable
	case Blocked:
		return t.Blocked
	}
	return 0
}

// Add counts one row with the given result; unknown words are not counted.
func (t *Totals) Add(result string) {
	switch result {
	case ExecutedPass:
		t.ExecutedPass++
	case ExecutedFail:
		t.ExecutedFail++
	case Skipped:
		t.Skipped++
	case Inapplicable:
		t.Inapplicable++
	case Blocked:
		t.Blocked++
	}
}

// TotalsMember maps a result word to its member name in results.totals.
func TotalsMember(result string) string {
	switch result {
	case ExecutedPass:
		return "executedPass"
	case ExecutedFail:
		return "executedFail"
	case Skipped:
		return "skipped"
	case Inapplicable:
		return "inapplicable"
	case Blocked:
		return "blocked"
	}
	return ""
}

// CountRows recounts totals from rows.
func CountRows(rows []Row) Totals {
	var t Totals
	for i := range rows {
		t.Add(rows[i].Result)
	}
	return t
}

// Row is one requirement's result. Assertions, Detail and Evidence are nil when the
// member is absent; absence and presence digest differently.
type Row struct {
	ID         string    `json:"id"`
	Scenario   string    `json:"scenario"`
	Result     string    `json:"result"`
	Assertions *int64    `json:"assertions,omitempty"`
	Detail     *string   `json:"detail,omitempty"`
	Evidence   *Evidence `json:"evidence,omitempty"`

	// Raw is the row object exactly as parsed (the zero Value for a row built in
	// code); the witness digest of a parsed bundle projects it, and Bundle.Value
	// writes it when it is what the row's fields would be written as.
	Raw Value `json:"-"`
}

// AssertionCount returns the row's assertions, 0 when absent.
func (r Row) AssertionCount() int64 {
	if r.Assertions == nil {
		return 0
	}
	return *r.Assertions
}

// DetailText returns the row's detail, "" when absent.
func (r Row) DetailText() string {
	if r.Detail == nil {
		return ""
	}
	return *r.Detail
}

// Evidence is what a row records about recovery (RFC 0158), signed with the row.
type Evidence struct {
	Recovery       *Recovery       `json:"recovery,omitempty"`
	RecoveryBounds []RecoveryBound `json:"recoveryBounds,omitempty"`
}

// Recovery is one kill row's measured recovery.
type Recovery struct {
	Class      string `json:"class"`
	BoundMs    int64  `json:"boundMs"`
	ObservedMs int64  `json:"observedMs"`
}

// RecoveryBound declares one recovery class's bound as a sum of terms.
type RecoveryBound struct {
	Class string      `json:"class"`
	Bound int64       `json:"bound"`
	Terms []BoundTerm `json:"terms"`
}

// BoundTerm is one named term of a recovery bound.
type BoundTerm struct {
	Name string `json:"name"`
	Ms   int64  `json:"ms"`
}

// Detail is the derived view of non-pass rows; it is never counted.
type Detail struct {
	NonPass []NonPass `json:"nonPass"`
}

// NonPass is one non-pass row with its reason.
type NonPass struct {
	ID     string `json:"id"`
	Result string `json:"result"`
	Reason string `json:"reason"`
}

// Durability is the claimed durability rung; it lies outside the signature and is
// re-derived from the signed rows by verifiers.
type Durability struct {
	Rung string `json:"rung"`
}

// Signature is an Ed25519 signature over the attestation payload.
// For verifierSignature, Over is absent.
type Signature struct {
	Alg   string   `json:"alg"`
	KeyID string   `json:"keyId"`
	Sig   string   `json:"sig"`
	Over  []string `json:"over,omitempty"`
}
