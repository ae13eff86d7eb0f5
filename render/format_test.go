package render_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
)

func TestParseFormat(t *testing.T) {
	if f, err := render.ParseFormat("sarif", render.GateFormats...); err != nil || f != render.SARIF {
		t.Errorf("ParseFormat(sarif) = %q, %v", f, err)
	}
	var fe *render.FormatError
	_, err := render.ParseFormat("csv", render.GateFormats...)
	if !errors.As(err, &fe) || err.Error() != `--format "csv": give one of text, json, github, sarif, junit` {
		t.Errorf("ParseFormat(csv) = %v", err)
	}
}

func TestWriteJSONKeepsHTMLCharacters(t *testing.T) {
	var b bytes.Buffer
	if err := render.WriteJSON(&b, map[string]string{"a": "<b> & c"}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "{\n  \"a\": \"<b> & c\"\n}\n" {
		t.Errorf("WriteJSON = %q", got)
	}
}

func TestTallyLine(t *testing.T) {
	tally := render.Tally{verify.Verified: 13}
	if got := tally.Line(); got != "13 VERIFIED, 0 COHERENT, 0 REJECTED" {
		t.Errorf("Line = %q", got)
	}
	tally[verify.Unreadable] = 1
	if got := tally.Line(); got != "13 VERIFIED, 0 COHERENT, 0 REJECTED, 1 unreadable" {
		t.Errorf("Line = %q", got)
	}
}

// Select lists the rows a reviewer asks for; an unknown result or a malformed
// pattern is a *SelectionError.
func TestReviewSelect(t *testing.T) {
	r := review(t, "fresh.json", testkit.Signed("https://host.example"), true)
	all := len(r.Rows)
	if err := r.Select(render.Selection{Results: []string{"executed-pass", "executed-fail", "skipped", "inapplicable", "blocked"}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range r.NonPass {
		n += len(g.Rows)
	}
	if n != all || r.NonPass[0].Result != "executed-pass" {
		t.Errorf("every result selects %d of %d rows, first group %s", n, all, r.NonPass[0].Result)
	}
	if err := r.Select(render.Selection{IDs: []string{"openwop.floor.*"}, Results: []string{"executed-pass"}}); err != nil {
		t.Fatal(err)
	}
	for _, g := range r.NonPass {
		for _, row := range g.Rows {
			if row.Result != "executed-pass" || len(row.ID) < 14 || row.ID[:14] != "openwop.floor." {
				t.Errorf("selected %s %s", row.ID, row.Result)
			}
		}
	}
	var se *render.SelectionError
	if err := r.Select(render.Selection{Results: []string{"passed"}}); !errors.As(err, &se) {
		t.Errorf("an unknown result: %v", err)
	}
	if err := r.Select(render.Selection{IDs: []string{"["}}); !errors.As(err, &se) {
		t.Errorf("a malformed pattern: %v", err)
	}
}

// --quiet: nothing for a VERIFIED bundle; "FILE: " and the verdict otherwise.
func TestWriteVerdictQuiet(t *testing.T) {
	r := review(t, "fresh.json", testkit.Signed("https://host.example"), true)
	var b bytes.Buffer
	if err := render.WriteVerdictWith(&b, "fresh.json", r.Verdict, render.VerdictOptions{Quiet: true}); err != nil || b.Len() != 0 {
		t.Errorf("quiet VERIFIED wrote %q, %v", b.String(), err)
	}
	r = review(t, "fresh.json", testkit.Signed("https://host.example"), false)
	if err := render.WriteVerdictWith(&b, "fresh.json", r.Verdict, render.VerdictOptions{Quiet: true}); err != nil || !bytes.HasPrefix(b.Bytes(), []byte("fresh.json: COHERENT, NOT INDEPENDENTLY VERIFIED")) {
		t.Errorf("quiet COHERENT wrote %q, %v", b.String(), err)
	}
}
