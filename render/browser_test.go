package render_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/render"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds a Chromium to drive, or skips the test saying how to get one.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("SKIPPED: no Chromium found (install Debian's: apt-get install -y chromium; or set CHROMIUM=/path/to/chrome): the HTML report is not checked in a browser")
	return ""
}

// page is a report loaded in headless Chromium, with what the browser reported.
type page struct {
	t        *testing.T
	ctx      context.Context
	url      string
	mu       sync.Mutex
	problems []string // console errors and warnings, exceptions, browser log errors
	requests []string // every URL the page asked for
}

// openReport writes html to a file and loads it in a fresh headless Chromium
// (flags that work as root on a machine without network).
func openReport(t *testing.T, html []byte) *page {
	t.Helper()
	exe := chromium(t)
	// Not t.TempDir: Chromium's helpers may still write in the profile for a
	// moment after the browser stops, so removal retries (and runs last: cleanups
	// run in reverse order, after the browser is cancelled).
	dir, err := os.MkdirTemp("", "certcut-report-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, html, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1280, 1000),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	p := &page{t: t, ctx: bctx, url: "file://" + file}
	err = chromedp.Listen(bctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p.problems = append(p.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			p.problems = append(p.problems, fmt.Sprintf("exception: %s %s", ev.ExceptionDetails.Text, exceptionText(ev.ExceptionDetails)))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				p.problems = append(p.problems, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			p.requests = append(p.requests, ev.Request.URL)
		}
	})
	if err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	p.do(chromedp.Navigate(p.url), chromedp.WaitReady(chromedp.ID("shown")))
	return p
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil || d.Exception == nil {
		return ""
	}
	return d.Exception.Description
}

// do runs actions with a time limit (the browser lives as long as p.ctx).
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

func get[T any](p *page, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatal(err)
	}
	return v
}

func (p *page) text(sel string) string {
	p.t.Helper()
	return strings.TrimSpace(get(p, chromedp.TextContent(chromedp.CSS(sel))))
}

func (p *page) number(sel string) int {
	p.t.Helper()
	n, err := strconv.Atoi(p.text(sel))
	if err != nil {
		p.t.Fatalf("%s: %v", sel, err)
	}
	return n
}

// filter types into a search box (emptied first), as a user does: each key fires
// an input event.
func (p *page) filter(sel, text string) {
	p.t.Helper()
	get(p, chromedp.Evaluate[bool](fmt.Sprintf(`(e => { e.value = ""; return true })(document.querySelector(%q))`, sel)))
	p.do(chromedp.SendKeys(chromedp.CSS(sel), text))
}

// choose selects an option of a select element and fires change, as a user does.
func (p *page) choose(id, value string) {
	p.t.Helper()
	ok := get(p, chromedp.Evaluate[bool](fmt.Sprintf(
		`(e => { e.value = %q; e.dispatchEvent(new Event("change")); return e.value === %q })(document.getElementById(%q))`, value, value, id)))
	if !ok {
		p.t.Fatalf("#%s has no option %q", id, value)
	}
}

func (p *page) evalInt(js string) int {
	p.t.Helper()
	return get(p, chromedp.Evaluate[int](js))
}

func (p *page) evalBool(js string) bool {
	p.t.Helper()
	return get(p, chromedp.Evaluate[bool](js))
}

// clean fails the test on any console error, exception, CSP violation, or
// request for anything but the page itself.
func (p *page) clean() {
	p.t.Helper()
	p.do(chromedp.Sleep(200 * time.Millisecond)) // let late events arrive
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.problems {
		p.t.Errorf("browser reported: %s", pr)
	}
	for _, u := range p.requests {
		if u != p.url {
			p.t.Errorf("the page requested %s: a report must load nothing", u)
		}
	}
	if len(p.requests) == 0 {
		p.t.Error("no request seen at all: the network listener is not working")
	}
}

