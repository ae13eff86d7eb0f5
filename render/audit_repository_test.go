package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

// gate audit's repository-wide findings are in every output format, each with
// the file and line it is on.
func TestAuditRepositoryEveryFormat(t *testing.T) {
	repo := &gate.Report{Gate: "audit", Subject: "the repository (spec)", Status: gate.Fail, ExitCode: 1, Criteria: []gate.Criterion{
		{ID: "rfc.stable-banner", Title: "a spec/v2 `Status: Stable` banner cites only Accepted RFCs", Status: gate.Fail,
			Reason:   "the Stable banner cites RFC 0177, which is `Active`",
			Findings: []gate.Finding{{Message: "the Stable banner cites RFC 0177, which is `Active`", Location: &gate.Location{File: "spec/v2/ext/README.md", Line: 3}}}},
		{ID: "registers.tokens", Title: "every gap and risk row states a resolution token of its kind", Status: gate.Pass, Reason: "419 row(s)"},
	}}
	a := &gate.AuditReport{RFCsDir: "RFCS", Status: gate.Fail, ExitCode: 1, Rows: []gate.AuditRow{}, NotGated: []gate.NotGated{}, Repository: repo}
	for _, tc := range []struct {
		f    Format
		want []string
	}{
		{Text, []string{"the repository (spec)  FAIL", "FAIL    rfc.stable-banner — the Stable banner cites RFC 0177", "spec/v2/ext/README.md:3: the Stable banner cites RFC 0177"}},
		{JSON, []string{`"repository": {`, `"file": "spec/v2/ext/README.md"`, `"line": 3`}},
		{GitHub, []string{"::error file=spec/v2/ext/README.md,line=3,title=rfc.stable-banner::the Stable banner cites RFC 0177"}},
		{SARIF, []string{`"ruleId": "rfc.stable-banner"`, `"uri": "spec/v2/ext/README.md"`, `"startLine": 3`}},
		{JUnit, []string{`rfc.stable-banner`, `spec/v2/ext/README.md:3`}},
	} {
		var b bytes.Buffer
		if err := WriteAudit(&b, a, GateOptions{Format: tc.f}); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", tc.f, w, b.String())
			}
		}
		if tc.f == JSON && !json.Valid(b.Bytes()) {
			t.Errorf("json: invalid")
		}
	}
}
