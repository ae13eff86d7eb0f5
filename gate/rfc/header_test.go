package rfc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/testkit"
)

func headerRFC(number, statusRows string) string {
	return "# RFC " + number + ": x\n\n| Field | Value |\n| --- | --- |\n| **RFC** | " + number + " |\n" + statusRows + "\n| **Updated** | 2026-10-01 — Evidence tier: tier-1 |\n\n## Summary\n\nText.\n"
}

// A Status that is not exactly a known state, or a second Status row anywhere
// (an HTML comment, a body table, a mid-line row the reference pattern would
// read), is unreadable: Status "" and a StatusProblem saying why.
func TestStatusUnreadable(t *testing.T) {
	for name, rows := range map[string]string{
		"lower case in a code span":   "| **Status** | `accepted` |",
		"upper case":                  "| **Status** | ACCEPTED |",
		"Cyrillic A":                  "| **Status** | `\u0410ccepted` |",
		"date inside the span":        "| **Status** | `Accepted (2026-11-01)` |",
		"unknown state":               "| **Status** | `Final` |",
		"decoy in a comment above":    "<!--\n| **Status** | `Active` |\n-->\n| **Status** | `Accepted` |",
		"decoy in a one-line comment": "<!-- | **Status** | `Active` | -->\n| **Status** | `Accepted` |",
		"only row in a comment":       "<!-- | **Status** | `Accepted` | -->",
		"two header rows":             "| **Status** | `Accepted` |\n| Status | Accepted |",
		"empty cell":                  "| **Status** |  |",
	} {
		r := rfc.Parse("RFCS/0901-x.md", headerRFC("0901", rows))
		if r.Status != "" || r.StatusProblem == "" {
			t.Errorf("%s: Status %q, problem %q", name, r.Status, r.StatusProblem)
		}
	}
	// A decoy row in the body, read by the reference pattern, also counts.
	r := rfc.Parse("RFCS/0901-x.md", headerRFC("0901", statusRow("Accepted"))+"\n| x | **Status** | `Active` |\n")
	if r.Status != "" || !strings.Contains(r.StatusProblem, "2 Status rows") {
		t.Errorf("body decoy: %q %q", r.Status, r.StatusProblem)
	}
	for _, s := range rfc.Statuses {
		r := rfc.Parse("RFCS/0901-x.md", headerRFC("0901", statusRow(string(s))))
		if r.Status != s || r.StatusProblem != "" || r.StatusLine != 6 || r.StatusField.Line != 6 {
			t.Errorf("%s: %+v", s, r)
		}
	}
}

func statusRow(s string) string { return "| **Status** | `" + s + "` |" }

// An RFC's number is the one its header states; a file name or title that
// disagrees is a NumberProblem naming both numbers.
func TestNumber(t *testing.T) {
	for name, tc := range map[string]struct {
		file, text, number, problem string
	}{
		"agree":                                 {"RFCS/0236-host-events.md", headerRFC("0236", statusRow("Accepted")), "0236", ""},
		"renamed below 0167":                    {"RFCS/0136-host-events.md", headerRFC("0236", statusRow("Accepted")), "0236", "file name says RFC 0136 but its header states RFC 0236"},
		"title disagrees":                       {"RFCS/0236-x.md", strings.Replace(headerRFC("0236", statusRow("Accepted")), "# RFC 0236", "# RFC 0136", 1), "0236", "header states RFC 0236 but the title states RFC 0136"},
		"no RFC row":                            {"RFCS/0236-x.md", strings.Replace(headerRFC("0236", statusRow("Accepted")), "| **RFC** | 0236 |\n", "", 1), "0236", ""},
		"no RFC row, title disagrees with file": {"RFCS/0136-x.md", strings.Replace(headerRFC("0236", statusRow("Accepted")), "| **RFC** | 0236 |\n", "", 1), "0236", "file name says RFC 0136 but its title states RFC 0236"},
		"two RFC rows":                          {"RFCS/0236-x.md", strings.Replace(headerRFC("0236", statusRow("Accepted")), "| **RFC** | 0236 |\n", "| **RFC** | 0236 |\n| **RFC** | 0136 |\n", 1), "0236", "2 RFC rows"},
		"not a number":                          {"RFCS/0236-x.md", strings.Replace(headerRFC("0236", statusRow("Accepted")), "| **RFC** | 0236 |", "| **RFC** | 02366 |", 1), "0236", "not a four-digit number"},
		"not an RFC file name":                  {"notes/host-events.md", headerRFC("0236", statusRow("Accepted")), "0236", ""},
	} {
		r := rfc.Parse(tc.file, tc.text)
		if r.Number != tc.number || (tc.problem == "") != (r.NumberProblem == "") || !strings.Contains(r.NumberProblem, tc.problem) {
			t.Errorf("%s: number %q, problem %q; want %q, %q", name, r.Number, r.NumberProblem, tc.number, tc.problem)
		}
	}
}