const hostile = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> & "quotes" 'single' </td></tr></table>`

// hostileBundle is a coherent, signed bundle whose strings try to break out of the
// page: a host name, a scenario and a reason carrying markup.
func hostileBundle() *bundle.Bundle {
	b := testkit.Unsigned("https://hostile.example")
	b.Host.Name = "evil</title><script>window.__pwned=3</script>"
	b.Results.Requirements = append(b.Results.Requirements,
		testkit.NonPassRow("openwop.scenario.v2-hostile-sandbox", "<b>x</b>.test.ts", bundle.Skipped, hostile),
		testkit.NonPassRow("openwop.requirement.0999.blocked-leg", "v2-blocked.test.ts", bundle.Blocked, "host answered 502"),
	)
	b.ClaimedProfiles[0].Certified, b.ClaimedProfiles[1].Certified = false, false
	if err := b.Seal(); err != nil {
		panic(err)
	}
	return testkit.Sign(b, "host", testkit.HostKeyID)
}

// TestReportInChromium loads a two-bundle report in headless Chromium and checks
// what a reviewer sees: no console error, no request, nothing hostile executed,
// the counts the bundles hold, and the filters.
func TestReportInChromium(t *testing.T) {
	fresh := review(t, "fresh.json", testkit.Signed("https://host.example"), true)
	evil := review(t, "hostile.json", hostileBundle(), true)
	var buf bytes.Buffer
	if err := render.WriteHTML(&buf, []*render.Review{fresh, evil}, render.HTMLOptions{Generator: "certcut test"}); err != nil {
		t.Fatal(err)
	}
	p := openReport(t, buf.Bytes())
	defer p.clean()

	total := len(fresh.Rows) + len(evil.Rows)
	if got := p.number("#total"); got != total {
		t.Errorf("#total %d, want %d", got, total)
	}
	if got := p.number("#shown"); got != total {
		t.Errorf("#shown %d before filtering, want %d", got, total)
	}
	if got := p.number("#bundle-count"); got != 2 {
		t.Errorf("bundle count %d", got)
	}
	if p.evalBool(`typeof window.__pwned !== "undefined"`) {
		t.Fatal("markup from a bundle was executed")
	}
	// The hostile text is shown as text.
	if got := p.text(`#rows-table tr[data-bundle="1"][data-result="skipped"] td.reason`); got != strings.TrimSpace(hostile) {
		t.Errorf("reason cell shows %q", got)
	}
	// Each bundle's legend shows its totals.
	for i, r := range []*render.Review{fresh, evil} {
		for _, m := range render.Marks {
			sel := fmt.Sprintf(`#bundle-%d .legend b.count[data-result=%q]`, i+1, m.Result)
			if got, want := p.number(sel), r.Verdict.Summary.Totals.Get(m.Result); got != want {
				t.Errorf("bundle %d %s: legend %d, want %d", i+1, m.Result, got, want)
			}
		}
	}
	// Text filter.
	want := 0
	for _, r := range []*render.Review{fresh, evil} {
		for _, row := range r.Rows {
			if strings.Contains(strings.ToLower(row.ID+"\n"+row.Scenario+"\n"+row.Reason), "sandbox") {
				want++
			}
		}
	}
	p.filter("#q", "sandbox")
	if got := p.number("#shown"); got != want || want == 0 {
		t.Errorf("filter 'sandbox': %d rows shown, want %d", got, want)
	}
	// Result filter, cleared text.
	p.do(chromedp.Click(chromedp.ID("clear")))
	p.choose("result", "inapplicable")
	if got, want := p.number("#shown"), fresh.Verdict.Summary.Totals.Inapplicable+evil.Verdict.Summary.Totals.Inapplicable; got != want {
		t.Errorf("result inapplicable: %d shown, want %d", got, want)
	}
	// A legend entry filters to one bundle's rows of that result.
	p.do(chromedp.Click(chromedp.CSS(`#bundle-2 .legend button[data-result="blocked"]`)))
	if got := p.number("#shown"); got != 1 {
		t.Errorf("bundle 2 blocked: %d shown, want 1", got)
	}
	// The matrix: every id once; "only ids that differ".
	if got := p.number("#mtotal"); got != len(evil.Rows) {
		t.Errorf("matrix ids %d, want %d (the hostile bundle holds every fresh id and two more)", got, len(evil.Rows))
	}
	p.do(chromedp.Click(chromedp.ID("mdiff")))
	if got := p.number("#mshown"); got != 2 {
		t.Errorf("matrix, only differing: %d shown, want 2", got)
	}
	if title := get(p, chromedp.Title()); title != "Certification bundle report — 2 bundles" {
		t.Errorf("title %q", title)
	}
}

