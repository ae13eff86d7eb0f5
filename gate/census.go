package gate

import (
	"fmt"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/verify"
)

// Query kinds for a census.
const (
	QueryID       = "id"       // the id or a leg under it
	QueryPrefix   = "prefix"   // any id starting with the text
	QueryScenario = "scenario" // rows from that scenario file
)

// Query is one thing to count.
type Query struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

func (q Query) String() string { return q.Kind + " " + q.Value }

// Matches reports whether a row answers the query.
func (q Query) Matches(row bundle.Row) bool {
	switch q.Kind {
	case QueryID:
		return rfc.Covers(q.Value, row.ID)
	case QueryPrefix:
		return strings.HasPrefix(row.ID, q.Value)
	case QueryScenario:
		stem := strings.TrimSuffix(q.Value, ".test.ts")
		return row.Scenario == stem+".test.ts" || row.Scenario == stem ||
			row.ID == "openwop.scenario."+stem || row.ID == "openwop.floor."+stem
	}
	return false
}

// RowFilter returns what a Loader (Loader.KeepRow) must keep of each bundle for
// TakeCensus to answer the queries: the rows any of them matches.
func RowFilter(queries []Query) func(bundle.Row) bool {
	return func(row bundle.Row) bool {
		for _, q := range queries {
			if q.Matches(row) {
				return true
			}
		}
		return false
	}
}

// Census is which bundles carry rows for the queries.
type Census struct {
	Dir        string          `json:"dir"`
	Bundles    int             `json:"bundles"`
	Unreadable []string        `json:"unreadable"`
	Summary    []CensusSummary `json:"summary"`
	Rows       []CensusRow     `json:"rows"`
	// UnsignedColumns names the row fields whose values nothing binds (the
	// minter's claims): the Unsigned CensusColumns.
	UnsignedColumns []string `json:"unsignedColumns"`
}

// CensusColumn is one field of a census row, by its JSON (and CSV) name, with
// the bundle member (a bundle.Bindings path) its value comes from; Member is ""
// for certcut's own columns (the query, the file, its digest, the verdict).
type CensusColumn struct {
	Name   string
	Member string
}

// Unsigned reports whether nothing binds the column's values.
func (c CensusColumn) Unsigned() bool { return c.Member != "" && bundle.IsUnsigned(c.Member) }

// CensusColumns are the fields of CensusRow in CSV order.
var CensusColumns = []CensusColumn{
	{"query", ""}, {"bundle", ""}, {"sha256", ""},
	{"row", "results.requirements"}, {"scenario", "results.requirements"},
	{"result", "results.requirements"}, {"assertions", "results.requirements"},
	{"suite", "suite.version"}, {"host", "host.name"}, {"keyId", "signature.keyId"},
	{"verdict", ""}, {"verifies", ""}, {"signedAt", ""}, {"timeSource", ""},
}

// CensusColumnUnsigned reports whether the column named is Unsigned.
func CensusColumnUnsigned(name string) bool {
	for _, c := range CensusColumns {
		if c.Name == name {
			return c.Unsigned()
		}
	}
	return false
}

// CensusSummary is the sentence RFCs quote: "N of M committed bundles carry a row
// for …".
type CensusSummary struct {
	Query Query `json:"query"`
	// Carrying counts bundles with at least one matching row; Passing those with
	// at least one executed-pass row; Verified those of the carrying ones that
	// verify (VERIFIED).
	Carrying int `json:"carrying"`
	Passing  int `json:"passing"`
	Verified int `json:"verified"`
	Of       int `json:"of"`
}

// Sentence renders the summary as an RFC would quote it.
func (s CensusSummary) Sentence() string {
	return fmt.Sprintf("%d of %d committed bundles carry a row for %s %s (%d with an executed-pass row; %d of the %d verify)",
		s.Carrying, s.Of, s.Query.Kind, s.Query.Value, s.Passing, s.Verified, s.Carrying)
}

// CensusRow is one matching row.
type CensusRow struct {
	Query      string `json:"query"`
	Bundle     string `json:"bundle"`
	Sha256     string `json:"sha256"`
	Row        string `json:"row"`
	Scenario   string `json:"scenario"`
	Result     string `json:"result"`
	Assertions int64  `json:"assertions"`
	Detail     string `json:"detail,omitempty"`
	Suite      string `json:"suite"`
	Host       string `json:"host"`
	KeyID      string `json:"keyId"`
	Verdict    string `json:"verdict"`
	Verifies   bool   `json:"verifies"`
	// SignedAt is when the host signature was made as far as anything shows,
	// and TimeSource where that comes from: "rfc3161" (a trusted time-stamp
	// token) or "generatedAt (unsigned)" (verify.SigningTime).
	SignedAt   string `json:"signedAt"`
	TimeSource string `json:"timeSource"`
}

// TakeCensus counts, over the entries, the bundles and rows answering each query.
func TakeCensus(dir string, entries []*Entry, queries []Query) *Census {
	c := &Census{Dir: dir, Unreadable: []string{}, Summary: []CensusSummary{}, Rows: []CensusRow{}, UnsignedColumns: []string{}}
	for _, col := range CensusColumns {
		if col.Unsigned() {
			c.UnsignedColumns = append(c.UnsignedColumns, col.Name)
		}
	}
	for _, e := range entries {
		if e.Bundle == nil {
			c.Unreadable = append(c.Unreadable, e.File)
			continue
		}
		c.Bundles++
	}
	for _, q := range queries {
		s := CensusSummary{Query: q, Of: c.Bundles}
		for _, e := range entries {
			if e.Bundle == nil {
				continue
			}
			carried, passed := false, false
			for _, row := range e.Bundle.Rows {
				if !q.Matches(row) {
					continue
				}
				carried = true
				passed = passed || row.Result == bundle.ExecutedPass
				keyID := ""
				if e.Bundle.Signature != nil {
					keyID = e.Bundle.Signature.KeyID
				}
				c.Rows = append(c.Rows, CensusRow{
					Query: q.String(), Bundle: e.File, Sha256: e.Sha256, Row: row.ID, Scenario: row.Scenario,
					Result: row.Result, Assertions: row.AssertionCount(), Detail: clip(row.DetailText()),
					Suite: e.Bundle.Suite.Version, Host: e.Bundle.Host.Name, KeyID: keyID,
					Verdict: string(e.Outcome()), Verifies: e.Outcome() == verify.Verified,
					SignedAt: e.Verdict.SigningTime.Time, TimeSource: e.Verdict.SigningTime.Source,
				})
			}
			if carried {
				s.Carrying++
				if e.Outcome() == verify.Verified {
					s.Verified++
				}
			}
			if passed {
				s.Passing++
			}
		}
		c.Summary = append(c.Summary, s)
	}
	return c
}
