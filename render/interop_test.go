package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
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
	if v, sem := sarifVersion("v1.4.0"); v != "v1.4.0" || sem != "1.4.0" {
		t.Errorf("v1.4.0: %q %q", v, sem)
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
	file := filepath.Join(dir, "gate.sarif")
	data, _ := json.Marshal(doc)
	os.WriteFile(file, data, 0o644)
	out, err := exec.Command(multitool, "validate", "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "--output", filepath.Join(dir, "out.sarif"), file).CombinedOutput()
	if err != nil {
		t.Fatalf("sarif-multitool validate --rule-kind Sarif;Gh: %v\n%s", err, out)
	}
	res, _ := os.ReadFile(filepath.Join(dir, "out.sarif"))
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	json.Unmarshal(res, &log)
	for _, r := range log.Runs {
		for _, x := range r.Results {
			t.Errorf("Multitool: %s %s", x.RuleID, x.Message.Text)
		}
	}
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
