package gate

import (
	"fmt"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/declaration"
)

// coherenceCriteria: one bundle.coherence-ids criterion per committed bundle —
// no row id is minted from a corpus-coherence file of the list the repository
// gives (its conformance/src/coherence/, else its schema's lookahead, else the
// built-in list; the reason says which).
func (r *Repo) coherenceCriteria() []Criterion {
	list, err := declaration.ReadCoherenceList(r.Root)
	if err != nil {
		return []Criterion{rule(CritCoherenceIDs).Criterion(Result{Status: Blocked, Reason: "the coherence list cannot be read: " + err.Error()})}
	}
	var out []Criterion
	for _, e := range r.Entries {
		if e.Bundle == nil {
			continue
		}
		ref := e.Ref()
		var bad []string
		for _, row := range e.Bundle.Rows {
			if bundle.IsCoherenceRowID(row.ID, list.Names) {
				bad = append(bad, row.ID)
			}
		}
		res := Result{Status: Pass, Bundle: &ref, Reason: fmt.Sprintf("no row id is minted from a corpus-coherence file (list: %s)", list.Source)}
		if len(bad) > 0 {
			res.Status = Fail
			res.Reason = fmt.Sprintf("%d row id(s) minted from corpus-coherence files, which run in the spec repository's CI and never in a host bundle: %s (list: %s)", len(bad), firstN(bad, 5), list.Source)
		}
		out = append(out, rule(CritCoherenceIDs).Criterion(res))
	}
	return out
}
