package render

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/gate"
)

// GateOptions shape a gate renderer's output.
//
// Quiet, in the text format, prints nothing for a report that passes, and for
// one that does not only what did not pass and the RESULT line.
type GateOptions struct {
	// Format is Text (the default), JSON, GitHub, SARIF or JUnit.
	Format Format
	// Color paints statuses in the text format (for a terminal).
	Color bool
	Quiet bool
	// Version names the program in SARIF's tool.driver.version.
	Version string
}

// GateFormats are the formats the gate renderers write.
var GateFormats = []Format{Text, JSON, GitHub, SARIF, JUnit}

// WriteGate writes gate reports (gate accepted, gate cut) in opts.Format: the
// reviewer's text, one report as a JSON object (several as an array), GitHub
// workflow commands, a SARIF 2.1.0 log or JUnit XML. Text from a bundle, an RFC
// or a file name is escaped for each format (Inline, GitHubData and
// GitHubProperty, SafeWriter), so none can start a line, a workflow command or a
// terminal sequence.
func WriteGate(w io.Writer, reps []*gate.Report, opts GateOptions) error {
	switch opts.Format {
	case JSON:
		if len(reps) == 1 {
			return WriteJSON(w, reps[0])
		}
		return WriteJSON(w, reps)
	case GitHub:
		sw := SafeWriter(w)
		for _, r := range reps {
			writeGitHub(sw, r)
		}
		return sw.(*safeWriter).err
	case SARIF:
		return WriteJSON(w, sarifLog(reps, opts.Version))
	case JUnit:
		return writeJUnit(w, reps)
	}
	lw := newLineWriter(w, opts.Color)
	for i, r := range reps {
		if opts.Quiet && r.Status == gate.Pass {
			continue // --quiet: nothing on success
		}
		if i > 0 && !opts.Quiet {
			lw.printf("\n")
		}
		writeGateText(lw, r, opts.Quiet)
	}
	return lw.err()
}

// statusColor is green for PASS, red for FAIL, yellow for BLOCKED.
func statusColor(s gate.Status) string {
	switch s {
	case gate.Pass:
		return ansiGreen
	case gate.Fail:
		return ansiRed
	}
	return ansiYellow
}

// status writes a criterion's status, padded to its column.
func (l *lineWriter) status(s gate.Status) {
	l.painted(statusColor(s), fmt.Sprintf("%-7s", s))
}

// criterionStatus writes a criterion's status, or WARNING for a
// warning-severity rule that did not pass (it never fails a report).
func (l *lineWriter) criterionStatus(c gate.Criterion) {
	if c.Warning {
		l.painted(ansiYellow, fmt.Sprintf("%-7s", "WARNING"))
		return
	}
	l.status(c.Status)
}

