package profiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// FloorRowID is the id of a floor scenario's per-file row: openwop.floor.<stem>.
func FloorRowID(stem string) string { return "openwop.floor." + stem }

// IsFloor reports whether a scenario file stem is on some profile's floor.
func (r *Registry) IsFloor(stem string) bool {
	for _, p := range r.Profiles {
		if slices.Contains(p.FloorScenarios, stem) {
			return true
		}
	}
	return false
}

// Assessment is what a profile claim comes to for one run.
type Assessment struct {
	ID string `json:"id"`
	// WitnessCount is the number of the profile's floor rows that are executed-pass
	// with at least one assertion.
	WitnessCount int `json:"witnessCount"`
	// Certified: the profile is derived, no relaxation (declared or observed) denies
	// it, no row is blocked, every floor row is present and classified, none failed,
	// and at least one witnessed.
	Certified bool `json:"certified"`
	// Denials say why a profile does not certify, one line each; empty when it does.
	Denials []string `json:"denials"`
}

// Assess derives the profiles a discovery document claims (every profile whose
// predicate holds, in registry order) and decides for each, from the rows and the
// declared relaxation obligations, its witnessCount and whether it certifies — the
// reference --certify rule (spec §6.2 step 5):
//
//	certified = not relaxed (declared or observed) ∧ held ∧ no unclassified floor
//	            row ∧ every floor row certifiable ∧ blocked = 0
//
// A floor row is the per-file row openwop.floor.<stem> of each floor scenario. It is
// unclassified when missing (a silent return) or when it is executed-pass with no
// assertions (a vacuous one); it is certifiable when executed-pass, skipped or
// inapplicable (requirement-ledger.ts CERTIFIABLE), so executed-fail and blocked
// deny. A profile whose floor witnesses nothing (every row inapplicable or skipped)
// does not certify: it certifies only on a witnessed pass. witnessCount counts the
// floor rows that are executed-pass with assertions > 0 (partial-witness rows
// included), which reproduces the witnessCount of every major-2 corpus bundle.
func (r *Registry) Assess(doc bundle.Value, rows []bundle.Row, declared []string) []Assessment {
	byID := make(map[string]*bundle.Row, len(rows))
	for i := range rows {
		if _, seen := byID[rows[i].ID]; !seen {
			byID[rows[i].ID] = &rows[i]
		}
	}
	derived := r.Derived(doc)
	declaredDenied := r.RelaxedBy(declared, derived)
	observed := ObservedRelaxations(rows)
	observedDenied := r.RelaxedBy(observed, derived)
	blocked := bundle.CountRows(rows).Blocked

	out := make([]Assessment, 0, len(derived))
	for _, id := range derived {
		p, _ := r.Profile(id)
		a := Assessment{ID: id, Denials: []string{}}
		deny := func(format string, args ...any) { a.Denials = append(a.Denials, fmt.Sprintf(format, args...)) }
		if slices.Contains(declaredDenied, id) {
			deny("a declared relaxation (%s) denies it", strings.Join(matching(declared, id, p), ", "))
		}
		if slices.Contains(observedDenied, id) {
			deny("row %s is executed-fail, so %s is relaxed (observed)", EgressGuardRow, EgressGuardObligation)
		}
		if blocked > 0 {
			deny("%d rows are blocked; a run with blocked rows certifies nothing", blocked)
		}
		if len(p.FloorScenarios) == 0 {
			deny("the registry (%s) defines no floor scenarios for it, so nothing can witness it", r.Source)
		}
		var missing []string
		for _, stem := range p.FloorScenarios {
			rowID := FloorRowID(stem)
			row := byID[rowID]
			switch {
			case row == nil:
				missing = append(missing, rowID)
			case row.Result == bundle.ExecutedPass && row.AssertionCount() <= 0:
				deny("floor row %s is executed-pass with no assertions: an unclassified (vacuous) return", rowID)
			case row.Result == bundle.ExecutedPass:
				a.WitnessCount++
			case row.Result == bundle.ExecutedFail || row.Result == bundle.Blocked:
				deny("floor row %s is %s", rowID, row.Result)
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			deny("floor row %s is missing: an unclassified (silent) return", missing[0])
		default:
			deny("%d floor rows are missing, unclassified (silent) returns: %s", len(missing), strings.Join(missing, ", "))
		}
		if a.WitnessCount == 0 && len(p.FloorScenarios) > 0 && len(missing) < len(p.FloorScenarios) {
			deny("no floor row witnessed it (no executed-pass with assertions)")
		}
		a.Certified = len(a.Denials) == 0
		out = append(out, a)
	}
	return out
}

// matching returns the declared obligations that deny profile id.
func matching(declared []string, id string, p Profile) []string {
	var out []string
	for _, o := range declared {
		fam := Family(o)
		if fam != "" && (strings.Contains(id, fam) || slices.Contains(p.Predicate.Families, fam)) {
			out = append(out, o)
		}
	}
	return out
}
