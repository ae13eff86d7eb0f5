package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/certcut/certcut/verify"
)

// The verdict lines, as the reference CLI prints them (U+2014 dash, U+00B7 bullets).
const (
	LineVerified = "VERIFIED — zero rejections, host signature checked, certified list re-derived."
	LineCoherent = "COHERENT, NOT INDEPENDENTLY VERIFIED — zero rejections, but:"
)

// VerdictLine is the verdict line every view prints (verify, show, the HTML
// report): the reference's VERIFIED and COHERENT lines, and for REJECTED the
// number of problems found, listed or not (Verdict.ProblemCount: a rejection the
// per-kind cap left out counts, the line that sums them up does not). A count
// of the listed rejections would say 101 of a bundle with a million problems.
func VerdictLine(v *verify.Verdict) string {
	switch v.Outcome {
	case verify.Verified:
		return LineVerified
	case verify.Coherent:
		return LineCoherent
	case verify.Rejected:
		return fmt.Sprintf("REJECTED — %d problem(s):", v.ProblemCount())
	}
	return string(v.Outcome)
}

// RejectionLine is one rejection as the text views list it, escaped:
// "[kind] (profile) detail".
func RejectionLine(r verify.Rejection) string {
	if r.Profile != "" {
		return fmt.Sprintf("[%s] (%s) %s", r.Kind, Inline(r.Profile), Inline(r.Detail))
	}
	return fmt.Sprintf("[%s] %s", r.Kind, Inline(r.Detail))
}

// VerdictOptions shape WriteVerdictWith's output.
type VerdictOptions struct {
	// CLI names this program's version on the suite line.
	CLI string
	// Color paints the verdict line (for a terminal).
	Color bool
	// Quiet prints nothing for a VERIFIED bundle, and otherwise only
	// "FILE: " and the verdict line, then its reasons.
	Quiet bool
}

// WriteVerdict is WriteVerdictWith with only the CLI's version.
func WriteVerdict(w io.Writer, file string, v *verify.Verdict, cli string) error {
	return WriteVerdictWith(w, file, v, VerdictOptions{CLI: cli})
}

// WriteVerdictWith prints `bundle verify`'s view of one verdict: the five header
// lines of the reference CLI (bundle, host, suite, totals, certified), the key the
// signature was checked under and where it came from, the signing time and its
// source, the unsigned claims, notes, then the verdict line and its reasons. For
// a JSON document that is not a bundle at all, a first line says so. Every value
// interpolated is Inline: text from the bundle cannot act on the terminal nor start
// a line of its own (a forged "VERIFIED —" line, a "::error::" workflow command).
//
// The header lines keep the reference layout, so a script that reads them still
// can; certcut only appends to the host line that host.name is unsigned (the build
// beside it is signed).
func WriteVerdictWith(w io.Writer, file string, v *verify.Verdict, opts VerdictOptions) error {
	lw := newLineWriter(w, opts.Color)
	if opts.Quiet {
		if v.Outcome != verify.Verified {
			lw.printf("%s: ", Inline(file))
			writeOutcome(lw, v)
		}
		return lw.err()
	}
	sw := lw.safe
	s := v.Summary
	t := s.Totals
	if v.NotABundle != "" {
		fmt.Fprintf(sw, "not a certification bundle: %s is %s; the reference verdict follows\n", Inline(file), Inline(v.NotABundle))
	}
	fmt.Fprintf(sw, "bundle:    %s\n", Inline(file))
	fmt.Fprintf(sw, "host:      %s build %s:%s (host.name unsigned)\n", Inline(s.Host), Inline(s.Build.Kind), Inline(prefix(s.Build.ID, 12)))
	fmt.Fprintf(sw, "suite:     %s (this CLI is certcut %s)\n", Inline(s.Suite), opts.CLI)
	fmt.Fprintf(sw, "totals:    executedPass=%d executedFail=%d blocked=%d inapplicable=%d skipped=%d\n",
		t.ExecutedPass, t.ExecutedFail, t.Blocked, t.Inapplicable, t.Skipped)
	certified := "(none)"
	if len(v.CertifiedProfiles) > 0 {
		certified = strings.Join(v.CertifiedProfiles, ", ")
	}
	fmt.Fprintf(sw, "certified: %s\n", Inline(certified))
	fmt.Fprintf(sw, "key:       %s\n", Inline(KeyLine(v)))
	fmt.Fprintf(sw, "time:      %s\n", Inline(TimeLine(v.SigningTime)))
	if vt := v.VerifierSigningTime; vt != nil {
		fmt.Fprintf(sw, "time:      verifier signature: %s\n", Inline(TimeLine(*vt)))
	}
	if u := UnsignedLine(v); u != "" {
		fmt.Fprintf(sw, "unsigned:  %s\n", Inline(u))
	}
	for _, n := range v.Notes {
		fmt.Fprintf(sw, "note:      %s\n", Inline(n))
	}
	writeOutcome(lw, v)
	return lw.err()
}

