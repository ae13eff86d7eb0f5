package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

// interopReports: a PASS with no location (rfc.register with no register
// file), a FAIL on an RFC line, a BLOCKED on a bundle.
func interopReports() []*gate.Report {
	return []*gate.Report{{
		Gate: "accepted", Subject: "RFC 0901", RFC: &gate.RFCInfo{File: "RFCS/0901-good.md", Number: "0901"}, Status: gate.Fail,
		Criteria: []gate.Criterion{
			{ID: "rfc.register", Title: "ids registered", Status: gate.Pass, Reason: "no register file: nothing to check"},
			{ID: "requirement", Title: "requirement passes", Status: gate.Fail, Reason: "no executed-pass row", Requirement: "openwop.x.y",
				Location: &gate.Location{File: "RFCS/0901-good.md", Line: 12}},
			{ID: "bundle.key", Title: "key in service", Status: gate.Blocked, Reason: "no trusted time",
				Bundle: &gate.BundleRef{File: "evidence/v2-host-bundles/good.json", Sha256: strings.Repeat("a", 64)}},
		},
	}}
}

// SARIF for GitHub code scanning (the SARIF Multitool's GitHub rules): every
// result has a location, a region where there is a line; every rule a full
// description and help; the version is semantic or a commit, never "(devel)".
func TestSARIFGitHubRules(t *testing.T) {
	doc := sarifLog(interopReports(), "(devel)")
	run := doc.Runs[0]
	if v := run.Tool.Driver.Version; v == "(devel)" || v == "" {
		t.Errorf("tool version %q", v)
	}
	for _, in := range []string{"v1.4.0", "v1.4.0 commit 1a2b3c4d5e6f", "1.4.0"} {
		if v, sem := sarifVersion(in); v != "1.4.0" || sem != "1.4.0" {
			t.Errorf("%s: %q %q, want 1.4.0 (SARIF2005: a version is numeric)", in, v, sem)
		}
	}
	if len(run.Results) != 3 {
		t.Fatalf("%d results", len(run.Results))
	}
	for _, r := range run.Results {
		if len(r.Locations) == 0 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("result %s has no location", r.RuleID)
		}
	}
	if reg := run.Results[1].Locations[0].PhysicalLocation.Region; reg == nil || reg.StartLine != 12 {
		t.Errorf("the FAIL on line 12 has region %+v", reg)
	}
	if u := run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; u != "RFCS/0901-good.md" {
		t.Errorf("a result without its own location is on %q, want the RFC", u)
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.FullDescription.Text == "" || r.Help.Text == "" || r.ShortDescription.Text == "" {
			t.Errorf("rule %s lacks a description or help: %+v", r.ID, r)
		}
	}
	multitool, err := exec.LookPath("Sarif.Multitool") // the native binary of @microsoft/sarif-multitool-linux (the npm wrapper splits arguments with a shell)
	if err != nil {
		t.Skip("SKIPPED: the SARIF Multitool (npm @microsoft/sarif-multitool 5.7.0; scripts/interop.sh installs it) is not on PATH (its Sarif.Multitool binary): its GitHub rules were not run")
	}
	// The Multitool's GitHub rules read files named by the results from the
	// repository: give it the files.
	dir := t.TempDir()
	for _, f := range []string{"RFCS/0901-good.md", "evidence/v2-host-bundles/good.json"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte(strings.Repeat("line\n", 20)), 0o644)
	}
	multitoolValidate(t, multitool, dir, doc)
}

