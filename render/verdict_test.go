package render_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
)

// A verdict that left rejections out counts them all on the REJECTED line, lists
// at most MaxRejectionsPerKind+1 lines of a kind, and keeps the five reference
// header lines in their layout.
func TestWriteVerdictBounded(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	const n = 5000
	for i := range n {
		b.Results.Requirements = append(b.Results.Requirements, testkit.Row(fmt.Sprintf("openwop.requirement.0999.vacuous-%05d", i), "v2-x.test.ts", 0))
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	parsed, problems, err := bundle.Parse(testkit.Encode(b))
	if err != nil {
		t.Fatal(err)
	}
	v := verify.Bundle(parsed, problems, verify.Options{Registry: profiles.Default()})
	var out bytes.Buffer
	if err := render.WriteVerdict(&out, "big.json", v, "test"); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if c := strings.Count(text, "\n  [vacuous-pass] "); c != verify.MaxRejectionsPerKind+1 {
		t.Errorf("%d vacuous-pass lines", c)
	}
	if !strings.Contains(text, fmt.Sprintf("\n  [vacuous-pass] %d more vacuous-pass rejections are not listed", n-verify.MaxRejectionsPerKind)) {
		t.Errorf("no summary line:\n%.2000s", text)
	}
	if want := fmt.Sprintf("\nREJECTED — %d problem(s):\n", v.ProblemCount()); !strings.Contains(text, want) || v.ProblemCount() < n {
		t.Errorf("want %q (problems %d)", want, v.ProblemCount())
	}
	lines := strings.Split(text, "\n")
	for i, prefix := range []string{"bundle:    big.json", "host:      test-host build commit:0123456789ab", "suite:     2.45.30 (this CLI is certcut test)", "totals:    executedPass=", "certified: "} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d %q, want prefix %q", i, lines[i], prefix)
		}
	}
}

// One verdict line for every view: verify's text, show's text and the HTML
// report all count every problem found (Verdict.ProblemCount), not the
// rejections listed (at most MaxRejectionsPerKind+1 a kind): a hostile bundle
// with 5000 vacuous passes is "5000 problem(s)" everywhere, never "101".
func TestOneVerdictLineForEveryView(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	const n = 5000
	for i := range n {
		b.Results.Requirements = append(b.Results.Requirements, testkit.Row(fmt.Sprintf("openwop.requirement.0999.vacuous-%05d", i), "v2-x.test.ts", 0))
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	parsed, problems, err := bundle.Parse(testkit.Encode(b))
	if err != nil {
		t.Fatal(err)
	}
	v := verify.Bundle(parsed, problems, verify.Options{Registry: profiles.Default()})
	if v.ProblemCount() < n || len(v.Rejections) >= n {
		t.Fatalf("problems %d, listed %d", v.ProblemCount(), len(v.Rejections))
	}
	line := render.VerdictLine(v)
	if want := fmt.Sprintf("REJECTED — %d problem(s):", v.ProblemCount()); line != want {
		t.Fatalf("VerdictLine %q, want %q", line, want)
	}
	var verifyText, showText, html bytes.Buffer
	if err := render.WriteVerdict(&verifyText, "big.json", v, "test"); err != nil {
		t.Fatal(err)
	}
	r := render.NewReview("big.json", parsed, v, nil)
	if err := render.WriteText(&showText, r, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteHTML(&html, []*render.Review{r}, render.HTMLOptions{Generator: "test"}); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"verify": verifyText.String(), "show": showText.String()} {
		if !strings.Contains(text, "\n"+line+"\n") {
			t.Errorf("%s does not print %q", name, line)
		}
		if strings.Contains(text, fmt.Sprintf("%d problem(s)", len(v.Rejections))) {
			t.Errorf("%s counts the listed rejections (%d)", name, len(v.Rejections))
		}
	}
	if want := fmt.Sprintf("REJECTED — %d problem(s)", v.ProblemCount()); !strings.Contains(showText.String(), want) {
		t.Errorf("show's verdict summary does not say %q", want)
	}
	if want := fmt.Sprintf(`<span class="rejection-count">%d</span>`, v.ProblemCount()); !strings.Contains(html.String(), want) {
		t.Errorf("the HTML report does not say %s", want)
	}
	if strings.Contains(html.String(), fmt.Sprintf("%d problem(s)", len(v.Rejections))) {
		t.Errorf("the HTML report counts the listed rejections")
	}
}
