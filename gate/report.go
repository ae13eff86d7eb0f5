// Package gate is policy over many bundles: the Accepted predicate of RFC 0174
// §B.1 (gate accepted), the same over a whole RFC register (audit), the host half
// of the v2 cut gates (cut), the census of which bundles carry which rows, and the
// diff between two cuts. It reads and judges every bundle through package verify,
// exactly once per distinct file content, and returns plain structs with stable
// JSON names; rendering them (text, JSON, GitHub annotations, SARIF, JUnit) is the
// caller's business.
package gate

// Status is the outcome of one criterion, and of a whole report.
type Status string

// Criterion outcomes. BLOCKED means the criterion could not be evaluated (a key,
// a file or the network was missing) and says what would unblock it.
const (
	Pass    Status = "PASS"
	Fail    Status = "FAIL"
	Blocked Status = "BLOCKED"
)

// ExitCode maps a report's status to the exit code: 0 PASS, 1 FAIL, 2 BLOCKED.
func (s Status) ExitCode() int {
	switch s {
	case Pass:
		return 0
	case Blocked:
		return 2
	}
	return 1
}

// worse returns the worse of two statuses: FAIL > BLOCKED > PASS.
// Worst is the worst status of the reports: FAIL, else BLOCKED, else PASS.
func Worst(reps []*Report) Status {
	s := Pass
	for _, r := range reps {
		s = worse(s, r.Status)
	}
	return s
}

