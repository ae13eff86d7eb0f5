package render_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/tiers"
	"github.com/certcut/certcut/verify"
)

// review verifies b (through its file bytes, as the CLI does) and builds its review.
func review(t *testing.T, file string, b *bundle.Bundle, trusted bool) *render.Review {
	t.Helper()
	parsed, problems, err := bundle.Parse(testkit.Encode(b))
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.Options{Registry: profiles.Default()}
	if trusted {
		opts.HostKeys = keys.Set{testkit.HostPublic()}
	}
	return render.NewReview(file, parsed, verify.Bundle(parsed, problems, opts), nil)
}

func corpusReview(t *testing.T, dir, file string, data []byte) *render.Review {
	t.Helper()
	b, problems, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	key, err := keys.LoadPublicPEM(filepath.Join(dir, "keys", b.Signature.KeyID+keys.PEMSuffix))
	if err != nil {
		t.Fatal(err)
	}
	tf, err := tiers.Load(filepath.Join(dir, "evidence", "host-tiers.json"))
	if err != nil {
		t.Fatal(err)
	}
	v := verify.Bundle(b, problems, verify.Options{HostKeys: keys.Set{key}, Registry: profiles.Default()})
	return render.NewReview(file, b, v, tf)
}

func TestBar(t *testing.T) {
	cells := func(segs []render.Segment) []int {
		var out []int
		for _, s := range segs {
			out = append(out, s.Cells)
		}
		return out
	}
	for _, tc := range []struct {
		totals bundle.Totals
		width  int
		want   []int // pass, fail, blocked, skipped, inapplicable
	}{
		{bundle.Totals{ExecutedPass: 390, ExecutedFail: 4, Skipped: 7, Inapplicable: 43}, 50, []int{43, 1, 0, 1, 5}},
		{bundle.Totals{ExecutedPass: 10}, 50, []int{50, 0, 0, 0, 0}},
		{bundle.Totals{}, 50, []int{0, 0, 0, 0, 0}},
		{bundle.Totals{ExecutedPass: 1000, Blocked: 1}, 10, []int{9, 0, 1, 0, 0}}, // a tiny count stays visible
		{bundle.Totals{ExecutedPass: 1, ExecutedFail: 1, Blocked: 1, Skipped: 1, Inapplicable: 1}, 3, []int{1, 1, 1, 1, 1}},
		{bundle.Totals{ExecutedPass: 1, ExecutedFail: 1}, 5, []int{3, 2, 0, 0, 0}},
	} {
		got := cells(render.Bar(tc.totals, tc.width))
		if !slices.Equal(got, tc.want) {
			t.Errorf("Bar(%+v, %d) = %v, want %v", tc.totals, tc.width, got, tc.want)
		}
		sum, nonZero := 0, 0
		for _, s := range render.Bar(tc.totals, tc.width) {
			sum += s.Cells
			if s.Count > 0 {
				nonZero++
			}
		}
		if nonZero > 0 && sum != max(tc.width, nonZero) {
			t.Errorf("Bar(%+v, %d) fills %d cells", tc.totals, tc.width, sum)
		}
	}
}

func TestReviewOfTamperedBundle(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	b.Host.Relaxations = []bundle.Relaxation{{Obligation: "webhooks.egress-guard", Durability: "session", Reason: "loopback lane"}}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	r := review(t, "relaxed.json", b, true)
	if r.Verdict.Outcome != verify.Rejected {
		t.Fatalf("outcome %s", r.Verdict.Outcome)
	}
	got := map[string]render.Profile{}
	for _, p := range r.Profiles {
		got[p.ID] = p
	}
	if p := got["openwop-core-standard"]; !p.Claimed || p.Certified || !slices.Equal(p.WithdrawnBy, []string{"relaxed-profile-certified"}) {
		t.Errorf("core-standard %+v", p)
	}
	if p := got["openwop-discovery-core"]; !p.Certified {
		t.Errorf("discovery-core %+v: a profile-scoped rejection withdraws one profile", p)
	}
	if len(r.NonPass) != 1 || r.NonPass[0].Result != bundle.Inapplicable || r.NonPass[0].Rows[0].Reason == "" {
		t.Errorf("non-pass %+v", r.NonPass)
	}
	if r.Rung.Claimed != bundle.RungDurableSingleInstance || r.Rung.Rejected || r.Rung.Derivable != bundle.RungDurableSingleInstance {
		t.Errorf("rung %+v", r.Rung)
	}

	var out bytes.Buffer
	if err := render.WriteText(&out, r, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"test-host 1.0.0 · certcut tests (unsigned)\n",
		"  verdict     REJECTED — 1 problem(s)\n",
		"  build       commit 0123456789abcdef0123456789abcdef01234567\n",
		"  key         test-host-1 (unsigned) · SHA256:",
		"  totals      21 rows · 63 assertions\n",
		"              ████████████████████████████████████████████████··\n",
		"  profiles    ✓ openwop-discovery-core  self · 3 witnesses (unsigned) · certified\n",
		"              ✗ openwop-core-standard   self · 5 witnesses (unsigned) · withdrawn by relaxed-profile-certified\n",
		"  relaxations webhooks.egress-guard (session): loopback lane\n",
		"  rung        durable-single-instance · re-derived from the signed rows\n",
		"REJECTED — 1 problem(s):\n  [relaxed-profile-certified] (openwop-core-standard)",
		"\n· inapplicable (1)\n  openwop.scenario.v2-sandbox-exec  v2-sandbox-exec.test.ts\n      profile not advertised in the captured discovery set\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b[") {
		t.Error("plain text has ANSI codes")
	}
	out.Reset()
	render.WriteText(&out, r, render.TextOptions{Color: true})
	if !strings.Contains(out.String(), "\x1b[1;31mREJECTED\x1b[0m") {
		t.Errorf("coloured text lacks a red verdict:\n%q", out.String()[:300])
	}
}