// TestLargestCorpusReportInChromium renders the largest corpus bundle and checks
// the page shows its counts; it logs the page's size.
func TestLargestCorpusReportInChromium(t *testing.T) {
	dir := testkit.CorpusDir(t)
	file, data := testkit.LargestCorpusBundle(t)
	r := corpusReview(t, dir, file, data)
	var buf bytes.Buffer
	if err := render.WriteHTML(&buf, []*render.Review{r}, render.HTMLOptions{Generator: "certcut test"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes of bundle, %d bytes of HTML, %d rows", filepath.Base(file), len(data), buf.Len(), len(r.Rows))
	p := openReport(t, buf.Bytes())
	defer p.clean()
	s := r.Verdict.Summary
	if got := p.number("#total"); got != s.Rows {
		t.Errorf("#total %d, want %d", got, s.Rows)
	}
	for _, m := range render.Marks {
		if got, want := p.number(fmt.Sprintf(`#bundle-1 .legend b.count[data-result=%q]`, m.Result)), s.Totals.Get(m.Result); got != want {
			t.Errorf("%s: legend %d, want %d", m.Result, got, want)
		}
	}
	if got := p.text("#bundle-1 .verdict-line .verdict"); got != string(r.Verdict.Outcome) {
		t.Errorf("verdict %q, want %s", got, r.Verdict.Outcome)
	}
	p.choose("result", "executed-fail")
	if got := p.number("#shown"); got != s.Totals.ExecutedFail {
		t.Errorf("executed-fail: %d shown, want %d", got, s.Totals.ExecutedFail)
	}
	visible := p.evalInt(`document.querySelectorAll("#rows-table tbody tr:not([hidden])").length`)
	if visible != s.Totals.ExecutedFail {
		t.Errorf("%d visible rows, want %d", visible, s.Totals.ExecutedFail)
	}
}

// left is the left edge, in CSS pixels, of the first occurrence of needle in the
// text under the element sel (-1 when absent); with char, of needle's first
// character only.
func (p *page) left(sel, needle string, char bool) float64 {
	p.t.Helper()
	return get(p, chromedp.Evaluate[float64](fmt.Sprintf(`((sel, needle, char) => {
		const w = document.createTreeWalker(document.querySelector(sel), NodeFilter.SHOW_TEXT);
		for (let n = w.nextNode(); n; n = w.nextNode()) {
			const i = n.data.indexOf(needle);
			if (i < 0) continue;
			const r = document.createRange();
			r.setStart(n, i);
			r.setEnd(n, char ? i + 1 : i + needle.length);
			return r.getBoundingClientRect().left;
		}
		return -1;
	})(%q, %q, %v)`, sel, needle, char)))
}

// TestReportBidiInChromium: a host name in a right-to-left script, or one
// carrying U+202E (RIGHT-TO-LEFT OVERRIDE), cannot reorder certcut's text beside
// it — the suite version and the build id in a bundle's label read left to right,
// in order, after the host name.
func TestReportBidiInChromium(t *testing.T) {
	hebrew := review(t, "rtl.json", bidiBundle("שלום"), true)
	override := review(t, "rlo.json", bidiBundle("evil\u202e"), true)
	page := openReport(t, []byte(report(t, hebrew, override)))
	defer page.clean()
	for i, host := range []string{"שלום", "evil"} {
		sel := fmt.Sprintf("nav li:nth-child(%d) a", i+1)
		h, s, b := page.left(sel, host, false), page.left(sel, "2.45.30", false), page.left(sel, "0123456789ab", false)
		if h < 0 || s < 0 || b < 0 {
			t.Fatalf("%s: host %v, suite %v, build %v: not all shown", sel, h, s, b)
		}
		if !(h < s && s < b) {
			t.Errorf("%s (host %q): host at %v, suite at %v, build at %v: not in reading order", sel, host, h, s, b)
		}
		if first, last := page.left(sel, "0", true), page.left(sel, "b", true); !(first < last) {
			t.Errorf("%s (host %q): the build id reads backwards (0 at %v, b at %v)", sel, host, first, last)
		}
	}
}
