package profiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// floorPrefix begins the id of every floor row.
const floorPrefix = "openwop.floor."

// FloorRowID is the id of a floor scenario's per-file row: openwop.floor.<stem>.
func FloorRowID(stem string) string { return floorPrefix + stem }

// IsFloor reports whether a scenario file stem is on some profile's floor.
func (r *Registry) IsFloor(stem string) bool {
	for _, p := range r.Profiles {
		if slices.Contains(p.FloorScenarios, stem) {
			return true
		}
	}
	return false
}

// FloorState is what one floor row says about its profile.
type FloorState int

// Floor states. Minting (Assess) and verification judge a floor row by the same
// classification; they differ only on FloorMissing (see each).
const (
	// FloorMissing: the bundle carries no row for the floor scenario. Assess denies
	// (an unclassified, silent return: the run is the current one); verification
	// notes it (the scenario may have joined the floor after the bundle was cut).
	FloorMissing FloorState = iota
	// FloorWitnessed: executed-pass with at least one assertion (partial-witness
	// rows included). Only these rows witness a profile.
	FloorWitnessed
	// FloorVacuous: executed-pass with no assertions, an unclassified return.
	FloorVacuous
	// FloorInapplicable: the scenario does not apply to this host; it neither
	// witnesses nor refutes.
	FloorInapplicable
	// FloorRefuted: executed-fail, blocked or skipped. The floor was not met: a
	// profile with such a floor row certifies nothing. (The reference emitter counts
	// skipped as certifiable; certcut does not — a skipped floor scenario witnessed
	// nothing and says the host chose not to run it.)
	FloorRefuted
)

// ClassifyFloorRow says what a floor row (nil: absent) comes to.
func ClassifyFloorRow(row *bundle.Row) FloorState {
	switch {
	case row == nil:
		return FloorMissing
	case row.Result == bundle.ExecutedPass && row.AssertionCount() <= 0:
		return FloorVacuous
	case row.Result == bundle.ExecutedPass:
		return FloorWitnessed
	case row.Result == bundle.Inapplicable:
		return FloorInapplicable
	}
	return FloorRefuted
}

// FloorRow is one floor scenario of a profile and the row a bundle carries for it.
type FloorRow struct {
	Stem  string      // the scenario file stem, as the registry lists it
	RowID string      // openwop.floor.<stem>
	Row   *bundle.Row // nil when the bundle carries no such row
	State FloorState
}

// Floor returns the floor rows of profile p in registry order, looked up in byID
// (floor row id to row; see FloorRowsByID).
func (p Profile) Floor(byID map[string]*bundle.Row) []FloorRow {
	out := make([]FloorRow, len(p.FloorScenarios))
	for i, stem := range p.FloorScenarios {
		id := FloorRowID(stem)
		row := byID[id]
		out[i] = FloorRow{Stem: stem, RowID: id, Row: row, State: ClassifyFloorRow(row)}
	}
	return out
}

// FloorRowsByID indexes the floor rows (openwop.floor.*) of rows by id, as Floor
// looks them up; of repeated ids, the first row counts.
func FloorRowsByID(rows []bundle.Row) map[string]*bundle.Row {
	byID := map[string]*bundle.Row{}
	for i := range rows {
		if !strings.HasPrefix(rows[i].ID, floorPrefix) {
			continue
		}
		if _, seen := byID[rows[i].ID]; !seen {
			byID[rows[i].ID] = &rows[i]
		}
	}
	return byID
}

// Assessment is what a profile claim comes to for one run.
type Assessment struct {
	ID string `json:"id"`
	// WitnessCount is the number of the profile's floor rows that are executed-pass
	// with at least one assertion.
	WitnessCount int `json:"witnessCount"`
	// Certified: the profile is derived, no relaxation (declared or observed) denies
	// it, no row is blocked, every floor row is present and classified, none is
	// executed-fail, blocked or skipped, and at least one witnessed.
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
// A floor row is the per-file row openwop.floor.<stem> of each floor scenario,
// classified by ClassifyFloorRow. It is unclassified when missing (a silent return)
// or when it is executed-pass with no assertions (a vacuous one); executed-fail,
// blocked and skipped deny. That is stricter than the reference, whose CERTIFIABLE
// set (requirement-ledger.ts) includes skipped: the verifier refuses a certified
// profile with a skipped floor row (certified-not-witnessed), so minting must not
// claim one. A profile whose floor witnesses nothing (every row inapplicable) does
// not certify: it certifies only on a witnessed pass. witnessCount counts the floor
// rows that are executed-pass with assertions > 0 (partial-witness rows included),
// which reproduces the witnessCount of every major-2 corpus bundle; the verifier
// re-derives it the same way.
func (r *Registry) Assess(doc bundle.Value, rows []bundle.Row, declared []string) []Assessment {
	byID := FloorRowsByID(rows)
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
		for _, f := range p.Floor(byID) {
			switch f.State {
			case FloorMissing:
				missing = append(missing, f.RowID)
			case FloorVacuous:
				deny("floor row %s is executed-pass with no assertions: an unclassified (vacuous) return", f.RowID)
			case FloorWitnessed:
				a.WitnessCount++
			case FloorRefuted:
				if f.Row.Result == bundle.Skipped {
					deny("floor row %s is skipped: a floor scenario that did not run witnesses nothing (a verifier refuses it: certified-not-witnessed)", f.RowID)
				} else {
					deny("floor row %s is %s", f.RowID, f.Row.Result)
				}
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
		if denies(Family(o), id, p.Predicate.Families) {
			out = append(out, o)
		}
	}
	return out
}
