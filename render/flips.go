package render

import (
	"fmt"
	"io"

	"github.com/certcut/certcut/gate"
)

// WriteFlips writes a gate flips report in opts.Format. Every format carries the
// same facts: the Status transitions (gated or not, and why), the Accepted
// report of each RFC flipped to Accepted, and the report on the change's bundles
// and policy files.
func WriteFlips(w io.Writer, r *gate.FlipsReport, opts GateOptions) error {
	reps := flipsReports(r)
	switch opts.Format {
	case JSON:
		return WriteJSON(w, r)
	case SARIF:
		return WriteFlipsSARIF(w, r, opts.Version)
	case JUnit:
		return writeJUnit(w, reps, flipsJUnitSuite(r))
	case GitHub:
		sw := SafeWriter(w) // the reports quote bundles and RFCs
		for _, rep := range reps {
			writeGitHub(sw, rep)
		}
		for _, t := range r.Transitions {
			if !t.Gated {
				writeCommand(sw, "notice", t.File, t.Line, transitionTitle(t), "not gated: "+t.Why)
			}
		}
		fmt.Fprintln(sw, flipsSummary(r))
		return sw.(*safeWriter).err
	}
	lw := newLineWriter(w, opts.Color)
	if opts.Quiet && r.Status == gate.Pass {
		return nil
	}
	writeFlipsText(lw, r, opts.Quiet)
	return lw.err()
}

// WriteFlipsSARIF writes the SARIF log of a gate flips report (gate flips
// --sarif FILE writes it whatever --format says).
func WriteFlipsSARIF(w io.Writer, r *gate.FlipsReport, version string) error {
	doc := sarifLog(flipsReports(r), version)
	run := &doc.Runs[0]
	for _, t := range r.Transitions {
		if t.Gated {
			continue
		}
		run.addRule("flips.not-gated", "an RFC Status change that is not a flip to Accepted")
		run.Results = append(run.Results, sarifResult{RuleID: "flips.not-gated", Kind: "notApplicable", Level: "none",
			Message:   sarifMessage{Text: transitionTitle(t) + ": not gated: " + t.Why},
			Locations: []sarifLocation{sarifAt(t.File, t.Line)}})
	}
	return WriteJSON(w, doc)
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
		Short(r.MergeBase), Short(r.Head.Commit), r.Status, gated, notGated, checked)
}

// Short is the first 12 characters of a digest or commit id.
func Short(s string) string { return prefix(s, 12) }

// writeFlipsText is the reviewer's view: the transitions, each gated RFC's
// report as gate accepted prints it, the change's bundles, notes, and the
// summary. Interpolated values go through Inline.
func writeFlipsText(w *lineWriter, r *gate.FlipsReport, quiet bool) {
	in := Inline
	w.printf("gate flips — base %s (%s) → head %s (%s), compared from %s\n", in(r.Base.Ref), Short(r.Base.Commit), in(r.Head.Ref), Short(r.Head.Commit), Short(r.MergeBase))
	w.printf("%d RFC Status change(s):\n", len(r.Transitions))
	for _, t := range r.Transitions {
		renamed := ""
		if t.BaseFile != "" {
			renamed = " (renamed from " + in(t.BaseFile) + ")"
		}
		w.printf("  RFC %s %s:%d%s  %s → %s  ", in(orDash(t.Number)), in(t.File), t.Line, renamed, in(orDash(t.From)), in(orDash(t.To)))
		if t.Gated {
			w.printf("gated: ")
			w.painted(statusColor(t.Status), string(t.Status))
		} else {
			w.printf("not gated")
		}
		w.printf(" — %s\n", in(t.Why))
	}
	if len(r.ExtTransitions) > 0 {
		w.printf("%d extension README Status change(s):\n", len(r.ExtTransitions))
		for _, t := range r.ExtTransitions {
			w.printf("  ext/%s %s:%d  %s → %s  ", in(t.Dir), in(t.File), t.Line, in(orDash(t.From)), in(orDash(t.To)))
			if t.Gated {
				w.printf("gated: ")
				w.painted(statusColor(t.Status), string(t.Status))
			} else {
				w.printf("not gated")
			}
			w.printf(" — %s\n", in(t.Why))
		}
	}
	for _, rep := range r.Reports {
		w.printf("\n")
		writeGateText(w, rep, quiet)
	}
	if len(r.Bundles) > 0 || (r.Changes != nil && len(r.Changes.Criteria) > 0) {
		w.printf("\nthe change's evidence and policy: %d bundle file(s) under evidence/\n", len(r.Bundles))
		for _, b := range r.Bundles {
			renamed := ""
			if b.BaseFile != "" {
				renamed = " (from " + in(b.BaseFile) + ")"
			}
			w.printf("  %-8s %s%s", b.Change, in(b.File), renamed)
			if b.Status != "" {
				w.printf("  ")
				w.painted(statusColor(b.Status), string(b.Status))
			}
			w.printf("\n")
		}
		if r.Changes != nil {
			for _, c := range r.Changes.Criteria {
				if quiet && c.Status == gate.Pass {
					continue
				}
				where := ""
				if c.Location != nil {
					where = " " + in(c.Location.File)
					if c.Location.Line > 0 {
						where += fmt.Sprintf(":%d", c.Location.Line)
					}
				}
				w.status(c.Status)
				w.printf(" %s%s — %s\n", in(string(c.ID)), where, in(c.Reason))
				for _, f := range c.Findings {
					w.printf("        %s\n", in(f.Message))
				}
			}
		}
	}
	if !quiet {
		for _, n := range r.Notes {
			w.printf("note: %s\n", in(n))
		}
	}
	w.printf("%s\n", flipsSummary(r))
}

// flipsJUnitSuite is one testcase per Status change: a gated flip fails (FAIL)
// or errs (BLOCKED: it could not be decided) as its report does; a change not
// gated is skipped with why.
func flipsJUnitSuite(r *gate.FlipsReport) junitSuite {
	s := junitSuite{Name: "gate flips " + Short(r.MergeBase) + ".." + Short(r.Head.Commit)}
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
			tc.Error = &junitMessage{Type: "BLOCKED", Message: "BLOCKED: the Accepted predicate could not be decided", Text: t.Why}
			s.Errors++
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	return s
}
