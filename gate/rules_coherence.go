package gate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/certcut/certcut/gate/rfc"
)

// The status-coherence rules (RFC 0174 §A/§C/§D; scripts/check-rfc-status-coherence.mjs):
// a supersession is recorded on both RFCs, a Stable spec page cites only
// Accepted RFCs, and registers live under RFCS/registers/.
const (
	CritSupersession        RuleID = "rfc.supersession"
	CritSupersededBy        RuleID = "rfc.superseded-by"
	CritStableBanner        RuleID = "rfc.stable-banner"
	CritRegistersPlace      RuleID = "registers.location"
	coherenceScript                = "scripts/check-rfc-status-coherence.mjs"
	coherenceAnchor                = "rules-and-their-sources"
	supersessionRemedy             = "the change that accepts an RFC sets each RFC it supersedes to `Superseded` with `Superseded by` naming it (RFC 0174 §A)"
	partialSupersessionHint        = "; a cell naming a section (§) still supersedes the whole RFC: write `— (amends RFC NNNN §…)` when only a section is amended"
)

func init() {
	declare(func() {
		register(
			Rule{ID: CritSupersession, Title: "every RFC it supersedes is `Superseded`, its `Superseded by` naming this RFC",
				Source: "RFC 0174 §A; " + coherenceScript + " rules 1 and 1b (stricter: a superseded RFC absent from RFCS/ is BLOCKED, not skipped)",
				Gates:  []string{"accepted", "audit", "flips"}, Anchor: coherenceAnchor},
			Rule{ID: CritSupersededBy, Title: "a `Superseded` RFC's `Superseded by` names the Accepted RFC that supersedes it",
				Source: "RFC 0174 §A; " + coherenceScript + " rule 1b (stricter: the successor must exist, be Accepted and name it in Supersedes)",
				Gates:  []string{"audit", "flips"}, Anchor: coherenceAnchor},
			Rule{ID: CritStableBanner, Title: "a spec/v2 `Status: Stable` banner cites only Accepted RFCs",
				Source: "RFC 0174 §D; " + coherenceScript + " rule 1c (stricter: a cited RFC absent from RFCS/ is BLOCKED, not skipped)",
				Gates:  []string{"audit", "flips"}, Anchor: coherenceAnchor},
			Rule{ID: CritRegistersPlace, Title: "gap and risk registers live under RFCS/registers/",
				Source: "RFC 0166 §A; " + coherenceScript + " rule 2",
				Gates:  []string{"audit"}, Anchor: coherenceAnchor},
		)
	})
}

// tally turns findings into a status: FAIL if any failed, else BLOCKED if any
// could not be decided, else PASS.
type tally struct {
	fail, blocked []Finding
}

func (t *tally) failf(loc *Location, format string, args ...any) {
	t.fail = append(t.fail, Finding{Message: fmt.Sprintf(format, args...), Location: loc})
}

func (t *tally) blockf(loc *Location, format string, args ...any) {
	t.blocked = append(t.blocked, Finding{Message: fmt.Sprintf(format, args...), Location: loc})
}

func (t *tally) result(pass string) Result {
	switch {
	case len(t.fail) > 0:
		return Result{Status: Fail, Reason: summarize(t.fail), Findings: append(t.fail, t.blocked...)}
	case len(t.blocked) > 0:
		return Result{Status: Blocked, Reason: summarize(t.blocked), Findings: t.blocked}
	}
	return Result{Status: Pass, Reason: pass}
}

func summarize(fs []Finding) string {
	if len(fs) == 1 {
		return fs[0].Message
	}
	return fmt.Sprintf("%d findings; first: %s", len(fs), fs[0].Message)
}

// at is the location of a header field, falling back to the Status row and
// then line 1.
func at(x *rfc.RFC, f rfc.Field) *Location {
	line := f.Line
	if line == 0 {
		line = x.StatusLine
	}
	if line == 0 {
		line = 1
	}
	return &Location{File: x.File, Line: line}
}

// supersessionCriterion checks, for x taken as Accepted, that every RFC its
// Supersedes row names is Superseded with a Superseded by naming x.
func supersessionCriterion(g *governance, x *rfc.RFC) Criterion {
	loc := at(x, x.Supersedes)
	r := rule(CritSupersession)
	if x.Supersedes.Line == 0 {
		return r.Criterion(Result{Status: Pass, Reason: "the header has no Supersedes row: the RFC supersedes nothing", Location: loc})
	}
	targets, exempt := rfc.SupersedesTargets(x.Supersedes.Value)
	if exempt || len(targets) == 0 {
		return r.Criterion(Result{Status: Pass, Reason: fmt.Sprintf("Supersedes %q names no superseded RFC (a dash, or an amendment)", clipReason(x.Supersedes.Value)), Location: loc})
	}
	hint := ""
	if strings.Contains(x.Supersedes.Value, "§") {
		hint = partialSupersessionHint
	}
	var t tally
	for _, n := range targets {
		if n == x.Number {
			t.failf(loc, "RFC %s names itself in Supersedes", n)
			continue
		}
		y, why := g.lookup(n)
		if y == nil {
			t.blockf(loc, "RFC %s supersedes RFC %s (line %d), but %s: whether RFC %s is Superseded cannot be checked; add its file, or write `— (…)` if it is not superseded", x.Number, n, loc.Line, why, n)
			continue
		}
		yloc := at(y, y.StatusField)
		if y.Status != rfc.StatusSuperseded {
			t.failf(yloc, "RFC %s supersedes RFC %s (%s line %d), but RFC %s is `%s`, not `Superseded`: %s%s", x.Number, n, x.File, loc.Line, n, y.Status, supersessionRemedy, hint)
		}
		by := y.SupersededBy
		switch _, blank := rfc.SupersededByTargets(by.Value); {
		case by.Line == 0 || blank:
			t.failf(at(y, by), "RFC %s's `Superseded by` is blank, but RFC %s supersedes it: write RFC %s there", n, x.Number, x.Number)
		case !rfc.NamesRFC(by.Value, x.Number):
			t.failf(at(y, by), "RFC %s's `Superseded by` (%q) does not name RFC %s, which supersedes it", n, clipReason(by.Value), x.Number)
		}
	}
	res := t.result(fmt.Sprintf("every RFC it supersedes (%s) is `Superseded` by RFC %s", strings.Join(targets, ", "), x.Number))
	res.Location = loc
	return r.Criterion(res)
}

