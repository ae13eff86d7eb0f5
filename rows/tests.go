package rows

import (
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"

	"github.com/certcut/certcut/bundle"
)

// Test statuses, as test reports write them, reduced to four.
const (
	statusPassed  = "passed"
	statusFailed  = "failed"
	statusSkipped = "skipped"
)

// testCase is one test of a report, reduced to what rows need.
type testCase struct {
	title      string // the full name: describe titles and the test title
	status     string // statusPassed, statusFailed or statusSkipped
	rawStatus  string // as the report wrote it, for details
	assertions *int64 // nil when the report records no count
	message    string // failure message
	ids        []string
}

// testFile is one scenario file of a report.
type testFile struct {
	path   string
	failed string // a failure of the file itself (it did not load), if any
	tests  []testCase
	origin string
}

// Details the adapters write. They say what happened and, where the report cannot
// tell, that it cannot: a pass is never assumed.
const (
	detailNoCount      = "the test passed, but the report records no assertion count, so its pass cannot be told from an early return (record task.meta.assertionCount in the suite's setup, or mint from the requirement ledger)"
	detailZeroCount    = "the test returned with zero assertions and recorded no reason: an unclassified return, not a pass"
	detailFileFailed   = "one or more assertions in the file failed"
	detailFileSkipped  = "every test in the file was skipped by the runner; the report records no reason"
	detailFileNoTests  = "the file ran no tests"
	detailFileReturned = "every test returned early with zero assertions and no recorded reason: an unclassified return, not a pass"
)

// requirementMention finds requirement ids named in test titles.
var requirementMention = lazyre.New(`openwop\.requirement\.[a-z0-9][a-z0-9.-]*[a-z0-9]`)

// fileRows maps one scenario file's tests to rows: one openwop.it row per test and
// one per-file row.
func fileRows(f testFile, opts Options) []Sourced {
	file := ScenarioFile(f.path)
	stem := Stem(f.path)
	ids := newITIDs(stem)
	var out []Sourced
	var passes, fails, skips, others int
	var sum int64
	counted := false
	for _, t := range f.tests {
		row := bundle.Row{ID: ids.next(t.title), Scenario: file}
		if t.assertions != nil {
			row.Assertions = ptr(*t.assertions)
			sum += *t.assertions
			counted = true
		}
		switch {
		case t.status == statusFailed:
			fails++
			row.Result = bundle.ExecutedFail
			msg := firstLine(t.message, 300)
			if msg == "" {
				msg = "no failure message"
			}
			row.Detail = ptr("the test executed and failed: " + msg)
		case t.status == statusSkipped:
			skips++
			row.Result = bundle.Skipped
			row.Detail = ptr(fmt.Sprintf("the runner skipped the test (status %s); the report records no reason", t.rawStatus))
		case t.assertions == nil:
			others++
			row.Result = bundle.Blocked
			row.Detail = ptr(detailNoCount)
		case *t.assertions == 0:
			others++
			row.Result = bundle.Blocked
			row.Detail = ptr(detailZeroCount)
		default:
			passes++
			row.Result = bundle.ExecutedPass
		}
		out = append(out, Sourced{Row: row, Origin: fmt.Sprintf("%s: %s, test %q", f.origin, file, t.title)})
	}
	fileRow := bundle.Row{ID: FileRowID(stem, opts.IsFloor), Scenario: file}
	if counted {
		fileRow.Assertions = ptr(sum)
	}
	switch {
	case f.failed != "" || fails > 0:
		fileRow.Result = bundle.ExecutedFail
		msg := detailFileFailed
		if f.failed != "" {
			msg = "the file failed to run: " + firstLine(f.failed, 300)
		}
		fileRow.Detail = ptr(msg)
	case len(f.tests) == 0:
		fileRow.Result = bundle.Blocked
		fileRow.Detail = ptr(detailFileNoTests)
	case passes > 0:
		fileRow.Result = bundle.ExecutedPass
		if n := skips + others; n > 0 {
			fileRow.Detail = ptr(fmt.Sprintf("partial-witness: %d of %d tests did not witness (skipped, or no assertions recorded)", n, len(f.tests)))
		}
	case others == 0:
		fileRow.Result = bundle.Skipped
		fileRow.Detail = ptr(detailFileSkipped)
	default:
		fileRow.Result = bundle.Blocked
		fileRow.Detail = ptr(detailFileReturned)
	}
	out = append(out, Sourced{Row: fileRow, Origin: fmt.Sprintf("%s: %s", f.origin, file)})
	return out
}

// reportRows maps every file of a report and indexes the requirement ids its tests
// name, for ledger rows.
func reportRows(files []testFile, source string, opts Options) ([]Sourced, *ScenarioIndex) {
	index := &ScenarioIndex{source: source}
	var out []Sourced
	for _, f := range files {
		out = append(out, fileRows(f, opts)...)
		for _, t := range f.tests {
			for _, id := range t.ids {
				index.add(id, ScenarioFile(f.path))
			}
			for _, id := range requirementMention().FindAllString(t.title, -1) {
				index.add(id, ScenarioFile(f.path))
			}
		}
	}
	return out, index
}
