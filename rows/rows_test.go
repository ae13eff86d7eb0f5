package rows_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/rows"
)

func TestSlug(t *testing.T) {
	long := strings.Repeat("abcdefghi ", 12) // 120 characters
	for _, tc := range []struct{ title, want string }{
		{"connection packs validates against connection-pack-manifest.schema.json", "connection-packs-validates-against-connection-pack-manifest-schema-json"},
		{"document %s canonicalizes and hashes", "document-s-canonicalizes-and-hashes"},
		{"finds at least one fixture file", "finds-at-least-one-fixture-file"},
		{"describe > nested > test", "describe-nested-test"},
		{"  --Leading and trailing!!  ", "leading-and-trailing"},
		{"", "untitled"},
		{"!!! ???", "untitled"},
		{"Ünïcödé ÄÖ test 42", "n-c-d-test-42"},
		{long, strings.TrimRight(strings.ReplaceAll(long, " ", "-")[:80], "-")},
		{strings.Repeat("a", 79) + " b", strings.Repeat("a", 79)}, // a cut leaving '-' drops it
	} {
		if got := rows.Slug(tc.title); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.title, got, tc.want)
		}
		if got := rows.Slug(tc.title); len(got) > rows.MaxSlug {
			t.Errorf("Slug(%q) is %d long", tc.title, len(got))
		}
	}
}