// supersededByFindings checks a Superseded RFC's forward pointer.
func supersededByFindings(g *governance, y *rfc.RFC, t *tally) {
	by := y.SupersededBy
	loc := at(y, by)
	succ, blank := rfc.SupersededByTargets(by.Value)
	switch {
	case by.Line == 0 || blank:
		t.failf(loc, "RFC %s is `Superseded` but its `Superseded by` is blank: name the RFC that supersedes it", y.Number)
		return
	case len(succ) == 0:
		t.failf(loc, "RFC %s is `Superseded` but its `Superseded by` (%q) names no RFC number", y.Number, clipReason(by.Value))
		return
	}
	for _, n := range succ {
		s, why := g.lookup(n)
		if s == nil {
			t.blockf(loc, "RFC %s is `Superseded by` RFC %s, but %s", y.Number, n, why)
			continue
		}
		if s.Status != rfc.StatusAccepted {
			t.failf(loc, "RFC %s is `Superseded by` RFC %s, which is `%s`: an RFC is superseded in the change that accepts its successor (RFC 0174 §A)", y.Number, n, orDash(string(s.Status)))
		}
		if targets, _ := rfc.SupersedesTargets(s.Supersedes.Value); !contains(targets, y.Number) {
			t.failf(at(s, s.Supersedes), "RFC %s is `Superseded by` RFC %s, whose Supersedes row (%q) does not name RFC %s", y.Number, n, clipReason(s.Supersedes.Value), y.Number)
		}
	}
}

// supersededByCriterion checks the Superseded RFCs among xs (all of g's when
// xs is nil).
func supersededByCriterion(g *governance, xs []*rfc.RFC) Criterion {
	if xs == nil {
		xs = g.rfcs
	}
	var t tally
	var names []string
	for _, y := range xs {
		if y.Status == rfc.StatusSuperseded {
			names = append(names, y.Number)
			supersededByFindings(g, y, &t)
		}
	}
	pass := "no RFC is `Superseded`"
	if len(names) > 0 {
		pass = fmt.Sprintf("each Superseded RFC (%s) names its Accepted successor, which names it back", strings.Join(names, ", "))
	}
	return rule(CritSupersededBy).Criterion(t.result(pass))
}

// stableBannerCriterion checks the spec/v2 Stable banners' citations; only
// citations of the numbers in only when it is not nil.
func stableBannerCriterion(g *governance, only map[string]bool) Criterion {
	r := rule(CritStableBanner)
	if g.bannersErr != nil {
		return r.Criterion(Result{Status: Blocked, Reason: fmt.Sprintf("the spec/v2 pages cannot be read: %v", g.bannersErr)})
	}
	var t tally
	stable, cites := 0, 0
	for _, b := range g.banners {
		if !b.Stable {
			continue
		}
		stable++
		loc := &Location{File: b.File, Line: b.Line}
		for _, n := range b.Cites {
			if only != nil && !only[n] {
				continue
			}
			cites++
			x, why := g.lookup(n)
			if x == nil {
				t.blockf(loc, "the Stable banner cites RFC %s, but %s", n, why)
				continue
			}
			if x.Status != rfc.StatusAccepted {
				t.failf(loc, "the Stable banner cites RFC %s, which is `%s` (%s line %d): a Stable page rests only on Accepted RFCs; cite it once it is Accepted, or mark the page Draft", n, x.Status, x.File, x.StatusLine)
			}
		}
	}
	pass := fmt.Sprintf("%d Stable banner(s) under spec/v2 cite %d RFC(s), all Accepted", stable, cites)
	if only != nil {
		var ns []string
		for n := range only {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		pass = fmt.Sprintf("%d citation(s) of RFC %s in spec/v2 Stable banners, all Accepted", cites, strings.Join(ns, ", "))
	}
	return r.Criterion(t.result(pass))
}

// registersPlaceCriterion FAILs each register directly in RFCS/.
func registersPlaceCriterion(files []rfc.RegisterFile) Criterion {
	var t tally
	for _, f := range files {
		if f.Legacy {
			t.failf(&Location{File: f.File, Line: 1}, "%s lies directly in RFCS/: move it to RFCS/registers/", f.File)
		}
	}
	return rule(CritRegistersPlace).Criterion(t.result(fmt.Sprintf("all %d register(s) lie under RFCS/registers/", len(files))))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// clipReason shortens a value quoted in a reason.
func clipReason(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return s
}