// writeGateText is the reviewer's view: RFC-text and requirement criteria one per
// line, bundle criteria grouped under their bundle, then notes and the result.
// Every interpolated value goes through Inline, so text from a bundle, an RFC or
// a file name never starts a line of its own. quiet leaves out the title, what
// passed and the notes.
func writeGateText(w *lineWriter, r *gate.Report, quiet bool) {
	in := Inline
	if !quiet {
		title := "gate " + in(r.Gate) + " — " + in(r.Subject)
		if r.RFC != nil {
			title += fmt.Sprintf(": %s (%s, Status %s)", in(r.RFC.Title), in(r.RFC.File), in(orDash(r.RFC.Status)))
		}
		w.printf("%s\n", title)
	}
	var lastBundle, lastGate string
	for _, c := range r.Criteria {
		if quiet && c.Status == gate.Pass {
			continue
		}
		if c.Gate != "" && c.Gate != lastGate {
			w.printf("%s:\n", in(c.Gate))
			lastGate = c.Gate
		}
		switch {
		case c.Bundle != nil && r.Gate == "accepted":
			if c.Bundle.File != lastBundle {
				lastBundle = c.Bundle.File
				w.printf("bundle %s (sha256 %s, signed %s%s)\n", in(c.Bundle.File), in(c.Bundle.Sha256), in(orDash(c.Bundle.KeyID)), keySuffix(c.Bundle))
			}
			w.printf("  ")
			w.criterionStatus(c)
			w.printf(" %s: %s — %s\n", in(string(c.ID)), in(c.Title), in(c.Reason))
		case c.Requirement != "":
			w.criterionStatus(c)
			w.printf(" %s %s — %s\n", in(string(c.ID)), in(c.Requirement), in(c.Reason))
			if c.Location != nil {
				w.printf("        named at %s:%d\n", in(c.Location.File), c.Location.Line)
			}
			if c.Status != gate.Pass {
				for i, ev := range c.Evidence {
					if i == 5 {
						w.printf("        … %d more row(s) in --format json\n", len(c.Evidence)-i)
						break
					}
					w.printf("        · %s: %s %s (%d assertions)%s\n", in(filepath.Base(ev.Bundle.File)), in(ev.Row), in(ev.Result), ev.Assertions, DetailSuffix(ev.Detail))
				}
			}
		default:
			indent := ""
			if c.Gate != "" {
				indent = "  "
			}
			w.printf("%s", indent)
			w.criterionStatus(c)
			w.printf(" %s: %s — %s\n", in(string(c.ID)), in(c.Title), in(c.Reason))
			for _, f := range c.Findings {
				loc := ""
				if f.Location != nil {
					loc = fmt.Sprintf("%s:%d: ", in(f.Location.File), f.Location.Line)
				}
				w.printf("%s        %s%s\n", indent, loc, in(f.Message))
			}
		}
	}
	for _, b := range r.Bundles {
		if b.Verdict == "REJECTED" || b.Verdict == "UNREADABLE" {
			w.printf("excluded: %s (sha256 %s): %s\n", in(b.File), in(orDash(b.Sha256)), excludedWhy(b))
		}
	}
	if !quiet {
		for _, n := range r.Notes {
			w.printf("note: %s\n", in(n))
		}
	}
	read := ""
	if r.Gate == "accepted" {
		read = fmt.Sprintf(" (%d bundle%s read)", len(r.Bundles), plural(len(r.Bundles)))
	}
	w.painted(ansiBold+";"+statusColor(r.Status), "RESULT: "+string(r.Status))
	w.printf(" — %d criteria: %s%s\n", len(r.Criteria), countLine(r), read)
}

// excludedWhy, keySuffix and DetailSuffix return text ready for a line (Inline).
func excludedWhy(b gate.BundleInfo) string {
	if b.Error != "" {
		return Inline(b.Error)
	}
	why := make([]string, len(b.Rejections))
	for i, r := range b.Rejections {
		why[i] = Inline(r)
	}
	return "REJECTED — " + strings.Join(why, "; ")
}

func keySuffix(b *gate.BundleRef) string {
	if b.KeyFingerprint == "" {
		return ", no trusted key"
	}
	return ", key " + Inline(b.KeyFingerprint) + " from " + Inline(b.KeySource)
}

// DetailSuffix is " — detail" (Inline), or "" for no detail.
func DetailSuffix(d string) string {
	if d == "" {
		return ""
	}
	return " — " + Inline(d)
}

func gateCounts(r *gate.Report) (pass, fail, blocked, warnings int) {
	for _, c := range r.Criteria {
		switch {
		case c.Status == gate.Pass:
			pass++
		case c.Warning:
			warnings++ // a warning-severity rule that did not pass: it never fails a report
		case c.Status == gate.Fail:
			fail++
		default:
			blocked++
		}
	}
	return
}