// JUnit for Jenkins (xunit's junit-10.xsd): errors on every testsuite, time on
// suites and cases; BLOCKED is an error (could not be judged), not skipped.
func TestJUnitJenkins(t *testing.T) {
	var buf bytes.Buffer
	if err := writeJUnit(&buf, interopReports()); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Errors != 1 || s.Failures != 1 || s.Skipped != 0 || s.Time == "" {
		t.Errorf("suite %+v", s)
	}
	if !strings.Contains(buf.String(), `errors="1"`) || !strings.Contains(buf.String(), `<error type="BLOCKED" message="BLOCKED: no trusted time">`) {
		t.Errorf("no errors attribute or BLOCKED error:\n%s", buf.String())
	}
	for _, c := range s.Cases {
		if c.Time == "" || c.Skipped != nil {
			t.Errorf("case %+v", c)
		}
	}
	xsd := filepath.Join("..", "..", "shared", "interop", "jenkins-xunit-junit-10.xsd")
	if _, err := os.Stat(xsd); err != nil {
		t.Skipf("SKIPPED: %s is absent: the Jenkins JUnit schema was not checked", xsd)
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("SKIPPED: xmllint is not installed (apt-get install libxml2-utils): the Jenkins JUnit schema was not checked")
	}
	file := filepath.Join(t.TempDir(), "gate.xml")
	os.WriteFile(file, buf.Bytes(), 0o644)
	if out, err := exec.Command(xmllint, "--noout", "--schema", xsd, file).CombinedOutput(); err != nil {
		t.Fatalf("xmllint --schema junit-10.xsd: %v\n%s", err, out)
	}
}

// A gate run on absolute paths (--repo /srv/spec, --rfc "$PWD/RFCS/…") places
// its results on file: URIs: a path beginning with a slash is no relative
// reference SARIF accepts (the Multitool's SARIF1004), and code scanning's
// upload makes a file: URI relative to its checkout.
func TestSARIFAbsolutePathIsFileURI(t *testing.T) {
	dir := t.TempDir()
	rfcFile := filepath.Join(dir, "RFCS", "0901-good one.md")
	bundleFile := filepath.Join(dir, "evidence", "v2-host-bundles", "good.json")
	for _, f := range []string{rfcFile, bundleFile} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte(strings.Repeat("line\n", 20)), 0o644)
	}
	reps := interopReports()
	reps[0].RFC.File = rfcFile
	reps[0].Criteria[1].Location.File = rfcFile
	reps[0].Criteria[2].Bundle.File = bundleFile
	doc := sarifLog(reps, "v1.0.0")
	for _, r := range doc.Runs[0].Results {
		u := r.Locations[0].PhysicalLocation.ArtifactLocation.URI
		parsed, err := url.Parse(u)
		if err != nil || parsed.Scheme != "file" || !strings.HasPrefix(u, "file:///") || parsed.Path != filepath.ToSlash(rfcFile) && parsed.Path != filepath.ToSlash(bundleFile) {
			t.Errorf("result %s on %q, want a file: URI of %s or %s", r.RuleID, u, rfcFile, bundleFile)
		}
	}
	if u := sarifURI(filepath.Join("RFCS", "0901-good.md")); u != "RFCS/0901-good.md" {
		t.Errorf("a relative path became %q", u)
	}
	multitool, err := exec.LookPath("Sarif.Multitool")
	if err != nil {
		t.Skip("SKIPPED: the SARIF Multitool (scripts/interop.sh installs it) is not on PATH: its rules were not run on file: URIs")
	}
	multitoolValidate(t, multitool, dir, doc)
}

