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
