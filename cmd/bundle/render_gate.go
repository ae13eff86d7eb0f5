package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/render"
)

// renderReports writes gate reports in the chosen format.
func renderReports(w io.Writer, format string, reps []*gate.Report) error {
	if format == "text" || format == "github" {
		w = render.SafeWriter(w) // the reports quote bundles and RFCs
	}
	switch format {
	case "json":
		if len(reps) == 1 {
			return writeJSON(w, reps[0])
		}
		return writeJSON(w, reps)
	case "github":
		for _, r := range reps {
			renderGitHub(w, r)
		}
		return nil
	case "sarif":
		return writeJSON(w, sarifLog(reps))
	case "junit":
		return renderJUnit(w, reps)
	}
	for i, r := range reps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		renderGateText(w, r)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// renderGateText is the reviewer's view: RFC-text and requirement criteria one per
// line, bundle criteria grouped under their bundle, then notes and the result.
// Every interpolated value goes through render.Inline, so text from a bundle, an
// RFC or a file name never starts a line of its own.
func renderGateText(w io.Writer, r *gate.Report) {
	in := render.Inline
	title := "gate " + in(r.Gate) + " — " + in(r.Subject)
	if r.RFC != nil {
		title += fmt.Sprintf(": %s (%s, Status %s)", in(r.RFC.Title), in(r.RFC.File), in(orDash(r.RFC.Status)))
	}
	fmt.Fprintln(w, title)
	var lastBundle, lastGate string
	for _, c := range r.Criteria {
		if c.Gate != "" && c.Gate != lastGate {
			fmt.Fprintf(w, "%s:\n", in(c.Gate))
			lastGate = c.Gate
		}
		switch {
		case c.Bundle != nil && r.Gate == "accepted":
			if c.Bundle.File != lastBundle {
				lastBundle = c.Bundle.File
				fmt.Fprintf(w, "bundle %s (sha256 %s, signed %s%s)\n", in(c.Bundle.File), in(c.Bundle.Sha256), in(orDash(c.Bundle.KeyID)), keySuffix(c.Bundle))
			}
			fmt.Fprintf(w, "  %-7s %s: %s — %s\n", c.Status, in(c.ID), in(c.Title), in(c.Reason))
		case c.Requirement != "":
			fmt.Fprintf(w, "%-7s %s %s — %s\n", c.Status, in(c.ID), in(c.Requirement), in(c.Reason))
			if c.Location != nil {
				fmt.Fprintf(w, "        named at %s:%d\n", in(c.Location.File), c.Location.Line)
			}
			if c.Status != gate.Pass {
				shown := 0
				for _, ev := range c.Evidence {
					if shown == 5 {
						fmt.Fprintf(w, "        … %d more row(s) in --format json\n", len(c.Evidence)-shown)
						break
					}
					fmt.Fprintf(w, "        · %s: %s %s (%d assertions)%s\n", in(filepath.Base(ev.Bundle.File)), in(ev.Row), in(ev.Result), ev.Assertions, detailSuffix(ev.Detail))
					shown++
				}
			}
		default:
			prefix := ""
			if c.Gate != "" {
				prefix = "  "
			}
			fmt.Fprintf(w, "%s%-7s %s: %s — %s\n", prefix, c.Status, in(c.ID), in(c.Title), in(c.Reason))
			for _, f := range c.Findings {
				loc := ""
				if f.Location != nil {
					loc = fmt.Sprintf("%s:%d: ", in(f.Location.File), f.Location.Line)
				}
				fmt.Fprintf(w, "%s        %s%s\n", prefix, loc, in(f.Message))
			}
		}
	}
	for _, b := range r.Bundles {
		if b.Verdict == "REJECTED" || b.Verdict == "UNREADABLE" {
			fmt.Fprintf(w, "excluded: %s (sha256 %s): %s\n", in(b.File), in(orDash(b.Sha256)), excludedWhy(b))
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", in(n))
	}
	pass, fail, blocked := counts(r)
	read := ""
	if r.Gate == "accepted" {
		read = fmt.Sprintf(" (%d bundle%s read)", len(r.Bundles), plural(len(r.Bundles)))
	}
	fmt.Fprintf(w, "RESULT: %s — %d criteria: %d pass, %d fail, %d blocked%s\n", r.Status, len(r.Criteria), pass, fail, blocked, read)
}

// excludedWhy, keySuffix and detailSuffix return text ready for a line (Inline).
func excludedWhy(b gate.BundleInfo) string {
	if b.Error != "" {
		return render.Inline(b.Error)
	}
	why := make([]string, len(b.Rejections))
	for i, r := range b.Rejections {
		why[i] = render.Inline(r)
	}
	return "REJECTED — " + strings.Join(why, "; ")
}

func keySuffix(b *gate.BundleRef) string {
	if b.KeyFingerprint == "" {
		return ", no trusted key"
	}
	return ", key " + render.Inline(b.KeyFingerprint) + " from " + render.Inline(b.KeySource)
}

func detailSuffix(d string) string {
	if d == "" {
		return ""
	}
	return " — " + render.Inline(d)
}

func counts(r *gate.Report) (pass, fail, blocked int) {
	for _, c := range r.Criteria {
		switch c.Status {
		case gate.Pass:
			pass++
		case gate.Fail:
			fail++
		default:
			blocked++
		}
	}
	return
}

// annotation is one place a criterion points at.
type annotation struct {
	file    string
	line    int
	title   string
	message string
}

func annotations(c gate.Criterion) []annotation {
	title := c.ID
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

// renderGitHub writes workflow commands: ::error for FAIL, ::warning for BLOCKED,
// placed on the RFC line (or the bundle file), then a plain summary line. Messages
// and properties are escaped by GitHub's rules (render.GitHubData and
// render.GitHubProperty), so no text from a bundle can end a command or start one.
func renderGitHub(w io.Writer, r *gate.Report) {
	for _, c := range r.Criteria {
		if c.Status == gate.Pass {
			continue
		}
		level := "error"
		if c.Status == gate.Blocked {
			level = "warning"
		}
		for _, a := range annotations(c) {
			var props []string
			if a.file != "" {
				props = append(props, "file="+render.GitHubProperty(filepath.ToSlash(a.file)))
				if a.line > 0 {
					props = append(props, fmt.Sprintf("line=%d", a.line))
				}
			}
			props = append(props, "title="+render.GitHubProperty(a.title))
			fmt.Fprintf(w, "::%s %s::%s\n", level, strings.Join(props, ","), render.GitHubData(a.message))
		}
	}
	pass, fail, blocked := counts(r)
	fmt.Fprintf(w, "gate %s %s: %s (%d pass, %d fail, %d blocked)\n", render.Inline(r.Gate), render.Inline(r.Subject), r.Status, pass, fail, blocked)
}

// SARIF 2.1.0, the subset code-scanning tools read.
type sarifDoc struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Kind      string          `json:"kind"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

func sarifLog(reps []*gate.Report) sarifDoc {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "certcut bundle gate", Version: versionString(),
		InformationURI: "https://github.com/certcut/certcut/blob/main/docs/gate.md", Rules: []sarifRule{}}}, Results: []sarifResult{}}
	rules := map[string]bool{}
	for _, r := range reps {
		for _, c := range r.Criteria {
			if !rules[c.ID] {
				rules[c.ID] = true
				run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: c.ID, ShortDescription: sarifMessage{Text: c.Title}})
			}
			kind, level := "pass", "none"
			switch c.Status {
			case gate.Fail:
				kind, level = "fail", "error"
			case gate.Blocked:
				kind, level = "open", "warning"
			}
			for _, a := range annotations(c) {
				res := sarifResult{RuleID: c.ID, Kind: kind, Level: level, Message: sarifMessage{Text: r.Subject + ": " + a.title + ": " + a.message}}
				if a.file != "" {
					loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: filepath.ToSlash(a.file)}}}
					if a.line > 0 {
						loc.PhysicalLocation.Region = &sarifRegion{StartLine: a.line}
					}
					res.Locations = []sarifLocation{loc}
				}
				run.Results = append(run.Results, res)
			}
		}
	}
	return sarifDoc{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}

// JUnit XML: one testsuite per report, one testcase per criterion; FAIL is a
// failure, BLOCKED is skipped with its reason.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Failure *junitMessage `xml:"failure,omitempty"`
	Skipped *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// renderJUnit writes one testsuite per report, then the extra suites.
func renderJUnit(w io.Writer, reps []*gate.Report, extra ...junitSuite) error {
	var doc junitSuites
	for _, r := range reps {
		s := junitSuite{Name: "gate " + r.Gate + " " + r.Subject}
		for _, c := range r.Criteria {
			name := c.Title
			switch {
			case c.Requirement != "":
				name = c.Requirement
			case c.Bundle != nil:
				name = filepath.Base(c.Bundle.File) + ": " + c.Title
			}
			tc := junitCase{Class: c.ID, Name: name}
			body := c.Reason
			for _, f := range c.Findings {
				if f.Location != nil {
					body += fmt.Sprintf("\n%s:%d: %s", f.Location.File, f.Location.Line, f.Message)
				} else {
					body += "\n" + f.Message
				}
			}
			switch c.Status {
			case gate.Fail:
				tc.Failure = &junitMessage{Message: c.Reason, Text: body}
				s.Failures++
			case gate.Blocked:
				tc.Skipped = &junitMessage{Message: "BLOCKED: " + c.Reason, Text: body}
				s.Skipped++
			}
			s.Cases = append(s.Cases, tc)
			s.Tests++
		}
		doc.Suites = append(doc.Suites, s)
	}
	doc.Suites = append(doc.Suites, extra...)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// renderAudit writes an audit: one row per RFC in text; the reports otherwise.
func renderAudit(w io.Writer, format string, a *gate.AuditReport) error {
	if format == "json" {
		return writeJSON(w, a)
	}
	if format == "text" || format == "github" {
		w = render.SafeWriter(w) // the reports quote bundles and RFCs
	}
	if format != "text" {
		var reps []*gate.Report
		for _, row := range a.Rows {
			reps = append(reps, row.Report)
		}
		if format == "github" {
			for _, r := range reps {
				renderGitHub(w, r)
			}
			fmt.Fprintf(w, "gate audit %s: %s (%d Accepted RFCs)\n", render.Inline(a.RFCsDir), a.Status, len(a.Rows))
			return nil
		}
		return renderReports(w, format, reps)
	}
	in := render.Inline
	fmt.Fprintf(w, "gate audit — %s: %d Accepted RFC(s) numbered 0167 or later, %d bundles read, %d RFC file(s) not gated\n", in(a.RFCsDir), len(a.Rows), a.Bundles, a.Skipped)
	for _, row := range a.Rows {
		fmt.Fprintf(w, "%s  %-7s %s\n", in(row.Number), row.Status, in(row.Title))
		wit := "(none)"
		if len(row.Witnesses) > 0 {
			var names []string
			for _, f := range row.Witnesses {
				names = append(names, in(filepath.Base(f)))
			}
			wit = strings.Join(names, ", ")
		}
		fmt.Fprintf(w, "      witnesses: %s\n", wit)
		if len(row.Missing) > 0 {
			missing := make([]string, len(row.Missing))
			for i, m := range row.Missing {
				missing[i] = in(m)
			}
			fmt.Fprintf(w, "      missing:   %s\n", strings.Join(missing, "; "))
		}
	}
	fmt.Fprintf(w, "RESULT: %s\n", a.Status)
	return nil
}