// countLine is "P pass, F fail, B blocked", with ", W warning(s)" when a
// warning-severity rule did not pass.
func countLine(r *gate.Report) string {
	pass, fail, blocked, warnings := gateCounts(r)
	s := fmt.Sprintf("%d pass, %d fail, %d blocked", pass, fail, blocked)
	if warnings > 0 {
		s += fmt.Sprintf(", %d warning%s", warnings, plural(warnings))
	}
	return s
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// annotation is one place a criterion points at.
type annotation struct {
	file    string
	line    int
	title   string
	message string
}

func annotations(c gate.Criterion) []annotation {
	title := string(c.ID)
	if c.Requirement != "" {
		title += " " + c.Requirement
	}
	msg := fmt.Sprintf("%s: %s — %s", c.Status, c.Title, c.Reason)
	if len(c.Findings) > 0 {
		var out []annotation
		for _, f := range c.Findings {
			a := annotation{title: title, message: f.Message}
			if f.Location != nil {
				a.file, a.line = f.Location.File, f.Location.Line
			}
			out = append(out, a)
		}
		return out
	}
	a := annotation{title: title, message: msg}
	switch {
	case c.Location != nil:
		a.file, a.line = c.Location.File, c.Location.Line
	case c.Bundle != nil:
		a.file = c.Bundle.File
		a.message = fmt.Sprintf("%s (sha256 %s, signed %s)", msg, c.Bundle.Sha256, orDash(c.Bundle.KeyID))
	}
	return []annotation{a}
}

// writeGitHub writes workflow commands: ::error for FAIL, ::warning for BLOCKED,
// placed on the RFC line (or the bundle file), then a plain summary line. Messages
// and properties are escaped by GitHub's rules (GitHubData and GitHubProperty), so
// no text from a bundle can end a command or start one.
func writeGitHub(w io.Writer, r *gate.Report) {
	for _, c := range r.Criteria {
		if c.Status == gate.Pass {
			continue
		}
		level := "error"
		if c.Status == gate.Blocked {
			level = "warning"
		}
		for _, a := range annotations(c) {
			writeCommand(w, level, a.file, a.line, a.title, a.message)
		}
	}
	fmt.Fprintf(w, "gate %s %s: %s (%s)\n", Inline(r.Gate), Inline(r.Subject), r.Status, countLine(r))
}

// writeCommand writes one workflow command (::error, ::warning, ::notice) with
// its file, line and title properties.
func writeCommand(w io.Writer, level, file string, line int, title, message string) {
	var props []string
	if file != "" {
		props = append(props, "file="+GitHubProperty(filepath.ToSlash(file)))
		if line > 0 {
			props = append(props, fmt.Sprintf("line=%d", line))
		}
	}
	props = append(props, "title="+GitHubProperty(title))
	fmt.Fprintf(w, "::%s %s::%s\n", level, strings.Join(props, ","), GitHubData(message))
}

// WriteAudit writes a gate audit: in text, one entry per Accepted RFC with the
// reason of each criterion that did not pass, and the RFC files not gated, with
// why; in the other formats, the RFCs' reports (JSON: the whole audit).
func WriteAudit(w io.Writer, a *gate.AuditReport, opts GateOptions) error {
	var reps []*gate.Report
	for _, row := range a.Rows {
		reps = append(reps, row.Report)
	}
	if a.Declared != nil {
		reps = append(reps, a.Declared)
	}
	if a.Repository != nil {
		reps = append(reps, a.Repository)
	}
	for _, v := range a.Vocabulary {
		if v.Report != nil {
			reps = append(reps, v.Report)
		}
	}
	switch opts.Format {
	case JSON:
		return WriteJSON(w, a)
	case GitHub:
		sw := SafeWriter(w)
		for _, r := range reps {
			writeGitHub(sw, r)
		}
		fmt.Fprintf(sw, "gate audit %s: %s (%d Accepted RFCs)\n", Inline(a.RFCsDir), a.Status, len(a.Rows))
		return sw.(*safeWriter).err
	case SARIF, JUnit:
		return WriteGate(w, reps, opts)
	}
	in := Inline
	lw := newLineWriter(w, opts.Color)
	if opts.Quiet && a.Status == gate.Pass {
		return nil
	}
	lw.printf("gate audit — %s: %d Accepted RFC(s) numbered 0167 or later, %d bundles read, %d RFC file(s) not gated\n", in(a.RFCsDir), len(a.Rows), a.Bundles, a.Skipped)
	for _, row := range a.Rows {
		if opts.Quiet && row.Status == gate.Pass {
			continue
		}
		lw.printf("%s  ", in(row.Number))
		lw.status(row.Status)
		lw.printf(" %s\n", in(row.Title))
		wit := "(none)"
		if len(row.Witnesses) > 0 {
			names := make([]string, len(row.Witnesses))
			for i, f := range row.Witnesses {
				names[i] = in(filepath.Base(f))
			}
			wit = strings.Join(names, ", ")
		}
		lw.printf("      witnesses: %s\n", wit)
		for _, c := range row.Report.Criteria {
			if c.Status == gate.Pass {
				continue
			}
			what := string(c.ID)
			switch {
			case c.Requirement != "":
				what = c.Requirement
			case c.Bundle != nil:
				what = string(c.ID) + " " + filepath.Base(c.Bundle.File)
			}
			if c.Warning {
				what += " (warning)"
			}
			lw.printf("      ")
			lw.status(c.Status)
			lw.printf(" %s — %s\n", in(what), in(c.Reason))
		}
	}
	for _, v := range a.Vocabulary {
		if v.Criterion.Status == gate.Pass {
			continue
		}
		lw.printf("%s  ", in(v.Number))
		lw.status(v.Criterion.Status)
		lw.printf(" %s (Status %s) — %s\n", in(string(v.Criterion.ID)), in(v.RFCStatus), in(v.Criterion.Reason))
	}
	writeDeclared(lw, a.Declared, opts)
	if a.Repository != nil {
		writeRepository(lw, a.Repository, opts.Quiet)
	}
	if !opts.Quiet {
		for _, s := range a.NotGated {
			lw.printf("not gated: %s — %s\n", in(s.File), in(s.Why))
		}
	}
	lw.painted(ansiBold+";"+statusColor(a.Status), "RESULT: "+string(a.Status))
	lw.printf("\n")
	return lw.err()
}

// writeDeclared writes the audit's declared section: every committed bundle's
// maturity line (as the reference script lists them) and each extension README
// finding; with --quiet, only what did not pass.
func writeDeclared(lw *lineWriter, d *gate.Report, opts GateOptions) {
	if d == nil || len(d.Criteria) == 0 {
		return
	}
	in := Inline
	lw.printf("declared: ")
	lw.painted(statusColor(d.Status), string(d.Status))
	lw.printf("\n")
	if !opts.Quiet {
		for _, n := range d.Notes {
			lw.printf("  %s\n", in(n))
		}
	}
	for _, c := range d.Criteria {
		if opts.Quiet && c.Status == gate.Pass {
			continue
		}
		lw.printf("  ")
		if c.Warning {
			lw.printf("%-7s ", "WARNING")
		} else {
			lw.status(c.Status)
			lw.printf(" ")
		}
		what := string(c.ID)
		switch {
		case c.Bundle != nil:
			what = string(c.ID) + " " + filepath.Base(c.Bundle.File)
		case c.Title != "" && c.Location != nil:
			what = string(c.ID) + " " + c.Title
		}
		lw.printf("%s — %s\n", in(what), in(c.Reason))
	}
}

// writeRepository writes the audit's repository-wide rules: one line per
// rule, then each finding on its own line with the file and line it is on.
func writeRepository(lw *lineWriter, r *gate.Report, quiet bool) {
	in := Inline
	if quiet && r.Status == gate.Pass {
		return
	}
	lw.printf("%s  ", in(r.Subject))
	lw.status(r.Status)
	lw.printf("\n")
	for _, c := range r.Criteria {
		if quiet && c.Status == gate.Pass {
			continue
		}
		lw.printf("      ")
		lw.status(c.Status)
		warn := ""
		if c.Warning {
			warn = " (warning)"
		}
		lw.printf(" %s%s — %s\n", in(string(c.ID)), warn, in(c.Reason))
		for _, f := range c.Findings {
			loc := ""
			if f.Location != nil {
				loc = fmt.Sprintf("%s:%d: ", in(f.Location.File), f.Location.Line)
			}
			lw.printf("              %s%s\n", loc, in(f.Message))
		}
	}
	if !quiet {
		for _, n := range r.Notes {
			lw.printf("      note: %s\n", in(n))
		}
	}
}
