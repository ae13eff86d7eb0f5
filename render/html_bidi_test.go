package render_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/render"
)

// bidiBundle is a signed bundle whose host name (unsigned, so it can be set after
// signing without breaking anything) is name.
func bidiBundle(name string) *bundle.Bundle {
	b := testkit.Unsigned("https://bidi.example")
	b.Host.Name = name
	if err := b.Seal(); err != nil {
		panic(err)
	}
	return testkit.Sign(b, "host", testkit.HostKeyID)
}

func report(t *testing.T, reviews ...*render.Review) string {
	t.Helper()
	var buf bytes.Buffer
	if err := render.WriteHTML(&buf, reviews, render.HTMLOptions{Generator: "certcut test"}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Every bundle string in the report is isolated — inside <bdi> in markup, between
// FSI and PDI in an attribute or an <option> — and its own bidirectional controls
// are shown, not obeyed, so none can close the isolate early.
func TestHTMLIsolatesBundleText(t *testing.T) {
	const host = "evil\u202eHOST\u2069\u202eMORE"
	r := review(t, "bidi.json", bidiBundle(host), true)
	page := report(t, r, review(t, "fresh.json", testkit.Signed("https://host.example"), true))
	for _, c := range []string{"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067"} {
		if strings.Contains(page, c) {
			t.Errorf("the page carries U+%04X from the bundle as it is", []rune(c)[0])
		}
	}
	shown := `evil\u{202E}HOST\u{2069}\u{202E}MORE`
	n := strings.Count(page, shown)
	if n < 4 { // h2, nav, <option>, matrix column (title and text)
		t.Fatalf("the host name is shown %d times:\n%s", n, page)
	}
	isolated := regexp.MustCompile(`(<bdi>|<bdi class="unsigned" title="unsigned: host.name">|\x{2068})` + regexp.QuoteMeta(shown) + `(</bdi>|\x{2069})`)
	if got := len(isolated.FindAllString(page, -1)); got != n {
		t.Errorf("%d of the %d occurrences of the host name are isolated", got, n)
	}
	// Every row cell and fact is isolated too: no bundle text sits bare in a cell.
	for _, re := range []string{
		`<td class="reason"><bdi>profile not advertised in the captured discovery set</bdi></td>`,
		`<td class="id"><code><bdi>openwop.scenario.v2-sandbox-exec</bdi></code></td>`,
		`<code><bdi>0123456789abcdef0123456789abcdef01234567</bdi></code>`,
	} {
		if !strings.Contains(page, re) {
			t.Errorf("page lacks %s", re)
		}
	}
}

// The report greys and tags every unsigned value shown, names the member in a
// tooltip, explains the tag once, and leaves signed values plain.
func TestHTMLMarksUnsigned(t *testing.T) {
	page := report(t, review(t, "fresh.json", testkit.Signed("https://host.example"), true))
	for _, want := range []string{
		`<p class="legend-unsigned">`,
		`<h2><bdi class="unsigned" title="unsigned: host.name">test-host</bdi> <bdi class="unsigned" title="unsigned: host.version">1.0.0</bdi> <span class="vendor">· <bdi class="unsigned" title="unsigned: host.vendor">certcut tests</bdi></span> <span class="tag" title="unsigned: host.name, host.version, host.vendor">unsigned</span></h2>`,
		`<dt>build</dt><dd><bdi>commit</bdi> <code><bdi>0123456789abcdef0123456789abcdef01234567</bdi></code></dd>`,
		`target major <bdi class="unsigned" title="unsigned: suite.targetMajor">2</bdi> <span class="tag"`,
		`<time><bdi class="unsigned" title="unsigned: generatedAt">2026-11-01T12:00:00.000Z</bdi></time> <span class="tag"`,
		`<code><bdi class="unsigned" title="unsigned: discovery.url">https://host.example/.well-known/openwop</bdi></code> <span class="tag"`,
		`<dt>key</dt><dd><bdi class="unsigned" title="unsigned: signature.keyId">test-host-1</bdi> <span class="tag" title="unsigned: signature.keyId">unsigned</span> · SHA256:`,
		`<th>tier <span class="tag" title="unsigned: claimedProfiles[].evidenceTier">unsigned</span></th>`,
		`<dt>rung</dt><dd><bdi>durable-single-instance</bdi> · re-derived from the signed rows</dd>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}
