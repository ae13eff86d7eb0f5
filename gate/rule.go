package gate

import (
	"fmt"
	"sort"
	"sync"
)

// RuleID names a rule of the gate. It is the id of every criterion the rule
// emits (Criterion.ID), in every output format; SARIF's ruleId is the same text.
type RuleID string

// Severity says what a rule's failure does to a report.
type Severity string

const (
	// SeverityError: a FAIL of the rule fails the report.
	SeverityError Severity = "error"
	// SeverityWarning: the rule reports, never fails the report; for rules being
	// phased in and for ratchet headroom. Its FAIL is rendered as a warning and
	// counts as PASS in the report's status.
	SeverityWarning Severity = "warning"
)

// Rule is one check of the gate, declared once: its id, title and where it
// comes from. Every criterion a gate emits is made by Rule.Criterion from a
// Result, so the title, severity and id are written in one place.
type Rule struct {
	ID RuleID `json:"id"`
	// Title says what PASS means, in a few words.
	Title string `json:"title"`
	// Group is the cut gate a check belongs to (Witness, Coexistence, Front
	// door), "" elsewhere.
	Group string `json:"group,omitempty"`
	// Source is the rule's authority: the RFC section, the reference script,
	// or "certcut" for a rule of ours, with why when it is stricter.
	Source string `json:"source"`
	// Severity is SeverityError unless the rule is phased in.
	Severity Severity `json:"severity"`
	// Gates lists the commands that run the rule: accepted, audit, flips, cut.
	Gates []string `json:"gates"`
	// Anchor is the rule's section in docs/gate.md (help text in SARIF).
	Anchor string `json:"anchor"`
}

// Result is what one evaluation of a rule found. Criterion turns it into a
// report line.
type Result struct {
	Status Status
	// Reason is one sentence: why PASS, what failed, or what would unblock it.
	Reason string
	// Title overrides the rule's title for a parameterised rule (host tier N),
	// "" for the rule's own.
	Title       string
	Requirement string
	Bundle      *BundleRef
	Location    *Location
	Findings    []Finding
	Evidence    []Evidence
}

// Criterion is the one place a report line is made from a rule and a result.
func (r Rule) Criterion(res Result) Criterion {
	title := r.Title
	if res.Title != "" {
		title = res.Title
	}
	st := res.Status
	c := Criterion{ID: r.ID, Title: title, Gate: r.Group, Status: st, Reason: res.Reason,
		Requirement: res.Requirement, Bundle: res.Bundle, Location: res.Location,
		Findings: res.Findings, Evidence: res.Evidence}
	if r.Severity == SeverityWarning && st != Pass {
		c.Warning = true
	}
	return c
}

// Rules returns the registry: every rule any gate runs, sorted by id. The slice
// is a copy.
func Rules() []Rule {
	loadRegistry()
	out := make([]Rule, len(registry))
	copy(out, registry)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupRule returns the registered rule with the id.
func LookupRule(id RuleID) (Rule, bool) {
	loadRegistry()
	r, ok := byID[id]
	return r, ok
}

// rule returns the registered rule; an id that is not registered is a
// programming error.
func rule(id RuleID) Rule {
	loadRegistry()
	r, ok := byID[id]
	if !ok {
		panic(fmt.Sprintf("gate: rule %q is not registered", id))
	}
	return r
}

// finishHook, when set (by tests only), sees every report as it is finished:
// the package's TestMain holds every criterion to a registered rule.
var finishHook func(*Report)

var (
	registry []Rule
	byID     = map[RuleID]Rule{}
	// families are the rule families' declarations, run once at the first
	// lookup (loadRegistry): building the registry costs only the commands
	// that gate.
	families     []func()
	loadRegistry = sync.OnceFunc(func() {
		for _, declare := range families {
			declare()
		}
	})
)

// declare records a rule family's declaration (a function that calls
// register); each rule family's file calls it from an init function.
func declare(family func()) { families = append(families, family) }

// register adds rules to the registry, from a family's declaration (declare). A repeated id, or a rule without a title, source, gate or
// anchor, is a programming error.
func register(rs ...Rule) {
	for _, r := range rs {
		if _, dup := byID[r.ID]; dup {
			panic(fmt.Sprintf("gate: rule %q registered twice", r.ID))
		}
		if r.ID == "" || r.Title == "" || r.Source == "" || len(r.Gates) == 0 || r.Anchor == "" {
			panic(fmt.Sprintf("gate: rule %q lacks an id, title, source, gate or anchor", r.ID))
		}
		if r.Severity == "" {
			r.Severity = SeverityError
		}
		byID[r.ID] = r
		registry = append(registry, r)
	}
}
