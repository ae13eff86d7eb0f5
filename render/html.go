package render

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/verify"
)

//go:embed report.tmpl
var reportTemplate string

//go:embed report.css
var reportCSS string

//go:embed report.js
var reportJS string

// reportTmpl is parsed on first use: html/template is not worth its start-up cost
// to the commands that never write a report.
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"keyParts":  KeyParts,
		"timeLine":  TimeLine,
		"rungParts": RungParts,
		"iso":       isoHTML,
		"isoText":   Isolate,
		"val":       valueHTML,
		"tag":       tagHTML,
		"parts":     partsHTML,
		"label":     labelHTML,
		"partsText": partsText,
		"meaning":   VerdictMeaning,
		"withdrawn": Withdrawn,
		"lower":     func(o verify.Outcome) string { return strings.ToLower(string(o)) },
		"join":      strings.Join,
		"add":       func(a, b int) int { return a + b },
	}).Parse(reportTemplate))
})

// HTMLOptions describe the page.
type HTMLOptions struct {
	// Generator names the program that wrote the page ("certcut v0.3.0").
	Generator string
}

// ChartWidth is the width of a totals chart in the HTML report, in SVG units.
const ChartWidth = 600

// WriteHTML writes one self-contained HTML page for the reviews: a section per
// bundle (verdict, header facts, profiles, the totals chart as inline SVG), one
// filterable table of every row, and, for several bundles, a requirement × host
// matrix. The page loads nothing: its CSS and script are inline and allowed by a
// Content-Security-Policy that names their SHA-256 and forbids everything else.
// All text from bundles goes through html/template, so it is always escaped, and
// is isolated for bidirectional text (<bdi>, or FSI…PDI where an element cannot
// go), so a host name in a right-to-left script or with U+202E cannot reorder
// the text around it. Unsigned values (bundle.IsUnsigned) are greyed and tagged
// "unsigned", with a legend at the top of the page.
func WriteHTML(w io.Writer, reviews []*Review, opts HTMLOptions) error {
	data := pageData{
		Generator: opts.Generator,
		CSS:       template.CSS(reportCSS),
		JS:        template.JS(reportJS),
		CSP:       CSP(),
		Verdicts:  map[verify.Outcome]int{},
	}
	for i, r := range reviews {
		bv := bundleView{Review: r, Index: i, Anchor: fmt.Sprintf("bundle-%d", i+1), Label: columnLabel(r)}
		x := 0
		for _, s := range Bar(r.Verdict.Summary.Totals, ChartWidth) {
			bv.Segments = append(bv.Segments, svgSegment{Segment: s, X: x})
			x += s.Cells
		}
		data.Bundles = append(data.Bundles, bv)
		data.Verdicts[r.Verdict.Outcome]++
		for _, row := range r.Rows {
			data.Rows = append(data.Rows, rowView{Row: row, Bundle: i, Mark: MarkOf(row.Result)})
		}
	}
	for _, o := range []verify.Outcome{verify.Verified, verify.Coherent, verify.Rejected} {
		if n := data.Verdicts[o]; n > 0 {
			data.VerdictList = append(data.VerdictList, verdictCount{Outcome: o, Count: n})
		}
	}
	if len(reviews) > 1 {
		data.Matrix = buildMatrix(reviews)
	}
	var buf bytes.Buffer
	if err := reportTmpl().Execute(&buf, data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// CSP is the page's Content-Security-Policy: nothing may load, only the page's own
// style element and script (by hash) run.
func CSP() string {
	return fmt.Sprintf("default-src 'none'; style-src '%s'; script-src '%s'; img-src data:; base-uri 'none'; form-action 'none'",
		hashSource(reportCSS), hashSource(reportJS))
}

func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

type pageData struct {
	Generator   string
	CSS         template.CSS
	JS          template.JS
	CSP         string
	Bundles     []bundleView
	Rows        []rowView
	Verdicts    map[verify.Outcome]int
	VerdictList []verdictCount
	Matrix      *matrix
}

type verdictCount struct {
	Outcome verify.Outcome
	Count   int
}

type bundleView struct {
	*Review
	Index    int
	Anchor   string
	Label    []Part
	Segments []svgSegment
}

type svgSegment struct {
	Segment
	X int
}

type rowView struct {
	Row
	Bundle int
	Mark   Mark
}

// matrix is the requirement × host table: one row per requirement id found in any
// bundle, one column per bundle.
type matrix struct {
	Columns [][]Part
	Rows    []matrixRow
	Differ  int
}

type matrixRow struct {
	ID     string
	Cells  []matrixCell
	Differ bool
}

type matrixCell struct {
	Result string // "" when the bundle has no such row
	Mark   Mark
}

func buildMatrix(reviews []*Review) *matrix {
	m := &matrix{}
	byID := map[string][]string{}
	for i, r := range reviews {
		m.Columns = append(m.Columns, columnLabel(r))
		for _, row := range r.Rows {
			cells, ok := byID[row.ID]
			if !ok {
				cells = make([]string, len(reviews))
				byID[row.ID] = cells
			}
			if cells[i] == "" { // a duplicated id shows its first row
				cells[i] = row.Result
			}
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, bundle.CompareUTF16)
	for _, id := range ids {
		mr := matrixRow{ID: id}
		for _, res := range byID[id] {
			c := matrixCell{Result: res}
			if res != "" {
				c.Mark = MarkOf(res)
			}
			mr.Cells = append(mr.Cells, c)
			if res != byID[id][0] {
				mr.Differ = true
			}
		}
		if mr.Differ {
			m.Differ++
		}
		m.Rows = append(m.Rows, mr)
	}
	return m
}

// columnLabel names a bundle in the matrix: host, suite version and a short build.
func columnLabel(r *Review) []Part {
	s := r.Verdict.Summary
	id := s.Build.ID
	if len(id) > 12 {
		id = id[:12]
	}
	host := Part{Text: "(unnamed host)"}
	if s.Host != "" {
		host = Part{Text: s.Host, Member: "host.name"}
	}
	return []Part{host, {Text: " "}, {Text: s.Suite, Member: "suite.version"}, {Text: " ("}, {Text: id, Member: "host.build"}, {Text: ")"}}
}

// isoHTML is s escaped and isolated: <bdi>s</bdi>, with s's own bidirectional
// controls shown (BidiNeutral) so that none can end the isolate early.
func isoHTML(s string) template.HTML {
	return template.HTML("<bdi>" + template.HTMLEscapeString(BidiNeutral(s)) + "</bdi>")
}

// valueHTML is isoHTML for the value of a bundle member; an unsigned one is
// greyed (class "unsigned") and names its member in a tooltip.
func valueHTML(member, s string) template.HTML {
	if !bundle.IsUnsigned(member) {
		return isoHTML(s)
	}
	return template.HTML(`<bdi class="unsigned" title="unsigned: ` + template.HTMLEscapeString(member) + `">` +
		template.HTMLEscapeString(BidiNeutral(s)) + "</bdi>")
}

// tagHTML is the "unsigned" tag when any of the members is unsigned.
func tagHTML(members ...string) template.HTML {
	un := bundle.UnsignedOf(members...)
	if len(un) == 0 {
		return ""
	}
	return template.HTML(` <span class="tag" title="unsigned: ` + template.HTMLEscapeString(strings.Join(un, ", ")) + `">unsigned</span>`)
}

// partsHTML renders a line's parts: certcut's own text escaped, bundle values
// through valueHTML, each unsigned one followed by its tag.
func partsHTML(ps []Part) template.HTML { return joinHTML(ps, true) }

// labelHTML is partsHTML without the tags (unsigned values are still greyed),
// for the short bundle labels of the navigation and the matrix.
func labelHTML(ps []Part) template.HTML { return joinHTML(ps, false) }

func joinHTML(ps []Part, tags bool) template.HTML {
	var b strings.Builder
	for _, p := range ps {
		if p.Member == "" {
			b.WriteString(template.HTMLEscapeString(p.Text))
			continue
		}
		b.WriteString(string(valueHTML(p.Member, p.Text)))
		if tags {
			b.WriteString(string(tagHTML(p.Member)))
		}
	}
	return template.HTML(b.String())
}

// partsText renders a line's parts as plain text, each bundle value isolated
// (Isolate), for an attribute or an <option>.
func partsText(ps []Part) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Member == "" {
			b.WriteString(p.Text)
		} else {
			b.WriteString(Isolate(p.Text))
		}
	}
	return b.String()
}