// A warning-severity rule that did not pass changes no report's status (the
// gate exits 0 over it), so JUnit counts it neither an error nor a failure:
// Jenkins would otherwise mark a passing gate's build unstable. Its case
// carries the warning in system-out; SARIF gives it level warning.
func TestJUnitWarningIsNoError(t *testing.T) {
	reps := []*gate.Report{{
		Gate: "accepted", Subject: "RFC 0211", RFC: &gate.RFCInfo{File: "RFCS/0211-x.md", Number: "0211"}, Status: gate.Pass,
		Criteria: []gate.Criterion{
			{ID: "rfc.acceptance", Title: "boxes", Status: gate.Pass, Reason: "4 ticked"},
			{ID: "waiver.register-absent", Title: "register", Status: gate.Blocked, Warning: true, Reason: "no register",
				Location: &gate.Location{File: "RFCS/0211-x.md", Line: 10}},
			{ID: "declared.ext-status", Title: "ext", Status: gate.Fail, Warning: true, Reason: "incoherent"},
		},
	}}
	var buf bytes.Buffer
	if err := writeJUnit(&buf, reps); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Errors != 0 || s.Failures != 0 || s.Tests != 3 {
		t.Errorf("a passing report with two warnings: %d errors, %d failures, %d tests; want 0, 0, 3\n%s", s.Errors, s.Failures, s.Tests, buf.String())
	}
	if c := s.Cases[1]; c.Error != nil || c.Out != "WARNING (BLOCKED): no register" {
		t.Errorf("the BLOCKED warning's case: %+v", c)
	}
	if c := s.Cases[2]; c.Failure != nil || !strings.HasPrefix(c.Out, "WARNING (FAIL): ") {
		t.Errorf("the FAIL warning's case: %+v", c)
	}
	for _, r := range sarifLog(reps, "v1.0.0").Runs[0].Results {
		if r.RuleID != "rfc.acceptance" && r.Level != "warning" {
			t.Errorf("SARIF %s at level %q, want warning", r.RuleID, r.Level)
		}
	}
	xsd := filepath.Join("..", "..", "shared", "interop", "jenkins-xunit-junit-10.xsd")
	xmllint, err := exec.LookPath("xmllint")
	if _, serr := os.Stat(xsd); serr != nil || err != nil {
		t.Skipf("SKIPPED: %s or xmllint is absent: the schema was not checked", xsd)
	}
	file := filepath.Join(t.TempDir(), "gate.xml")
	os.WriteFile(file, buf.Bytes(), 0o644)
	if out, err := exec.Command(xmllint, "--noout", "--schema", xsd, file).CombinedOutput(); err != nil {
		t.Fatalf("xmllint --schema junit-10.xsd: %v\n%s", err, out)
	}
}

// A warning-severity rule that did not pass is counted as a warning, not as
// BLOCKED, in the text and GitHub summaries, and its line says WARNING: a
// passing report's summary used to read "1 blocked".
func TestWarningCountedApart(t *testing.T) {
	rep := &gate.Report{Gate: "accepted", Subject: "RFC 0211", Status: gate.Pass, Criteria: []gate.Criterion{
		{ID: "rfc.acceptance", Title: "boxes", Status: gate.Pass, Reason: "4 ticked"},
		{ID: "waiver.register-absent", Title: "register", Status: gate.Blocked, Warning: true, Reason: "no register"},
	}}
	for format, want := range map[Format]string{
		Text:   "RESULT: PASS — 2 criteria: 1 pass, 0 fail, 0 blocked, 1 warning (0 bundles read)\n",
		GitHub: "gate accepted RFC 0211: PASS (1 pass, 0 fail, 0 blocked, 1 warning)\n",
	} {
		var buf bytes.Buffer
		if err := WriteGate(&buf, []*gate.Report{rep}, GateOptions{Format: format}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%s: lacks %q:\n%s", format, want, buf.String())
		}
		if format == Text && !strings.Contains(buf.String(), "WARNING waiver.register-absent: register") {
			t.Errorf("the warning's line does not say WARNING:\n%s", buf.String())
		}
	}
}

// multitoolValidate writes doc to dir and runs the SARIF Multitool's SARIF and
// GitHub rules (errors and warnings) on it; each result it reports is a test
// error.
func multitoolValidate(t *testing.T, multitool, dir string, doc any) {
	t.Helper()
	file := filepath.Join(dir, "gate.sarif")
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(multitool, "validate", "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "--output", filepath.Join(dir, "out.sarif"), file).CombinedOutput()
	if err != nil {
		t.Fatalf("sarif-multitool validate --rule-kind Sarif;Gh: %v\n%s", err, out)
	}
	res, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string          `json:"ruleId"`
				Message json.RawMessage `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(res, &log); err != nil {
		t.Fatalf("the Multitool's output: %v", err)
	}
	for _, r := range log.Runs {
		for _, x := range r.Results {
			t.Errorf("Multitool: %s %s", x.RuleID, x.Message)
		}
	}
}
