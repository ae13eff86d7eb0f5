package gate

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/certcut/certcut/keys"
)

// Tiers is evidence/host-tiers.json (RFC 0220 §D): hosts keyed by the origin of
// their bundles' discovery.url. An origin not listed is unknown and never qualifies.
type Tiers struct {
	File  string     `json:"-"`
	Hosts []TierHost `json:"hosts"`
}

// TierHost is one host row. Tier 1 is steward-verified, 2 steward-affiliated,
// 3 independent: a higher number is more independent evidence.
type TierHost struct {
	Name    string   `json:"name"`
	Origins []string `json:"origins"`
	Tier    int      `json:"tier"`
	Source  string   `json:"source,omitempty"`
}

// LoadTiers reads a host-tiers file.
func LoadTiers(path string) (*Tiers, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Tiers
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: not a host-tiers file: %w", path, err)
	}
	for i, h := range t.Hosts {
		if h.Tier < 1 || h.Tier > 3 {
			return nil, fmt.Errorf("%s: hosts[%d] (%s) has tier %d; tiers are 1, 2 or 3", path, i, h.Name, h.Tier)
		}
	}
	t.File = path
	return &t, nil
}

// Lookup finds the host row listing origin.
func (t *Tiers) Lookup(origin string) (TierHost, bool) {
	for _, h := range t.Hosts {
		for _, o := range h.Origins {
			if n, err := keys.Origin(o); err == nil && n == origin {
				return h, true
			}
		}
	}
	return TierHost{}, false
}

// Ledger is evidence/corpus-ledger.json: the corpus-coherence results run in the
// spec repository's CI, the only witness of a (corpus) row.
type Ledger struct {
	File         string                   `json:"-"`
	Generated    string                   `json:"generated"`
	SuiteVersion string                   `json:"suiteVersion"`
	Requirements map[string][]LedgerEntry `json:"requirements"`
}

// LedgerEntry is one recorded result.
type LedgerEntry struct {
	Result   string  `json:"result"`
	Scenario *string `json:"scenario"`
}

// LoadLedger reads a corpus ledger.
func LoadLedger(path string) (*Ledger, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Ledger
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: not a corpus ledger: %w", path, err)
	}
	l.File = path
	return &l, nil
}

// Anchors is spec/v2/harness-trust-anchors.json: the rows a colocated companion
// may witness (RFC 0216 §A). Exact ids only.
type Anchors struct {
	File string         `json:"-"`
	Rows []AnchorRow    `json:"rows"`
	ids  map[string]int `json:"-"`
}

// AnchorRow is one listed row.
type AnchorRow struct {
	RequirementID string `json:"requirementId"`
	Scenario      string `json:"scenario"`
	Anchor        string `json:"anchor"`
	RFC           string `json:"rfc"`
}

// LoadAnchors reads a harness-trust-anchors file.
func LoadAnchors(path string) (*Anchors, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Anchors
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("%s: not a harness-trust-anchors file: %w", path, err)
	}
	a.File = path
	a.ids = map[string]int{}
	for i, r := range a.Rows {
		a.ids[r.RequirementID] = i
	}
	return &a, nil
}

// Has reports whether id is listed.
func (a *Anchors) Has(id string) bool {
	_, ok := a.ids[id]
	return ok
}
