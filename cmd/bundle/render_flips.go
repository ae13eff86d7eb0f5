package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/render"
)

// renderFlips writes a gate flips report in the chosen format. Every format
// carries the same facts: the Status transitions (gated or not, and why), the
// Accepted report of each RFC flipped to Accepted, and the report on the
// change's bundles and policy files.
func renderFlips(w io.Writer, format string, r *gate.FlipsReport) error {
	reps := flipsReports(r)
	switch format {
	case "json":
		return writeJSON(w, r)
	case "sarif":
		return writeJSON(w, flipsSARIF(r, reps))
	case "junit":
		return renderJUnit(w, reps, flipsJUnitSuite(r))
	case "github":
		w = render.SafeWriter(w) // the reports quote bundles and RFCs
		for _, rep := range reps {
			renderGitHub(w, rep)
		}
		for _, t := range r.Transitions {
			if t.Gated {
				continue
			}
			props := []string{"file=" + render.GitHubProperty(filepath.ToSlash(t.File)), fmt.Sprintf("line=%d", t.Line), "title=" + render.GitHubProperty(transitionTitle(t))}
			fmt.Fprintf(w, "::notice %s::%s\n", strings.Join(props, ","), render.GitHubData("not gated: "+t.Why))
		}
		fmt.Fprintln(w, flipsSummary(r))
		return nil
	}
	renderFlipsText(render.SafeWriter(w), r)
	return nil
}

// flipsReports are the reports with criteria: each Accepted report, then the
// changes report when it has any.
func flipsReports(r *gate.FlipsReport) []*gate.Report {
	reps := append([]*gate.Report{}, r.Reports...)
	if r.Changes != nil && len(r.Changes.Criteria) > 0 {
		reps = append(reps, r.Changes)
	}
	return reps
}

func transitionTitle(t gate.Transition) string {
	return fmt.Sprintf("RFC %s %s → %s", orDash(t.Number), orDash(t.From), orDash(t.To))
}

// flipsSummary is the last line of the text and github formats.
func flipsSummary(r *gate.FlipsReport) string {
	gated, notGated := 0, 0
	for _, t := range r.Transitions {
		if t.Gated {
			gated++
		} else {
			notGated++
		}
	}
	checked := 0
	if r.Changes != nil {
		checked = len(r.Changes.Criteria)
	}
	return fmt.Sprintf("gate flips %s..%s: %s — %d flip(s) to Accepted gated, %d Status change(s) not gated, %d check(s) on the change's evidence and policy",
		short12(r.MergeBase), short12(r.Head.Commit), r.Status, gated, notGated, checked)
}

// renderFlipsText is the reviewer's view: the transitions, each gated RFC's
// report as gate accepted prints it, the change's bundles, notes, and the
// summary. Interpolated values go through render.Inline.
func renderFlipsText(w io.Writer, r *gate.FlipsReport) {
	in := render.Inline
	fmt.Fprintf(w, "gate flips — base %s (%s) → head %s (%s), compared from %s\n", in(r.Base.Ref), short12(r.Base.Commit), in(r.Head.Ref), short12(r.Head.Commit), short12(r.MergeBase))
	fmt.Fprintf(w, "%d RFC Status change(s):\n", len(r.Transitions))
	for _, t := range r.Transitions {
		verdict := "not gated"
		if t.Gated {
			verdict = "gated: " + string(t.Status)
		}
		renamed := ""
		if t.BaseFile != "" {
			renamed = " (renamed from " + in(t.BaseFile) + ")"
		}
		fmt.Fprintf(w, "  RFC %s %s:%d%s  %s → %s  %s — %s\n", in(orDash(t.Number)), in(t.File), t.Line, renamed, in(orDash(t.From)), in(orDash(t.To)), verdict, in(t.Why))
	}
	for _, rep := range r.Reports {
		fmt.Fprintln(w)
		renderGateText(w, rep)
	}
	if len(r.Bundles) > 0 || (r.Changes != nil && len(r.Changes.Criteria) > 0) {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "the change's evidence and policy: %d bundle file(s) under evidence/\n", len(r.Bundles))
		for _, b := range r.Bundles {
			renamed := ""
			if b.BaseFile != "" {
				renamed = " (from " + in(b.BaseFile) + ")"
			}
			status := ""
			if b.Status != "" {
				status = "  " + string(b.Status)
			}
			fmt.Fprintf(w, "  %-8s %s%s%s\n", b.Change, in(b.File), renamed, status)
		}
		if r.Changes != nil {
			for _, c := range r.Changes.Criteria {
				where := ""
				if c.Location != nil {
					where = " " + in(c.Location.File)
					if c.Location.Line > 0 {
						where += fmt.Sprintf(":%d", c.Location.Line)
					}
				}
				fmt.Fprintf(w, "%-7s %s%s — %s\n", c.Status, in(c.ID), where, in(c.Reason))
				for _, f := range c.Findings {
					fmt.Fprintf(w, "        %s\n", in(f.Message))
				}
			}
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", in(n))
	}
	fmt.Fprintln(w, flipsSummary(r))
}

// flipsSARIF is the reports' SARIF log with one more result per Status change
// not gated (kind notApplicable), on its Status line.
func flipsSARIF(r *gate.FlipsReport, reps []*gate.Report) sarifDoc {
	doc := sarifLog(reps)
	run := &doc.Runs[0]
	for _, t := range r.Transitions {
		if t.Gated {
			continue
		}
		if !hasRule(run.Tool.Driver.Rules, "flips.not-gated") {
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: "flips.not-gated", ShortDescription: sarifMessage{Text: "an RFC Status change that is not a flip to Accepted"}})
		}
		run.Results = append(run.Results, sarifResult{RuleID: "flips.not-gated", Kind: "notApplicable", Level: "none",
			Message:   sarifMessage{Text: transitionTitle(t) + ": not gated: " + t.Why},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: filepath.ToSlash(t.File)}, Region: &sarifRegion{StartLine: t.Line}}}}})
	}
	return doc
}

func hasRule(rules []sarifRule, id string) bool {
	for _, r := range rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// flipsJUnitSuite is one testcase per Status change: a gated flip fails or is
// skipped as its report does; a change not gated is skipped with why.
func flipsJUnitSuite(r *gate.FlipsReport) junitSuite {
	s := junitSuite{Name: "gate flips " + short12(r.MergeBase) + ".." + short12(r.Head.Commit)}
	for _, t := range r.Transitions {
		tc := junitCase{Class: "flips.transition", Name: transitionTitle(t) + " (" + t.File + ")"}
		switch {
		case !t.Gated:
			tc.Skipped = &junitMessage{Message: "not gated: " + t.Why}
			s.Skipped++
		case t.Status == gate.Fail:
			tc.Failure = &junitMessage{Message: "the Accepted predicate FAILs", Text: t.Why}
			s.Failures++
		case t.Status == gate.Blocked:
			tc.Skipped = &junitMessage{Message: "BLOCKED: the Accepted predicate could not be decided", Text: t.Why}
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	return s
}
