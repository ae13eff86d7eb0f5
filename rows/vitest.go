package rows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// vitestReport is the part of vitest's JSON reporter output (--reporter=json) that
// rows read.
type vitestReport struct {
	TestResults *[]struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			AncestorTitles  []string       `json:"ancestorTitles"`
			Title           string         `json:"title"`
			FullName        string         `json:"fullName"`
			Status          string         `json:"status"`
			FailureMessages []string       `json:"failureMessages"`
			Meta            map[string]any `json:"meta"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// ReadVitest reads a vitest JSON report and returns its rows (spec §9 ids) and an
// index of the requirement ids its tests name, for ledger rows of the same run.
//
// Status mapping, per test: failed → executed-fail; skipped, pending, todo and
// disabled → skipped; passed → executed-pass only with a recorded assertion count
// above zero (task.meta.assertionCount or task.meta.assertions, which the suite's
// setup can set from expect.getState().assertionCalls); a pass with zero assertions
// or none recorded is blocked, because it cannot be told from an early return. The
// per-file row is executed-fail when any test failed, executed-pass when at least
// one test witnessed (partial-witness: when others did not), skipped when every test
// was skipped, and blocked otherwise.
//
// Requirement ids are indexed from task.meta.requirementId / requirementIds and
// from openwop.requirement ids written in test titles.
func ReadVitest(data []byte, source string, opts Options) ([]Sourced, *ScenarioIndex, error) {
	var rep vitestReport
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&rep); err != nil {
		return nil, nil, inputErr(source, 0, "not a vitest JSON report (run vitest with --reporter=json --outputFile=FILE): %v", err)
	}
	if rep.TestResults == nil {
		return nil, nil, inputErr(source, 0, "not a vitest JSON report: it has no testResults array (run vitest with --reporter=json)")
	}
	var files []testFile
	for i, tr := range *rep.TestResults {
		if tr.Name == "" {
			return nil, nil, inputErr(source, 0, "testResults[%d] has no file name", i)
		}
		f := testFile{path: tr.Name, origin: source}
		if tr.Status == "failed" && len(tr.AssertionResults) == 0 {
			f.failed = tr.Message
			if f.failed == "" {
				f.failed = "the runner reports the file failed"
			}
		}
		for j, a := range tr.AssertionResults {
			title := a.FullName
			if title == "" {
				title = strings.TrimSpace(strings.Join(append(append([]string(nil), a.AncestorTitles...), a.Title), " "))
			}
			t := testCase{title: title, rawStatus: a.Status, message: strings.Join(a.FailureMessages, "\n")}
			switch a.Status {
			case "passed":
				t.status = statusPassed
			case "failed":
				t.status = statusFailed
			case "skipped", "pending", "todo", "disabled":
				t.status = statusSkipped
			default:
				return nil, nil, inputErr(source, 0, "%s: test %d (%q) has status %q; vitest writes passed, failed, skipped, pending, todo or disabled", tr.Name, j, title, a.Status)
			}
			n, err := metaCount(a.Meta)
			if err != nil {
				return nil, nil, inputErr(source, 0, "%s: test %q: %v", tr.Name, title, err)
			}
			t.assertions = n
			t.ids = metaIDs(a.Meta)
			f.tests = append(f.tests, t)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, nil, inputErr(source, 0, "the report holds no test files")
	}
	out, index := reportRows(files, source, opts)
	return out, index, nil
}

// metaCount reads an assertion count from task meta: assertionCount or assertions.
func metaCount(meta map[string]any) (*int64, error) {
	for _, key := range []string{"assertionCount", "assertions"} {
		v, ok := meta[key]
		if !ok {
			continue
		}
		num, isNum := v.(json.Number)
		if !isNum {
			return nil, fmt.Errorf("meta.%s must be a number", key)
		}
		f, err := num.Float64()
		if err != nil || f < 0 || f != math.Trunc(f) || f > 1<<53-1 {
			return nil, fmt.Errorf("meta.%s must be a whole number 0 or more, is %s", key, num)
		}
		n := int64(f)
		return &n, nil
	}
	return nil, nil
}

func metaIDs(meta map[string]any) []string {
	var ids []string
	if s, ok := meta["requirementId"].(string); ok && s != "" {
		ids = append(ids, s)
	}
	if list, ok := meta["requirementIds"].([]any); ok {
		for _, item := range list {
			if s, ok := item.(string); ok && s != "" {
				ids = append(ids, s)
			}
		}
	}
	return ids
}
