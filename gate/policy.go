package gate

import (
	"fmt"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// Ledger is evidence/corpus-ledger.json: the corpus-coherence results run in the
// spec repository's CI, the only witness of a (corpus) row.
type Ledger struct {
	File         string                   `json:"-"`
	Schema       string                   `json:"$schema,omitempty"`
	Comment      string                   `json:"$comment,omitempty"`
	Scenarios    int                      `json:"scenarios,omitempty"`
	Generated    string                   `json:"generated"`
	SuiteVersion string                   `json:"suiteVersion"`
	Requirements map[string][]LedgerEntry `json:"requirements"`
}

// LedgerEntry is one recorded result.
type LedgerEntry struct {
	Result   string  `json:"result"`
	Scenario *string `json:"scenario"`
}

// LoadLedger reads a corpus ledger, as strictly as a bundle (bundle.DecodeStrict).
func LoadLedger(path string) (*Ledger, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	var l Ledger
	if err := bundle.DecodeStrict(data, &l); err != nil {
		return nil, fmt.Errorf("%s: not a corpus ledger: %w", path, err)
	}
	l.File = path
	return &l, nil
}

// Anchors is spec/v2/harness-trust-anchors.json: the rows a colocated companion
// may witness (RFC 0216 §A). Exact ids only.
type Anchors struct {
	File    string         `json:"-"`
	Schema  string         `json:"$schema,omitempty"`
	Comment string         `json:"$comment,omitempty"`
	Version int            `json:"version,omitempty"`
	Updated string         `json:"updated,omitempty"`
	Rows    []AnchorRow    `json:"rows"`
	ids     map[string]int `json:"-"`
}

// AnchorRow is one listed row.
type AnchorRow struct {
	RequirementID string `json:"requirementId"`
	Scenario      string `json:"scenario"`
	Anchor        string `json:"anchor"`
	RFC           string `json:"rfc"`
}

// LoadAnchors reads a harness-trust-anchors file, as strictly as a bundle
// (bundle.DecodeStrict). A requirement id listed twice is refused.
func LoadAnchors(path string) (*Anchors, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	var a Anchors
	if err := bundle.DecodeStrict(data, &a); err != nil {
		return nil, fmt.Errorf("%s: not a harness-trust-anchors file: %w", path, err)
	}
	a.File = path
	a.ids = map[string]int{}
	for i, r := range a.Rows {
		if j, dup := a.ids[r.RequirementID]; dup {
			return nil, fmt.Errorf("%s: rows[%d]: %s is already listed (rows[%d])", path, i, r.RequirementID, j)
		}
		a.ids[r.RequirementID] = i
	}
	return &a, nil
}

// Has reports whether id is listed.
func (a *Anchors) Has(id string) bool {
	_, ok := a.ids[id]
	return ok
}