// Text from a bundle cannot drive the terminal: escapes and bidi overrides are
// shown, not obeyed.
func TestTextIsTerminalSafe(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	b.Host.Name = "host\x1b]0;pwned\x07\u202e"
	b.Results.Requirements = append(b.Results.Requirements,
		testkit.NonPassRow("openwop.scenario.x", "x.test.ts", bundle.Skipped, "reason \x1b[2Jcleared\nsecond line"))
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	var out bytes.Buffer
	render.WriteText(&out, review(t, "x.json", b, false), render.TextOptions{Color: false})
	text := out.String()
	if strings.ContainsAny(text, "\x1b\x07\u202e") {
		t.Errorf("control characters reach the terminal:\n%q", text)
	}
	for _, want := range []string{`host\u{001B}]0;pwned\u{0007}\u{202E}`, "      reason \\u{001B}[2Jcleared\n      second line\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// The page is self-contained, its CSP names the hashes of exactly the inline style
// and script it carries, and bundle text is escaped.
func TestHTMLSelfContainedAndEscaped(t *testing.T) {
	var buf bytes.Buffer
	if err := render.WriteHTML(&buf, []*render.Review{review(t, "hostile.json", hostileBundle(), false)}, render.HTMLOptions{Generator: "certcut test"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"<script>window.__pwned", "<img src=x", "http://", "https://fonts", "src=\"http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;window.__pwned=1&lt;/script&gt;") {
		t.Error("hostile reason is not shown escaped")
	}
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(page, -1)
	if style == nil || len(script) != 1 {
		t.Fatalf("want one style and one script element, found %d scripts", len(script))
	}
	csp := render.CSP()
	if !strings.Contains(page, `content="`+strings.NewReplacer("'", "&#39;", "+", "&#43;").Replace(csp)+`"`) {
		t.Errorf("the page does not carry the CSP %s", csp)
	}
	for _, h := range []string{hash(style[1]), hash(script[0][1])} {
		if !strings.Contains(csp, h) {
			t.Errorf("CSP %s lacks %s", csp, h)
		}
	}
	if !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %s allows loading", csp)
	}
	if strings.Contains(page, `id="matrix"`) {
		t.Error("one bundle has no matrix")
	}
}

func TestCorpusReview(t *testing.T) {
	dir := testkit.CorpusDir(t)
	file := filepath.Join(dir, "evidence", "v2-host-bundles", "openwop-workflow-engine-2.45.30-7643ddb8e.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := corpusReview(t, dir, file, data)
	if r.Tier == nil || r.Tier.Listed || r.Tier.Origin != "https://api.openwop.dev" {
		t.Errorf("tier %+v: api.openwop.dev is not in the stored host-tiers.json", r.Tier)
	}
	var out bytes.Buffer
	render.WriteText(&out, r, render.TextOptions{})
	if !strings.Contains(out.String(), "  origin      https://api.openwop.dev (unsigned) · not listed in host-tiers.json: unknown, never qualifies\n") {
		t.Errorf("origin line missing:\n%s", out.String()[:800])
	}
}

func TestSafeWriter(t *testing.T) {
	var b strings.Builder
	w := render.SafeWriter(&b)
	fmt.Fprintf(w, "host: %s\n\tnext\n", "evil\x1b[2J\u202ehost\u0085")
	want := "host: evil\\u{001B}[2J\\u{202E}host\\u{0085}\n\tnext\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
