package rows

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// conflictRank orders dispositions for collapsing several ledger lines of one
// requirement (spec §6.5): the least certifiable wins, so that an unresolvable
// disagreement never rounds toward certification.
var conflictRank = map[string]int{
	bundle.ExecutedFail: 5,
	bundle.Blocked:      4,
	bundle.ExecutedPass: 3,
	bundle.Skipped:      2,
	bundle.Inapplicable: 1,
}

// ScenarioIndex says which scenario file recorded a requirement id, for ledger lines
// (which carry no file). It is built from a test report of the same run.
type ScenarioIndex struct {
	files     map[string]string   // id → scenario file
	ambiguous map[string][]string // id → the files that all claim it
	source    string
}

// Lookup returns the scenario file that recorded id.
func (x *ScenarioIndex) Lookup(id string) (string, error) {
	if x == nil {
		return "", nil
	}
	if files, ok := x.ambiguous[id]; ok {
		return "", fmt.Errorf("%s names %s in several files (%s), so it does not say which one recorded it", x.source, id, strings.Join(files, ", "))
	}
	return x.files[id], nil
}

// Merge adds the entries of another index (from another report of the same run).
func (x *ScenarioIndex) Merge(other *ScenarioIndex) {
	if other == nil {
		return
	}
	for id, file := range other.files {
		x.add(id, file)
	}
	for id, files := range other.ambiguous {
		for _, f := range files {
			x.add(id, f)
		}
	}
	x.source += ", " + other.source
}

func (x *ScenarioIndex) add(id, file string) {
	if x.files == nil {
		x.files, x.ambiguous = map[string]string{}, map[string][]string{}
	}
	if prev, ok := x.ambiguous[id]; ok {
		if !contains(prev, file) {
			x.ambiguous[id] = append(prev, file)
		}
		return
	}
	if prev, ok := x.files[id]; ok && prev != file {
		x.ambiguous[id] = []string{prev, file}
		delete(x.files, id)
		return
	}
	x.files[id] = file
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

type ledgerEntry struct {
	id          string
	disposition string
	detail      *string
	assertions  *int64
	scenario    string
	line        int
}

// ReadLedger reads the conformance suite's requirement ledger
// (requirement-ledger.jsonl, spec §6.5): one JSON object per line,
// {"requirementId", "disposition", "detail"?, "assertionCount"?}. Members the suite
// may add later are ignored; the four it has are checked.
//
// Unlike the reference reader, which skips lines it cannot parse, ReadLedger refuses
// them, naming the line: a skipped line could have been the failure that decides a
// profile. Blank lines are allowed.
//
// Several lines for one requirement collapse to one row: the disposition of least
// certifiability wins (executed-fail > blocked > executed-pass > skipped >
// inapplicable); the row's assertions are the sum of the winning lines' counts and
// its detail the first non-empty detail among them.
//
// A row's scenario is, in order: a "scenario" member of the line (some runners
// write one); the file stem the id names (openwop.scenario/floor/it ids); the file
// index finds for it in the vitest report of the same run. A row for which none of
// these gives a file is an error that names it.
func ReadLedger(data []byte, source string, index *ScenarioIndex) ([]Sourced, error) {
	byID := map[string]*ledgerEntry{}
	var order []string
	for n, raw := range bytes.Split(data, []byte("\n")) {
		line := n + 1
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		v, err := bundle.ParseIJSON(raw)
		if err != nil {
			return nil, inputErr(source, line, "not a JSON ledger line: %s", lineSyntax(err))
		}
		if v.Kind() != bundle.Object {
			return nil, inputErr(source, line, "a ledger line is a JSON object {requirementId, disposition, detail?, assertionCount?}, this is %s", v.Kind())
		}
		e := ledgerEntry{line: line}
		str := func(name string, required bool) (string, bool, error) {
			m, ok := v.Get(name)
			if !ok {
				if required {
					return "", false, inputErr(source, line, "%s is missing", name)
				}
				return "", false, nil
			}
			s, isStr := m.Str()
			if !isStr {
				return "", false, inputErr(source, line, "%s must be a string, is %s", name, m.Kind())
			}
			return s, true, nil
		}
		if e.id, _, err = str("requirementId", true); err != nil {
			return nil, err
		}
		if e.id == "" {
			return nil, inputErr(source, line, "requirementId is empty")
		}
		if e.disposition, _, err = str("disposition", true); err != nil {
			return nil, err
		}
		if !bundle.ValidResult(e.disposition) {
			return nil, inputErr(source, line, "requirement %s: unknown disposition %q; a disposition is one of %s", e.id, e.disposition, strings.Join(bundle.Results, ", "))
		}
		if d, ok, err := str("detail", false); err != nil {
			return nil, err
		} else if ok {
			e.detail = &d
		}
		if e.scenario, _, err = str("scenario", false); err != nil {
			return nil, err
		}
		if m, ok := v.Get("assertionCount"); ok {
			c, isInt := m.Int()
			if !isInt || c < 0 {
				return nil, inputErr(source, line, "requirement %s: assertionCount must be an integer 0 or more", e.id)
			}
			e.assertions = &c
		}
		prev, seen := byID[e.id]
		switch {
		case !seen:
			byID[e.id] = &e
			order = append(order, e.id)
		case conflictRank[e.disposition] > conflictRank[prev.disposition]:
			if e.scenario == "" {
				e.scenario = prev.scenario
			}
			byID[e.id] = &e
		case e.disposition == prev.disposition:
			if e.assertions != nil {
				sum := *e.assertions
				if prev.assertions != nil {
					sum += *prev.assertions
				}
				prev.assertions = &sum
			}
			if (prev.detail == nil || *prev.detail == "") && e.detail != nil && *e.detail != "" {
				prev.detail = e.detail
			}
			if prev.scenario == "" {
				prev.scenario = e.scenario
			}
		}
	}
	if len(order) == 0 {
		return nil, inputErr(source, 0, "the ledger records no requirement")
	}
	out := make([]Sourced, 0, len(order))
	for _, id := range order {
		e := byID[id]
		scenario := e.scenario
		if scenario == "" {
			if stem, ok := StemFromID(id); ok {
				scenario = stem + ".test.ts"
			}
		}
		if scenario == "" {
			file, err := index.Lookup(id)
			if err != nil {
				return nil, inputErr(source, e.line, "requirement %s: %v", id, err)
			}
			if file != "" {
				scenario = ScenarioFile(file)
			}
		}
		if scenario == "" {
			hint := "pass the vitest JSON report of the same run (--ledger-report) so certcut can find the file"
			if index != nil {
				hint = "the vitest report " + index.source + " does not name it either; give these rows as native rows with their scenario"
			}
			return nil, inputErr(source, e.line, "requirement %s: no scenario file: the ledger does not say which file recorded it and the id names none; %s", id, hint)
		}
		out = append(out, Sourced{
			Row:    bundle.Row{ID: id, Scenario: scenario, Result: e.disposition, Assertions: e.assertions, Detail: e.detail},
			Origin: fmt.Sprintf("%s:%d", source, e.line),
		})
	}
	return out, nil
}