// Every real RFC reads with one known Status, a number its file name agrees
// with, and the header fields the governance rules read.
func TestCorpusHeaders(t *testing.T) {
	dir := filepath.Join(testkit.CorpusDir(t), "RFCS")
	files, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9][0-9]-*.md"))
	if len(files) < 5 {
		t.Fatalf("%d RFCs in %s", len(files), dir)
	}
	// The fuller spec snapshot beside the corpus, when the workspace has it.
	more, _ := filepath.Glob(filepath.Join(testkit.CorpusDir(t)+"-spec", "RFCS", "[0-9][0-9][0-9][0-9]-*.md"))
	files = append(files, more...)
	for _, f := range files {
		r, err := rfc.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Status.Known() || r.StatusProblem != "" || r.NumberProblem != "" || r.Number != filepath.Base(f)[:4] || r.NumberField.Line == 0 {
			t.Errorf("%s: %q %q %q %q", filepath.Base(f), r.Number, r.Status, r.StatusProblem, r.NumberProblem)
		}
		for _, name := range []string{"Updated", "Supersedes", "Superseded by", "Compatibility"} {
			if r.Field(name).Line == 0 {
				t.Errorf("%s: no %s field", filepath.Base(f), name)
			}
		}
	}
	r, err := rfc.ReadFile(filepath.Join(dir, "0168-v2-evidence-and-conformance.md"))
	if err != nil || r.PartOf.Value != "0167" || r.PartOf.Line != 11 || r.SupersededBy.Value != "—" || r.Compatibility.Line == 0 {
		t.Errorf("0168: part of %+v, superseded by %+v (%v)", r.PartOf, r.SupersededBy, err)
	}
}

func TestParseVerdict(t *testing.T) {
	for cell, want := range map[string]struct {
		class    rfc.WitnessClass
		ok, decl bool
	}{
		"witnessable — executed-pass required":   {rfc.Witnessable, true, false},
		"witnessable — gated":                    {rfc.WitnessableGated, true, true},
		"**witnessable — gated** (on the facet)": {rfc.WitnessableGated, true, true},
		"witnessable — not gated":                {rfc.Witnessable, true, false},
		"witnessable — unaided (corpus)":         {rfc.WitnessableUnaided, true, false},
		"witnessable — seam-gated (fixture)":     {rfc.SeamGated, true, true},
		"witnessable-gated (no host today)":      {rfc.Witnessable, true, false},
		"witnessable (corpus)":                   {rfc.Witnessable, true, false},
		"ungated":                                {"", false, false},
		"gated":                                  {"", false, false},
		"negative-existence":                     {rfc.NegativeExistence, true, true},
		"negative existence — no such field":     {rfc.NegativeExistence, true, true},
		"unwitnessable — no host can emit it":    {rfc.Unwitnessable, true, true},
		"seam-gated":                             {rfc.SeamGated, true, true},
		"claims-check":                           {rfc.ClaimsCheck, true, false},
		"host-pending":                           {rfc.HostPending, true, true},
		"witnessablex":                           {"", false, false},
		"":                                       {"", false, false},
	} {
		c, ok := rfc.ParseVerdict(cell)
		if c != want.class || ok != want.ok || c.Declared() != want.decl {
			t.Errorf("%q: %q %v declared %v", cell, c, ok, c.Declared())
		}
	}
}