func worse(a, b Status) Status {
	rank := map[Status]int{Pass: 0, Blocked: 1, Fail: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// Criterion kinds (Criterion.ID).
const (
	CritAcceptance  = "rfc.acceptance"
	CritUpdated     = "rfc.updated"
	CritRegister    = "rfc.register"
	CritRequirement = "requirement"
	CritCorpus      = "requirement.corpus"
	CritVerified    = "bundle.verified"
	CritKey         = "bundle.key"
	CritCertified   = "bundle.profiles-certified"
	CritRelaxations = "bundle.relaxations-empty"
	CritGuard       = "bundle.guard-closed"
	CritTier        = "bundle.tier"
	CritCompanion   = "bundle.companion"
	CritLive        = "bundle.live"
)

// Report is the result of one gate run.
type Report struct {
	// Gate is "accepted" or "cut".
	Gate string `json:"gate"`
	// Subject names what was gated: "RFC 0211", a list of ids, a bundle file.
	Subject string `json:"subject"`
	// RFC is set when the gate read an RFC file.
	RFC *RFCInfo `json:"rfc"`
	// Status is the worst criterion status (PASS when there is none).
	Status   Status      `json:"status"`
	ExitCode int         `json:"exitCode"`
	Criteria []Criterion `json:"criteria"`
	// Bundles lists every bundle read, with its verdict and whether it qualifies
	// as a witness.
	Bundles []BundleInfo `json:"bundles"`
	// Notes are facts for the reviewer that do not change the status.
	Notes    []string `json:"notes"`
	Settings Settings `json:"settings"`
}

// RFCInfo identifies the RFC a report is about.
type RFCInfo struct {
	File   string `json:"file"`
	Number string `json:"number"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// Settings records the inputs the verdict depends on.
type Settings struct {
	BundlesDir string `json:"bundlesDir"`
	TiersFile  string `json:"tiersFile"`
	LedgerFile string `json:"ledgerFile"`
	Anchors    string `json:"anchorsFile"`
	Keyring    string `json:"keyring"`
	HostKeys   int    `json:"hostKeys"`
	MinTier    int    `json:"minTier"`
	Live       bool   `json:"live"`
	// TrustUnsignedOrigin: host tiers were taken from unbound discovery.url
	// origins (weaker; see Config.TrustUnsignedOrigin).
	TrustUnsignedOrigin bool `json:"trustUnsignedOrigin"`
	// HistoryBase is the reviewed revision the git-history binder trusted ("" none).
	HistoryBase string `json:"historyBase,omitempty"`
	// RequireTimestamp: bundle.key failed bundles without a trusted RFC 3161
	// token (Config.RequireTimestamp).
	RequireTimestamp bool `json:"requireTimestamp,omitempty"`
	// TSACerts are the subjects of the TSA certificates trusted (--tsa-cert).
	TSACerts []string `json:"tsaCerts,omitempty"`
}

// Criterion is one line of the predicate.
type Criterion struct {
	// ID is the criterion kind (rfc.acceptance, requirement, bundle.tier, …).
	ID    RuleID `json:"id"`
	Title string `json:"title"`
	// Gate groups cut-gate checks (Witness, Coexistence, Front door).
	Gate   string `json:"gate,omitempty"`
	Status Status `json:"status"`
	// Reason is one sentence: why PASS, what failed, or what would unblock it.
	Reason string `json:"reason"`
	// Requirement is the required id, for requirement criteria.
	Requirement string `json:"requirement,omitempty"`
	// Bundle names the bundle, for bundle criteria.
	Bundle *BundleRef `json:"bundle,omitempty"`
	// Location is where in the RFC (or register) the criterion comes from.
	Location *Location `json:"location,omitempty"`
	// Findings are the individual problems (each with its own location), for
	// criteria that check many lines.
	Findings []Finding `json:"findings,omitempty"`
	// Evidence lists the rows looked at, counted or not.
	Evidence []Evidence `json:"evidence,omitempty"`
	// Warning marks a criterion of a warning-severity rule (Rule.Severity)
	// that did not pass: it is reported and does not change the report's status.
	Warning bool `json:"warning,omitempty"`
}

// Location is a line in a file.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// Finding is one problem inside a criterion.
type Finding struct {
	Message  string    `json:"message"`
	Location *Location `json:"location,omitempty"`
}

// BundleRef names a bundle file and the key that signed it.
type BundleRef struct {
	File   string `json:"file"`
	Sha256 string `json:"sha256"`
	KeyID  string `json:"keyId,omitempty"`
	// KeySource and KeyFingerprint say which trusted key verified it ("" when none).
	KeySource      string `json:"keySource,omitempty"`
	KeyFingerprint string `json:"keyFingerprint,omitempty"`
}

// Evidence is one row of one bundle looked at for a requirement.
type Evidence struct {
	Bundle     BundleRef `json:"bundle"`
	Row        string    `json:"row"`
	Result     string    `json:"result"`
	Assertions int64     `json:"assertions"`
	Detail     string    `json:"detail,omitempty"`
	// Counted says whether this row witnesses the requirement; Why says why not.
	Counted bool   `json:"counted"`
	Why     string `json:"why,omitempty"`
}

// BundleInfo is one bundle read by a gate run.
type BundleInfo struct {
	BundleRef
	Host       string   `json:"host"`
	Suite      string   `json:"suite"`
	Origin     string   `json:"origin"`
	Tier       int      `json:"tier"` // 0: unknown
	TierName   string   `json:"tierName,omitempty"`
	Verdict    string   `json:"verdict"` // VERIFIED, REJECTED, COHERENT, UNREADABLE
	Rejections []string `json:"rejections"`
	Error      string   `json:"error,omitempty"`
	Companion  bool     `json:"companion"`
	// Qualifies: the bundle may witness host-tier requirements. Why lists the
	// failed checks when it does not.
	Qualifies bool     `json:"qualifies"`
	Why       []string `json:"why"`
}

// finish sets the report status and exit code from its criteria.
func (r *Report) finish() {
	if finishHook != nil {
		finishHook(r)
	}
	r.Status = Pass
	for _, c := range r.Criteria {
		if !c.Warning {
			r.Status = worse(r.Status, c.Status)
		}
	}
	r.ExitCode = r.Status.ExitCode()
	if r.Notes == nil {
		r.Notes = []string{}
	}
	if r.Bundles == nil {
		r.Bundles = []BundleInfo{}
	}
	if r.Criteria == nil {
		r.Criteria = []Criterion{}
	}
}