// writeOutcome writes the verdict line, painted, then its reasons.
func writeOutcome(lw *lineWriter, v *verify.Verdict) {
	switch v.Outcome {
	case verify.Verified:
		lw.painted(outcomeColor(v.Outcome), VerdictLine(v))
		lw.printf("\n")
	case verify.Coherent:
		lw.painted(outcomeColor(v.Outcome), VerdictLine(v))
		lw.printf("\n")
		for _, r := range v.Unverified {
			lw.printf("  · %s\n", Inline(r))
		}
	case verify.Rejected:
		lw.painted(outcomeColor(v.Outcome), VerdictLine(v))
		lw.printf("\n")
		for _, r := range v.Rejections {
			lw.printf("  %s\n", RejectionLine(r))
		}
	}
}

// Tally counts verdicts by outcome, for the summary line after several files.
type Tally map[verify.Outcome]int

// Line is "13 VERIFIED, 0 COHERENT, 0 REJECTED", with ", N unreadable" when a
// file could not be read.
func (t Tally) Line() string {
	line := fmt.Sprintf("%d VERIFIED, %d COHERENT, %d REJECTED", t[verify.Verified], t[verify.Coherent], t[verify.Rejected])
	if n := t[verify.Unreadable]; n > 0 {
		line += fmt.Sprintf(", %d unreadable", n)
	}
	return line
}

// unsignedShown are the unsigned claims the verify text lists on its unsigned:
// line, with their labels; the JSON verdict has them all (Verdict.Unsigned).
var unsignedShown = []struct{ member, label string }{
	{"generatedAt", "generatedAt"},
	{"host.version", "host.version"},
	{"host.vendor", "host.vendor"},
	{"discovery.url", "discovery.url"},
	{"claimedProfiles[].evidenceTier", "evidenceTier"},
}

// UnsignedLine lists, for people, the unsigned claims a reader is most likely to
// take for facts: "generatedAt 2026-… · host.version 1.0.0 · … · evidenceTier self".
// host.name is marked on the host line. Repeated evidence tiers are listed once.
func UnsignedLine(v *verify.Verdict) string {
	var parts []string
	for _, u := range unsignedShown {
		raw, ok := v.Unsigned[u.member]
		if !ok {
			continue
		}
		var s string
		var list []string
		switch {
		case json.Unmarshal(raw, &s) == nil:
			parts = append(parts, u.label+" "+s)
		case json.Unmarshal(raw, &list) == nil:
			var distinct []string
			seen := map[string]bool{}
			for _, item := range list {
				if !seen[item] {
					seen[item] = true
					distinct = append(distinct, item)
				}
			}
			parts = append(parts, u.label+" "+strings.Join(distinct, ","))
		default:
			parts = append(parts, u.label+" "+string(raw))
		}
	}
	return strings.Join(parts, " · ")
}

// TimeLine says when a signature was made and where that time comes from:
// "2026-11-20T09:31:02Z · rfc3161 (TSA CN=…, accuracy 1s, token FILE.tsr,
// trusted through CN=…)", or "2026-11-20T09:30:00Z · generatedAt (unsigned)",
// with why a token that came with the bundle did not count.
func TimeLine(st verify.SigningTime) string {
	t := orDash(st.Time)
	if st.Trusted() {
		detail := []string{"TSA " + st.TSA}
		if st.Accuracy != "" {
			detail = append(detail, "accuracy "+st.Accuracy)
		}
		detail = append(detail, "token "+st.Token, "trusted through "+st.TrustedBy)
		return t + " · " + verify.TimeRFC3161 + " (" + strings.Join(detail, ", ") + ")"
	}
	line := t + " · " + verify.TimeGeneratedAt
	if st.Token != "" {
		line += "; token " + st.Token + " not counted: " + st.TokenNotTrusted
	}
	return line
}

func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// SafeWriter returns a writer that passes text to w with every character that
// could act on a terminal — control characters other than newline and tab, C1
// controls, bidirectional overrides — shown as \u{XXXX} instead. Renderers of plain
// text that quotes bundles (verify, gate, census, diff) write through it, so a
// hostile host name or row detail cannot rewrite what a reviewer sees. The first
// write error is kept and returned by later writes.
func SafeWriter(w io.Writer) io.Writer { return &safeWriter{w: w} }

type safeWriter struct {
	w   io.Writer
	err error
}

func (s *safeWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	text := string(p)
	out := text
	if strings.ContainsFunc(text, unsafeInLine) {
		var b strings.Builder
		for _, r := range text {
			if unsafeInLine(r) {
				fmt.Fprintf(&b, "\\u{%04X}", r)
			} else {
				b.WriteRune(r)
			}
		}
		out = b.String()
	}
	if _, err := io.WriteString(s.w, out); err != nil {
		s.err = err
		return 0, err
	}
	return len(p), nil
}

// unsafeInLine is unsafeRune for running text: newlines are the renderer's own.
func unsafeInLine(r rune) bool { return r != '\n' && unsafeRune(r) }
