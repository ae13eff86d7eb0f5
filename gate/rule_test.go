package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegistry holds the registry to its contract: ids unique and sorted,
// every rule titled, sourced, run by some gate, and documented in docs/gate.md
// under its own id.
func TestRegistry(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "gate.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[RuleID]bool{}
	rules := Rules()
	if len(rules) == 0 {
		t.Fatal("empty registry")
	}
	for i, r := range rules {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
		if i > 0 && rules[i-1].ID >= r.ID {
			t.Errorf("Rules() not sorted at %s", r.ID)
		}
		if r.Title == "" || r.Source == "" || len(r.Gates) == 0 || r.Anchor == "" || r.Severity == "" {
			t.Errorf("rule %s: title, source, gates, anchor and severity must be set: %+v", r.ID, r)
		}
		if !strings.Contains(string(doc), "`"+string(r.ID)+"`") {
			t.Errorf("docs/gate.md does not name rule `%s`", r.ID)
		}
		if got, ok := LookupRule(r.ID); !ok || got.ID != r.ID {
			t.Errorf("LookupRule(%s) = %v, %v", r.ID, got, ok)
		}
	}
}

// TestRuleCriterion: the title, group and id come from the rule; a warning
// rule's failure is marked and does not fail the report.
func TestRuleCriterion(t *testing.T) {
	saved := finishHook // the rule here is not registered: TestMain's check stays out
	finishHook = nil
	defer func() { finishHook = saved }()
	r := Rule{ID: "x.y", Title: "t", Group: "G", Severity: SeverityWarning}
	c := r.Criterion(Result{Status: Fail, Reason: "why"})
	if c.ID != "x.y" || c.Title != "t" || c.Gate != "G" || c.Status != Fail || c.Reason != "why" || !c.Warning {
		t.Fatalf("criterion = %+v", c)
	}
	rep := &Report{Criteria: []Criterion{c}}
	rep.finish()
	if rep.Status != Pass {
		t.Fatalf("a warning rule's FAIL failed the report: %s", rep.Status)
	}
	r.Severity = SeverityError
	rep = &Report{Criteria: []Criterion{r.Criterion(Result{Status: Fail})}}
	rep.finish()
	if rep.Status != Fail {
		t.Fatalf("an error rule's FAIL did not fail the report: %s", rep.Status)
	}
	if got := r.Criterion(Result{Status: Pass, Title: "host tier 2 or higher"}).Title; got != "host tier 2 or higher" {
		t.Fatalf("title override = %q", got)
	}
}
