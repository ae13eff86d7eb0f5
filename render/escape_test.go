package render_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/render"
)

// lineBreakers are every character a terminal, a log viewer or GitHub's runner
// may take as the end of a line.
var lineBreakers = []string{"\n", "\r", "\v", "\f", "\u0085", "\u2028", "\u2029"}

func TestInlineKeepsOneLine(t *testing.T) {
	for _, br := range lineBreakers {
		in := "seam" + br + "::error file=x::pwned"
		got := render.Inline(in)
		if strings.ContainsAny(got, strings.Join(lineBreakers, "")) {
			t.Errorf("Inline(%q) = %q still breaks the line", in, got)
		}
		if !strings.HasPrefix(got, `seam\u{`) {
			t.Errorf("Inline(%q) = %q: the break is not shown as \\u{…}", in, got)
		}
	}
	for in, want := range map[string]string{
		"plain text · ✓ ünïcödé": "plain text · ✓ ünïcödé",
		"a\tb":                   `a\u{0009}b`,
		"esc\x1b[2J":             `esc\u{001B}[2J`,
		"del\x7f c1\u009b":       `del\u{007F} c1\u{009B}`,
		"rlo\u202eabc\u2069":     `rlo\u{202E}abc\u{2069}`,
		"crlf\r\nnext":           `crlf\u{000D}\u{000A}next`,
	} {
		if got := render.Inline(in); got != want {
			t.Errorf("Inline(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLines(t *testing.T) {
	got := render.Lines("first\r\nsecond\rstill second\u2028too\n\x1b[2J")
	want := []string{"first", `second\u{000D}still second\u{2028}too`, `\u{001B}[2J`}
	if !slices.Equal(got, want) {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

// GitHub's workflow-command escaping (the runner's own rules): data escapes %, CR
// and LF; properties also : and ,. Anything else that could break a line or act
// on a log is shown.
func TestGitHubEscaping(t *testing.T) {
	data := "50% done\r\n::error file=x::pwned\u2028::warning::y\x1b"
	if got, want := render.GitHubData(data), `50%25 done%0D%0A::error file=x::pwned\u{2028}::warning::y\u{001B}`; got != want {
		t.Errorf("GitHubData = %q, want %q", got, want)
	}
	prop := "a,b:c%\n"
	if got, want := render.GitHubProperty(prop), "a%2Cb%3Ac%25%0A"; got != want {
		t.Errorf("GitHubProperty = %q, want %q", got, want)
	}
}

func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"http://x\")": "'=HYPERLINK(\"http://x\")",
		"+1+cmd|' /C calc'!A0":     "'+1+cmd|' /C calc'!A0",
		"-2+3":                     "'-2+3",
		"@SUM(A1)":                 "'@SUM(A1)",
		"\t=1":                     `\u{0009}=1`,
		"\r=1":                     `\u{000D}=1`,
		"a\n=1":                    `a\u{000A}=1`,
		"-\n::error file=x::y":     `'-\u{000A}::error file=x::y`,
		"test-host":                "test-host",
		"a=b":                      "a=b",
		"":                         "",
	} {
		if got := render.CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsolate(t *testing.T) {
	if got, want := render.Isolate("evil\u202e\u2069x"), "\u2068evil\\u{202E}\\u{2069}x\u2069"; got != want {
		t.Errorf("Isolate = %q, want %q", got, want)
	}
	// Right-to-left letters and marks stay: the isolate contains them.
	if got := render.BidiNeutral("שלום\u200f"); got != "שלום\u200f" {
		t.Errorf("BidiNeutral changed RTL text: %q", got)
	}
}

// show prints every value nothing binds with "(unsigned)", decided by
// bundle.Bindings, and explains the mark once.
func TestTextMarksUnsigned(t *testing.T) {
	r := review(t, "fresh.json", testkit.Signed("https://h.example"), true)
	var out bytes.Buffer
	if err := render.WriteText(&out, r, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"test-host 1.0.0 · certcut tests (unsigned)\n",
		"  build       commit 0123456789abcdef0123456789abcdef01234567\n",
		"  suite       @openwop/openwop-conformance 2.45.30 · target major 2 (unsigned) · generated 2026-11-01T12:00:00.000Z (unsigned)\n",
		"  discovery   https://h.example/.well-known/openwop (unsigned)\n",
		"  key         test-host-1 (unsigned) · SHA256:",
		"  profiles    ✓ openwop-discovery-core  self · 3 witnesses (unsigned) · certified\n",
		"  rung        durable-single-instance · re-derived from the signed rows\n",
		"  unsigned    " + render.UnsignedLegend + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, m := range []string{"host.name", "host.vendor", "generatedAt", "discovery.url", "suite.targetMajor", "claimedProfiles[].evidenceTier"} {
		if !slices.Contains(r.Unsigned, m) {
			t.Errorf("review.Unsigned %q lacks %s", r.Unsigned, m)
		}
	}
	for _, m := range []string{"host.build", "suite.version", "results.requirements", "results.totals", "durability.rung"} {
		if slices.Contains(r.Unsigned, m) {
			t.Errorf("review.Unsigned %q names %s, which is %s", r.Unsigned, m, bundle.BindingOf(m))
		}
	}
}

// A row's reason is its own, signed detail; the unsigned detail.nonPass list is
// never shown as one, even when the row has none.
func TestReasonIsTheSignedDetail(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	b.Results.Requirements = append(b.Results.Requirements,
		testkit.NonPassRow("openwop.requirement.0999.quiet", "q.test.ts", bundle.Skipped, ""))
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	for i, np := range b.Detail.NonPass {
		if np.ID == "openwop.requirement.0999.quiet" {
			b.Detail.NonPass[i].Reason = "UNSIGNED CLAIM: skipped by agreement with the steward"
		}
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	r := review(t, "quiet.json", b, true)
	var out bytes.Buffer
	render.WriteText(&out, r, render.TextOptions{})
	text := out.String()
	if strings.Contains(text, "UNSIGNED CLAIM") {
		t.Errorf("show prints detail.nonPass as a row's reason:\n%s", text)
	}
	if !strings.Contains(text, "  openwop.requirement.0999.quiet  q.test.ts\n      (no reason given)\n") {
		t.Errorf("the row without a detail is not shown as such:\n%s", text)
	}
	out.Reset()
	if err := render.WriteHTML(&out, []*render.Review{r}, render.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "UNSIGNED CLAIM") {
		t.Error("the report shows detail.nonPass as a row's reason")
	}
}
