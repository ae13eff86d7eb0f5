package bundle

import (
	"fmt"
)

// Durability rungs, lowest first. Only the first is derivable from rows today.
const (
	RungDurableSingleInstance = "durable-single-instance"
	RungDurableMultiInstance  = "durable-multi-instance"
	RungMultiRegionQualified  = "multi-region-qualified"
)

// Rungs lists the three rung names.
var Rungs = []string{RungDurableSingleInstance, RungDurableMultiInstance, RungMultiRegionQualified}

const rungPrefix = "openwop.requirement.0158."

var (
	rungRows = []string{"kill-after-accept", "kill-during-execution", "duplicate-delivery", "poison-exhaustion", "bound-is-derived"}
	killRows = []string{"kill-after-accept", "kill-during-execution"}
)

// DeriveRung derives the durability rung the signed rows support
// (durability-evidence.ts deriveRung): the five RFC 0158 rows present and passing,
// bound-is-derived declaring valid recovery bounds, and each kill row recording a
// recovery within the bound of a declared class. The error says what is missing.
func DeriveRung(rows []Row) (string, error) {
	byID := make(map[string]*Row, len(rungRows))
	for i := range rows {
		r := &rows[i]
		if len(r.ID) > len(rungPrefix) && r.ID[:len(rungPrefix)] == rungPrefix {
			if _, seen := byID[r.ID]; !seen {
				byID[r.ID] = r
			}
		}
	}
	for _, leg := range rungRows {
		r := byID[rungPrefix+leg]
		if r == nil {
			return "", fmt.Errorf("row %s%s is missing", rungPrefix, leg)
		}
		if r.Result != ExecutedPass {
			return "", fmt.Errorf("row %s%s is %s, not executed-pass", rungPrefix, leg, r.Result)
		}
	}
	bounds, err := recoveryBounds(byID[rungPrefix+"bound-is-derived"])
	if err != nil {
		return "", err
	}
	for _, leg := range killRows {
		r := byID[rungPrefix+leg]
		if r.Evidence == nil || r.Evidence.Recovery == nil {
			return "", fmt.Errorf("row %s%s records no evidence.recovery", rungPrefix, leg)
		}
		rec := r.Evidence.Recovery
		bound, declared := bounds[rec.Class]
		switch {
		case !declared:
			return "", fmt.Errorf("row %s%s names recovery class %q, which bound-is-derived does not declare", rungPrefix, leg, rec.Class)
		case rec.BoundMs != bound:
			return "", fmt.Errorf("row %s%s records boundMs %d, but class %q is bounded at %d", rungPrefix, leg, rec.BoundMs, rec.Class, bound)
		case rec.ObservedMs < 0:
			return "", fmt.Errorf("row %s%s records a negative observedMs", rungPrefix, leg)
		case rec.ObservedMs > bound:
			return "", fmt.Errorf("row %s%s observed %d ms, beyond its bound of %d ms", rungPrefix, leg, rec.ObservedMs, bound)
		}
	}
	return RungDurableSingleInstance, nil
}

// recoveryBounds checks bound-is-derived's evidence.recoveryBounds and returns the
// bound of each class.
func recoveryBounds(r *Row) (map[string]int64, error) {
	where := rungPrefix + "bound-is-derived"
	if r.Evidence == nil || len(r.Evidence.RecoveryBounds) == 0 {
		return nil, fmt.Errorf("row %s records no evidence.recoveryBounds", where)
	}
	rbs := r.Evidence.RecoveryBounds
	if len(rbs) > 16 {
		return nil, fmt.Errorf("row %s declares %d recovery classes, more than 16", where, len(rbs))
	}
	bounds := make(map[string]int64, len(rbs))
	for _, rb := range rbs {
		if !IsRecoveryName(rb.Class) {
			return nil, fmt.Errorf("row %s: recovery class %q is not a valid class name", where, rb.Class)
		}
		if _, dup := bounds[rb.Class]; dup {
			return nil, fmt.Errorf("row %s declares recovery class %q twice", where, rb.Class)
		}
		if len(rb.Terms) == 0 || len(rb.Terms) > 16 {
			return nil, fmt.Errorf("row %s: class %q has %d terms, not 1 to 16", where, rb.Class, len(rb.Terms))
		}
		var sum int64
		for _, t := range rb.Terms {
			if t.Ms < 0 {
				return nil, fmt.Errorf("row %s: class %q term %q is negative", where, rb.Class, t.Name)
			}
			sum += t.Ms
		}
		if rb.Bound < 0 || sum != rb.Bound {
			return nil, fmt.Errorf("row %s: class %q declares bound %d, but its terms sum to %d", where, rb.Class, rb.Bound, sum)
		}
		bounds[rb.Class] = rb.Bound
	}
	return bounds, nil
}

// CheckRungClaim judges a claimed rung against the rows (checkRungClaim): no claim is
// fine; an unknown rung, an underivable one, or a claim above what the rows derive
// is refused rather than assumed.
func CheckRungClaim(claim string, rows []Row) error {
	if claim == "" {
		return nil
	}
	known := false
	for _, r := range Rungs {
		known = known || r == claim
	}
	if !known {
		return fmt.Errorf("durability.rung %q is not a rung (%s, %s, %s)", claim, Rungs[0], Rungs[1], Rungs[2])
	}
	derived, err := DeriveRung(rows)
	if err != nil {
		return fmt.Errorf("durability.rung %q claimed, but no rung is derivable: %v", claim, err)
	}
	if derived != claim {
		return fmt.Errorf("durability.rung %q claimed, but the rows derive only %q: a higher rung is refused rather than assumed", claim, derived)
	}
	return nil
}