// A Falsifiability row is gated only when its Verdict cell declares a
// non-executable class: "witnessable — not gated" and "ungated" are not, and
// negative-existence is.
func TestFalsifiabilityVerdicts(t *testing.T) {
	text := headerRFC("0901", statusRow("Accepted")) + "\n### Falsifiability\n\n| Requirement | Observable | Who | Verdict |\n| --- | --- | --- | --- |\n" +
		"| §A `0901.not-gated` | x | suite | witnessable — not gated |\n" +
		"| §B `0901.ungated` | x | suite | ungated |\n" +
		"| §C `0901.negative` | x | suite | negative-existence |\n" +
		"| §D `0901.gated` | x | suite | witnessable — gated |\n"
	r := rfc.Parse("RFCS/0901-x.md", text)
	got := map[string]bool{}
	for _, q := range r.Requirements {
		got[strings.TrimPrefix(q.ID, rfc.RequirementPrefix+"0901.")] = q.Gated
	}
	want := map[string]bool{"not-gated": false, "ungated": false, "negative": true, "gated": true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gated: %v, want %v", got, want)
	}
}

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		id, row string
		want    bool
	}{
		{"openwop.requirement.0901.a", "openwop.requirement.0901.a", true},
		{"openwop.requirement.0901.a", "openwop.requirement.0901.a.leg", true},
		{"openwop.requirement.0901.a", "openwop.requirement.0901.ab", false},
		{"openwop.requirement.0901.a", "openwop.requirement.0901", false},
	} {
		if rfc.Covers(tc.id, tc.row) != tc.want {
			t.Errorf("Covers(%s, %s) = %v", tc.id, tc.row, !tc.want)
		}
		s := rfc.NewIDSet(tc.id, "openwop.requirement.0902.z")
		if s.CoversRow(tc.row) != tc.want || (len(s.Covering(tc.row)) == 1) != tc.want {
			t.Errorf("IDSet(%s).CoversRow(%s) = %v", tc.id, tc.row, !tc.want)
		}
	}
}

// manyIDs is an RFC with one line naming n distinct ids, as a hostile RFC
// within the 8 MiB cap can: an acceptance line of shorthand legs
// (`0901.r0` `.r1` …), or a Falsifiability row naming them in its first cell.
func manyIDs(n int, falsifiability bool) string {
	var b strings.Builder
	b.WriteString(headerRFC("0901", statusRow("Accepted")))
	if falsifiability {
		b.WriteString("\n### Falsifiability\n\n| Requirement | Observable | Who | Verdict |\n| --- | --- | --- | --- |\n| §A `0901.r0`")
	} else {
		b.WriteString("\n## Acceptance criteria\n\n- [x] `0901.r0`")
	}
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, " `.r%d`", i)
	}
	if falsifiability {
		b.WriteString(" | x | suite | witnessable |")
	}
	b.WriteString("\n")
	return b.String()
}

// The ids of a large hostile line still come out in order, each once.
func TestManyIDsOrder(t *testing.T) {
	for _, falsifiability := range []bool{false, true} {
		r := rfc.Parse("RFCS/0901-x.md", manyIDs(2000, falsifiability))
		if len(r.Requirements) != 2000 || r.Requirements[1999].ID != "openwop.requirement.0901.r1999" || r.Requirements[0].ID != "openwop.requirement.0901.r0" {
			t.Fatalf("%d ids", len(r.Requirements))
		}
	}
}

// Register rows are typed by their first cell and their disposition token.
func TestRegisterRows(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "registers"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "| ID | Section | Question | Owner | Resolution Path | Blocks |\n| --- | --- | --- | --- | --- | --- |\n" +
		"| G1 | §A | q | o | `closed` — done | — |\n" +
		"| **G2** | §B | q | o | `carried:openwop.gap.0901.9` | — |\n" +
		"| G3 | §C | q | o | **open** — pending | — |\n" +
		"| note | `open` in prose |\n"
	if err := os.WriteFile(filepath.Join(dir, "registers", "0901-x.gaps.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := rfc.ReadRegister(filepath.Join(dir, "0901-x.md"), "0901")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(reg.Rows[0].ID, reg.Rows[0].Token, " ", reg.Rows[1].ID, reg.Rows[1].Token, reg.Rows[1].Arg, " ", reg.Rows[2].ID, reg.Rows[2].Token)
	if len(reg.Rows) != 3 || got != "G1closed G2carriedopenwop.gap.0901.9 G3open" {
		t.Errorf("rows %d: %s", len(reg.Rows), got)
	}
	if len(reg.Open) != 1 || reg.Open[0].Line != 6 || reg.Open[0].ID != "" {
		t.Errorf("open: %+v (the reference reads a line with a cell starting `open`)", reg.Open)
	}
}
