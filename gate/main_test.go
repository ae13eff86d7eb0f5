package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestMain runs the package's tests with every finished report checked: a
// criterion whose id is not a registered rule fails the run.
// So every gate the tests drive (accepted, audit, flips, cut, declared) emits
// only registered criteria.
func TestMain(m *testing.M) {
	var mu sync.Mutex
	unregistered := map[string]bool{}
	finishHook = func(r *Report) {
		for _, c := range r.Criteria {
			if _, ok := LookupRule(c.ID); !ok {
				mu.Lock()
				unregistered[string(c.ID)] = true
				mu.Unlock()
			}
		}
	}
	code := m.Run()
	if len(unregistered) > 0 {
		ids := make([]string, 0, len(unregistered))
		for id := range unregistered {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Fprintf(os.Stderr, "FAIL: criteria emitted under ids no rule registers: %v\n", ids)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// TestFinishHookSeesUnregistered: the check TestMain runs does catch a
// criterion made by hand under an id no rule registers.
func TestFinishHookSeesUnregistered(t *testing.T) {
	saved := finishHook
	defer func() { finishHook = saved }()
	var seen []string
	finishHook = func(r *Report) {
		for _, c := range r.Criteria {
			if _, ok := LookupRule(c.ID); !ok {
				seen = append(seen, string(c.ID))
			}
		}
	}
	rep := &Report{Criteria: []Criterion{rule(CritVerified).Criterion(Result{Status: Pass}), {ID: "made.by.hand", Status: Pass}}}
	rep.finish()
	if len(seen) != 1 || seen[0] != "made.by.hand" {
		t.Fatalf("hook saw %v, want [made.by.hand]", seen)
	}
}

// TestDocsRuleTables: a rule id docs/gate.md lists as the first cell of a table
// row is a registered rule (TestRegistry holds the converse: every registered
// id is named there). "bundle.*" names the group.
func TestDocsRuleTables(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "gate.md"))
	if err != nil {
		t.Fatal(err)
	}
	idCell := regexp.MustCompile("^\\| `([a-z][a-z0-9-]*(?:\\.[a-z0-9-]+)*)`")
	n := 0
	for i, line := range strings.Split(string(doc), "\n") {
		m := idCell.FindStringSubmatch(line)
		if m == nil || strings.HasSuffix(m[1], ".mjs") || !strings.Contains(m[1], ".") && m[1] != string(CritRequirement) {
			continue
		}
		n++
		if _, ok := LookupRule(RuleID(m[1])); !ok {
			t.Errorf("docs/gate.md:%d lists `%s`, which no rule registers", i+1, m[1])
		}
	}
	if n < 10 {
		t.Fatalf("found only %d rule rows in docs/gate.md's tables", n)
	}
}