func TestStems(t *testing.T) {
	for in, want := range map[string]string{
		"/abs/conformance/src/scenarios/v2-era-key.test.ts": "v2-era-key",
		"v2-era-key.test.ts":         "v2-era-key",
		`C:\x\y\jcs-vectors.test.ts`: "jcs-vectors",
		"suite/a.spec.js":            "a",
		"plain.ts":                   "plain",
	} {
		if got := rows.Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
	for id, want := range map[string]string{
		"openwop.scenario.v2-era-key":                   "v2-era-key",
		"openwop.floor.v2-run-cancel":                   "v2-run-cancel",
		"openwop.it.fixtures-valid.finds-at-least-one":  "fixtures-valid",
		"openwop.it.dotted.stem.slug~2":                 "dotted.stem",
		"openwop.requirement.0211.a2a-error-data-shape": "",
		"openwop.it.nostem":                             "",
	} {
		got, ok := rows.StemFromID(id)
		if got != want || ok != (want != "") {
			t.Errorf("StemFromID(%q) = %q, %v; want %q", id, got, ok, want)
		}
	}
}

// Every openwop.it id in the corpus has the slug shape §9 describes.
func TestCorpusItIDsHaveSlugShape(t *testing.T) {
	dir := testkit.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "v2-host-bundles", "*.json"))
	shape := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*(~[0-9]+)?$`)
	n := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b, _, err := bundle.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Results.Requirements {
			if !strings.HasPrefix(r.ID, "openwop.it.") {
				continue
			}
			stem, ok := rows.StemFromID(r.ID)
			slug := strings.TrimPrefix(r.ID, "openwop.it."+stem+".")
			base, _, _ := strings.Cut(slug, "~")
			if !ok || !shape.MatchString(slug) || len(base) > rows.MaxSlug || rows.Slug(base) != base || stem+".test.ts" != r.Scenario {
				t.Errorf("%s: %s does not follow the id scheme (scenario %s)", filepath.Base(f), r.ID, r.Scenario)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no openwop.it rows in the corpus")
	}
}

func row(t *testing.T, got []rows.Sourced, id string) bundle.Row {
	t.Helper()
	for _, s := range got {
		if s.Row.ID == id {
			return s.Row
		}
	}
	ids := make([]string, len(got))
	for i, s := range got {
		ids[i] = s.Row.ID
	}
	t.Fatalf("no row %s among %v", id, ids)
	return bundle.Row{}
}

func TestReadLedger(t *testing.T) {
	ledger := strings.Join([]string{
		`{"requirementId":"openwop.scenario.v2-era-key","disposition":"executed-pass","assertionCount":3}`,
		``,
		`{"requirementId":"openwop.requirement.0211.a2a-error-data-shape","disposition":"executed-pass","assertionCount":2}`,
		`{"requirementId":"openwop.requirement.0211.a2a-error-data-shape","disposition":"executed-pass","assertionCount":4,"detail":"second leg"}`,
		`{"requirementId":"openwop.floor.v2-run-cancel","disposition":"executed-pass","assertionCount":7}`,
		`{"requirementId":"openwop.floor.v2-run-cancel","disposition":"blocked","detail":"seam missing"}`,
		`{"requirementId":"openwop.floor.v2-run-cancel","disposition":"inapplicable","detail":"never wins over blocked"}`,
		`{"requirementId":"openwop.it.a.b","disposition":"skipped","detail":"x","futureMember":true}`,
	}, "\n")
	report := `{"testResults":[{"name":"/s/v2-a2a-client-error-details.test.ts","status":"passed","assertionResults":[
		{"fullName":"data shape","title":"data shape","status":"passed","meta":{"requirementId":"openwop.requirement.0211.a2a-error-data-shape"}}]}]}`
	_, index, err := rows.ReadVitest([]byte(report), "vitest.json", rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rows.ReadLedger([]byte(ledger), "ledger.jsonl", index)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d rows, want 4 (duplicates collapse)", len(got))
	}
	if r := row(t, got, "openwop.scenario.v2-era-key"); r.Scenario != "v2-era-key.test.ts" || r.AssertionCount() != 3 || r.Detail != nil {
		t.Errorf("scenario row: %+v", r)
	}
	if r := row(t, got, "openwop.requirement.0211.a2a-error-data-shape"); r.Scenario != "v2-a2a-client-error-details.test.ts" || r.AssertionCount() != 6 || r.DetailText() != "second leg" {
		t.Errorf("requirement row (file from the report, counts summed): %+v", r)
	}
	if r := row(t, got, "openwop.floor.v2-run-cancel"); r.Result != bundle.Blocked || r.DetailText() != "seam missing" || r.Assertions != nil {
		t.Errorf("conflict must resolve to blocked: %+v", r)
	}

	for _, tc := range []struct{ name, ledger, want string }{
		{"not json", "{\"requirementId\":", "ledger.jsonl:1: not a JSON ledger line"},
		{"unknown disposition", `{"requirementId":"openwop.scenario.x","disposition":"passed"}`, `ledger.jsonl:1: requirement openwop.scenario.x: unknown disposition "passed"`},
		{"no id", `{"disposition":"executed-pass"}`, "ledger.jsonl:1: requirementId is missing"},
		{"id not a string", `{"requirementId":7,"disposition":"executed-pass"}`, "requirementId must be a string"},
		{"bad count", `{"requirementId":"openwop.scenario.x","disposition":"executed-pass","assertionCount":-1}`, "assertionCount must be an integer 0 or more"},
		{"no file", "\n" + `{"requirementId":"openwop.requirement.0001.x","disposition":"executed-pass","assertionCount":1}`, "ledger.jsonl:2: requirement openwop.requirement.0001.x: no scenario file"},
		{"empty", "\n\n", "records no requirement"},
	} {
		_, err := rows.ReadLedger([]byte(tc.ledger), "ledger.jsonl", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		var ie *rows.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: %T is not an InputError", tc.name, err)
		}
	}
}

func TestReadNative(t *testing.T) {
	array := `[{"id":"openwop.scenario.a","scenario":"a.test.ts","result":"executed-pass","assertions":2},
	 {"id":"openwop.requirement.0158.kill-after-accept","scenario":"d.test.ts","result":"executed-pass","assertions":1,
	  "evidence":{"recovery":{"class":"single-instance-restart","boundMs":6000,"observedMs":1685}}}]`
	got, err := rows.ReadNative([]byte(array), "rows.json")
	if err != nil {
		t.Fatal(err)
	}
	if r := row(t, got, "openwop.requirement.0158.kill-after-accept"); r.Evidence == nil || r.Evidence.Recovery.ObservedMs != 1685 {
		t.Errorf("evidence lost: %+v", r)
	}
	lines := "{\"id\":\"openwop.scenario.a\",\"scenario\":\"a.test.ts\",\"result\":\"inapplicable\",\"detail\":\"why\"}\n\n{\"id\":\"openwop.scenario.b\",\"scenario\":\"b.test.ts\",\"result\":\"executed-fail\",\"assertions\":0,\"detail\":\"no\"}\n"
	if got, err = rows.ReadNative([]byte(lines), "rows.jsonl"); err != nil || len(got) != 2 || got[1].Origin != "rows.jsonl:3" {
		t.Fatalf("JSON Lines: %v %v", got, err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"unknown result", `[{"id":"openwop.scenario.a","scenario":"a","result":"passed"}]`, `rows.json: row 0: unknown result "passed"`},
		{"unknown member", `[{"id":"openwop.scenario.a","scenario":"a","result":"skipped","detail":"x","note":1}]`, `unknown member "note"`},
		{"missing scenario", `[{"id":"openwop.scenario.a","result":"skipped","detail":"x"}]`, "scenario: required member is missing"},
		{"assertions type", `[{"id":"openwop.scenario.a","scenario":"a","result":"executed-pass","assertions":"3"}]`, "assertions: must be an integer"},
		{"negative", `[{"id":"openwop.scenario.a","scenario":"a","result":"executed-pass","assertions":-2}]`, "0 or more"},
		{"not object", `[1]`, "a row is a JSON object"},
		{"duplicate", `[{"id":"openwop.scenario.a","scenario":"a","result":"skipped","detail":"x"},{"id":"openwop.scenario.a","scenario":"a","result":"skipped","detail":"x"}]`, "recorded twice: in rows.json: row 0 and in rows.json: row 1"},
		{"dup member", `[{"id":"openwop.scenario.a","id":"x","scenario":"a","result":"skipped"}]`, "duplicate-name"},
		{"bad line", "{\"id\":\"openwop.scenario.a\",\"scenario\":\"a\",\"result\":\"skipped\",\"detail\":\"x\"}\n{oops}\n", "rows.json:2: not a JSON row"},
		{"empty", "  \n", "no rows"},
		{"evidence member", `[{"id":"openwop.scenario.a","scenario":"a","result":"executed-pass","assertions":1,"evidence":{"extra":1}}]`, `evidence has unknown member "extra"`},
	} {
		_, err := rows.ReadNative([]byte(tc.in), "rows.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

type vt struct {
	FullName string         `json:"fullName"`
	Status   string         `json:"status"`
	Failures []string       `json:"failureMessages,omitempty"`
	Meta     map[string]any `json:"meta,omitempty"`
}

func vitestReport(t *testing.T, files map[string][]vt) []byte {
	t.Helper()
	type file struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		AssertionResults []vt   `json:"assertionResults"`
	}
	rep := struct {
		TestResults []file `json:"testResults"`
	}{}
	for _, name := range []string{"/s/v2-era-key.test.ts", "/s/early.test.ts", "/s/mixed.test.ts", "/s/failing.test.ts", "/s/skipped.test.ts", "/s/nocount.test.ts"} {
		if tests, ok := files[name]; ok {
			rep.TestResults = append(rep.TestResults, file{Name: name, Status: "passed", AssertionResults: tests})
		}
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func count(n int) map[string]any { return map[string]any{"assertionCount": n} }

func TestReadVitest(t *testing.T) {
	data := vitestReport(t, map[string][]vt{
		"/s/v2-era-key.test.ts": {{"era key is stamped", "passed", nil, count(3)}, {"era key is stamped", "passed", nil, count(2)}},
		"/s/early.test.ts":      {{"returns early", "passed", nil, count(0)}, {"also returns", "passed", nil, count(0)}},
		"/s/mixed.test.ts":      {{"works", "passed", nil, count(4)}, {"gated", "skipped", nil, nil}},
		"/s/failing.test.ts":    {{"breaks", "failed", []string{"AssertionError: expected 1 to be 2\n    at x.ts:1"}, count(1)}, {"fine", "passed", nil, count(1)}},
		"/s/skipped.test.ts":    {{"todo", "todo", nil, nil}, {"skip", "pending", nil, nil}},
		"/s/nocount.test.ts":    {{"passes without a count", "passed", nil, nil}},
	})
	floors := map[string]bool{"v2-era-key": true}
	got, _, err := rows.ReadVitest(data, "vitest.json", rows.Options{IsFloor: func(s string) bool { return floors[s] }})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"openwop.it.v2-era-key.era-key-is-stamped":   bundle.ExecutedPass,
		"openwop.it.v2-era-key.era-key-is-stamped~2": bundle.ExecutedPass,
		"openwop.floor.v2-era-key":                   bundle.ExecutedPass,
		"openwop.it.early.returns-early":             bundle.Blocked,
		"openwop.scenario.early":                     bundle.Blocked,
		"openwop.it.mixed.works":                     bundle.ExecutedPass,
		"openwop.it.mixed.gated":                     bundle.Skipped,
		"openwop.scenario.mixed":                     bundle.ExecutedPass,
		"openwop.it.failing.breaks":                  bundle.ExecutedFail,
		"openwop.scenario.failing":                   bundle.ExecutedFail,
		"openwop.scenario.skipped":                   bundle.Skipped,
		"openwop.it.nocount.passes-without-a-count":  bundle.Blocked,
		"openwop.scenario.nocount":                   bundle.Blocked,
	}
	for id, result := range want {
		if r := row(t, got, id); r.Result != result {
			t.Errorf("%s is %s, want %s (%s)", id, r.Result, result, r.DetailText())
		}
	}
	if r := row(t, got, "openwop.floor.v2-era-key"); r.AssertionCount() != 5 || r.Detail != nil || r.Scenario != "v2-era-key.test.ts" {
		t.Errorf("file row: %+v", r)
	}
	if r := row(t, got, "openwop.scenario.mixed"); !strings.HasPrefix(r.DetailText(), "partial-witness: 1 of 2") {
		t.Errorf("mixed file detail %q", r.DetailText())
	}
	if r := row(t, got, "openwop.it.failing.breaks"); r.DetailText() != "the test executed and failed: AssertionError: expected 1 to be 2" {
		t.Errorf("failure detail %q", r.DetailText())
	}
	if r := row(t, got, "openwop.scenario.early"); !strings.Contains(r.DetailText(), "unclassified return") {
		t.Errorf("early-return detail %q", r.DetailText())
	}
	if _, err := rows.Merge(got); err != nil {
		t.Errorf("vitest rows do not merge: %v", err)
	}

	for _, tc := range []struct{ name, in, want string }{
		{"not json", `{"testResults":`, "not a vitest JSON report"},
		{"no testResults", `{"numTotalTests":0}`, "no testResults"},
		{"unknown status", `{"testResults":[{"name":"a.test.ts","assertionResults":[{"fullName":"x","status":"exploded"}]}]}`, `status "exploded"`},
		{"bad count", `{"testResults":[{"name":"a.test.ts","assertionResults":[{"fullName":"x","status":"passed","meta":{"assertionCount":1.5}}]}]}`, "whole number"},
		{"no files", `{"testResults":[]}`, "no test files"},
	} {
		_, _, err := rows.ReadVitest([]byte(tc.in), "vitest.json", rows.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// A file that failed to load has no tests: its row is executed-fail with the reason.
	got, _, err = rows.ReadVitest([]byte(`{"testResults":[{"name":"/s/broken.test.ts","status":"failed","message":"SyntaxError: Unexpected token","assertionResults":[]}]}`), "v.json", rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := row(t, got, "openwop.scenario.broken"); r.Result != bundle.ExecutedFail || !strings.Contains(r.DetailText(), "SyntaxError") {
		t.Errorf("broken file: %+v", r)
	}
}

func TestReadJUnit(t *testing.T) {
	xml := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="vitest tests" tests="5">
  <testsuite name="src/scenarios/v2-run-cancel.test.ts" tests="3">
    <testcase classname="src/scenarios/v2-run-cancel.test.ts" name="cancel &gt; a terminal run answers 409" assertions="3"/>
    <testcase classname="src/scenarios/v2-run-cancel.test.ts" name="cancel &gt; bulk" assertions="2">
      <failure message="expected 409, got 200" type="AssertionError">stack</failure>
    </testcase>
    <testcase classname="src/scenarios/v2-run-cancel.test.ts" name="gated"><skipped/></testcase>
  </testsuite>
  <testsuite name="suite two">
    <testcase file="x/other.test.ts" name="ok"><properties><property name="assertionCount" value="4"/></properties></testcase>
    <testcase file="x/other.test.ts" name="no count"/>
  </testsuite>
</testsuites>`
	got, _, err := rows.ReadJUnit([]byte(xml), "junit.xml", rows.Options{IsFloor: func(s string) bool { return s == "v2-run-cancel" }})
	if err != nil {
		t.Fatal(err)
	}
	for id, result := range map[string]string{
		"openwop.it.v2-run-cancel.cancel-a-terminal-run-answers-409": bundle.ExecutedPass,
		"openwop.it.v2-run-cancel.cancel-bulk":                       bundle.ExecutedFail,
		"openwop.it.v2-run-cancel.gated":                             bundle.Skipped,
		"openwop.floor.v2-run-cancel":                                bundle.ExecutedFail,
		"openwop.it.other.ok":                                        bundle.ExecutedPass,
		"openwop.it.other.no-count":                                  bundle.Blocked,
		"openwop.scenario.other":                                     bundle.ExecutedPass,
	} {
		if r := row(t, got, id); r.Result != result {
			t.Errorf("%s is %s, want %s", id, r.Result, result)
		}
	}
	if r := row(t, got, "openwop.it.v2-run-cancel.cancel-bulk"); r.DetailText() != "the test executed and failed: expected 409, got 200" {
		t.Errorf("failure detail %q", r.DetailText())
	}
	for _, tc := range []struct{ name, in, want string }{
		{"not xml", `{"json":true}`, "not JUnit XML"},
		{"wrong root", `<html><body/></html>`, "root element is <html>"},
		{"no file", `<testsuites><testsuite name="suite"><testcase name="x"/></testsuite></testsuites>`, "names no scenario file"},
		{"bad count", `<testsuite name="a.test.ts"><testcase name="x" assertions="many"/></testsuite>`, "not a whole number"},
		{"empty", `<testsuites/>`, "no test cases"},
	} {
		_, _, err := rows.ReadJUnit([]byte(tc.in), "junit.xml", rows.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestMergeRefusesDuplicatesAcrossInputs(t *testing.T) {
	a, _ := rows.ReadNative([]byte(`[{"id":"openwop.scenario.v2-era-key","scenario":"v2-era-key.test.ts","result":"skipped","detail":"x"}]`), "rows.json")
	b, _ := rows.ReadLedger([]byte(`{"requirementId":"openwop.scenario.v2-era-key","disposition":"executed-pass","assertionCount":1}`), "ledger.jsonl", nil)
	_, err := rows.Merge(a, b)
	var dup *rows.DuplicateError
	if !errors.As(err, &dup) || dup.First != "rows.json: row 0" || dup.Second != "ledger.jsonl:1" {
		t.Fatalf("got %v", err)
	}
	bad, _ := rows.ReadNative([]byte(`[{"id":"wop.scenario.x","scenario":"x","result":"skipped","detail":"x"}]`), "rows.json")
	if _, err := rows.Merge(bad); err == nil || !strings.Contains(err.Error(), "is not of the form") {
		t.Errorf("bad id: %v", err)
	}
}
