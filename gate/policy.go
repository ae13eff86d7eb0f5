package gate

import (
	"fmt"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/lazyre"
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

// LoadLedger reads a corpus ledger file (see ParseLedger).
func LoadLedger(path string) (*Ledger, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return ParseLedger(data, path)
}

// ParseLedger reads a corpus ledger as strictly as a bundle (bundle.DecodeStrict:
// I-JSON, exact-case names, duplicate and unknown members refused); every recorded
// result must be one of the five result words. name is the file, for messages.
func ParseLedger(data []byte, name string) (*Ledger, error) {
	var l Ledger
	if err := bundle.DecodeStrict(data, &l); err != nil {
		return nil, fmt.Errorf("%s: not a corpus ledger: %w", name, err)
	}
	for id, entries := range l.Requirements {
		for i, e := range entries {
			if !bundle.ValidResult(e.Result) {
				return nil, fmt.Errorf("%s: requirements[%q][%d]: result %q is not one of %s", name, id, i, e.Result, strings.Join(bundle.Results, ", "))
			}
		}
	}
	l.File = name
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

// LoadAnchors reads a harness-trust-anchors file (see ParseAnchors).
func LoadAnchors(path string) (*Anchors, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return ParseAnchors(data, path)
}

// anchorIDPattern() is the closed list's id rule (check-harness-trust-anchors): exact
// requirement or scenario ids, never a prefix or a pattern.
var anchorIDPattern = lazyre.New(`^openwop\.(requirement|scenario)\.[a-z0-9.-]+$`)

// ParseAnchors reads a harness-trust-anchors list as strictly as a bundle
// (bundle.DecodeStrict). Each row's requirementId must be an exact id, listed once.
// name is the file, for messages.
func ParseAnchors(data []byte, name string) (*Anchors, error) {
	var a Anchors
	if err := bundle.DecodeStrict(data, &a); err != nil {
		return nil, fmt.Errorf("%s: not a harness-trust-anchors file: %w", name, err)
	}
	a.File = name
	a.ids = map[string]int{}
	for i, r := range a.Rows {
		if !anchorIDPattern().MatchString(r.RequirementID) {
			return nil, fmt.Errorf("%s: rows[%d]: requirementId %q is not an exact id (%s)", name, i, r.RequirementID, anchorIDPattern())
		}
		if j, dup := a.ids[r.RequirementID]; dup {
			return nil, fmt.Errorf("%s: rows[%d]: %s is already listed (rows[%d])", name, i, r.RequirementID, j)
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
