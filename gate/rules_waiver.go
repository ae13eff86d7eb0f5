package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/gate/rfc"
)

// The waiver retrospective register (RFC 0156 §B;
// scripts/check-waiver-retrospective.mjs): every RFC whose comment window was
// waived has a row with a legal outcome, and no row names an RFC that was not.
const (
	CritWaiverRegister RuleID = "rfc.waiver-register"
	CritWaiverAudit    RuleID = "waiver.register"
	CritWaiverAbsent   RuleID = "waiver.register-absent"
	waiverScript              = "scripts/check-waiver-retrospective.mjs"
)

func init() {
	declare(func() {
		register(
			Rule{ID: CritWaiverRegister, Title: "a waived comment window has a register row with a legal outcome",
				Source: "RFC 0156 §B; " + waiverScript,
				Gates:  []string{"accepted", "audit", "flips"}, Anchor: coherenceAnchor},
			Rule{ID: CritWaiverAudit, Title: "the waiver retrospective register has a legal row for every waived RFC and no other",
				Source: "RFC 0156 §B; " + waiverScript + " (stricter: a missing register is BLOCKED with the reason; a row for an RFC absent from RFCS/ says so)",
				Gates:  []string{"audit"}, Anchor: coherenceAnchor},
			Rule{ID: CritWaiverAbsent, Title: "the repository has docs/WAIVER-RETROSPECTIVE-REGISTER.md for a waived RFC",
				Source:   "RFC 0156 §B; " + waiverScript + " (the script fails without the register; here a warning for one RFC, and gate audit's waiver.register is BLOCKED)",
				Severity: SeverityWarning, Gates: []string{"accepted", "flips"}, Anchor: coherenceAnchor},
		)
	})
}

// waiverOutcomeOK checks one register row's outcome and reviewer.
func waiverRowProblem(row rfc.WaiverRow) string {
	if !contains(rfc.WaiverOutcomes, row.Outcome) {
		return fmt.Sprintf("outcome `%s` is not one of %s", row.Outcome, strings.Join(rfc.WaiverOutcomes, ", "))
	}
	if row.Outcome != "not-reviewed" && (row.Reviewer == "" || strings.Trim(row.Reviewer, "—–- ") == "") {
		return fmt.Sprintf("outcome `%s` names no reviewer: name the reviewing organisation", row.Outcome)
	}
	return ""
}

// lastRows maps each RFC number to its last register row (later rows win, as
// in the reference check).
func lastRows(rows []rfc.WaiverRow) map[string]rfc.WaiverRow {
	out := map[string]rfc.WaiverRow{}
	for _, r := range rows {
		out[r.Number] = r
	}
	return out
}

// waiverCriterion checks one RFC against the register.
func waiverCriterion(g *governance, x *rfc.RFC) Criterion {
	r := rule(CritWaiverRegister)
	waived := x.WaivedLine
	reg := &Location{File: g.waiverPath, Line: 1}
	if g.waiverErr != nil {
		if waived == 0 {
			return r.Criterion(Result{Status: Pass, Reason: "its text never says the comment window was waived, so it needs no register row", Location: &Location{File: x.File, Line: 1}})
		}
		if errors.Is(g.waiverErr, fs.ErrNotExist) {
			return rule(CritWaiverAbsent).Criterion(Result{Status: Blocked,
				Reason:   fmt.Sprintf("its text says the comment window was waived (line %d), but %s does not exist, so whether its RFC 0156 §B retrospective is registered cannot be checked", waived, g.waiverPath),
				Location: &Location{File: x.File, Line: waived}})
		}
		return r.Criterion(Result{Status: Blocked, Reason: fmt.Sprintf("the waiver register cannot be read: %v", g.waiverErr), Location: reg})
	}
	row, has := lastRows(g.waiverRows)[x.Number]
	switch {
	case waived == 0 && !has:
		return r.Criterion(Result{Status: Pass, Reason: "its text never says the comment window was waived, and the register has no row for it", Location: &Location{File: x.File, Line: 1}})
	case waived == 0:
		return r.Criterion(Result{Status: Fail, Reason: fmt.Sprintf("%s line %d has a row for RFC %s, whose text never says its comment window was waived: remove the row, or record the waiver in the RFC", filepath.Base(g.waiverPath), row.Line, x.Number),
			Location: &Location{File: g.waiverPath, Line: row.Line}})
	case !has:
		return r.Criterion(Result{Status: Fail, Reason: fmt.Sprintf("its text says the comment window was waived (line %d), but %s has no row for RFC %s: add | %s | … | `not-reviewed` | until the retrospective is done", waived, g.waiverPath, x.Number, x.Number),
			Location: &Location{File: x.File, Line: waived}})
	}
	if p := waiverRowProblem(row); p != "" {
		return r.Criterion(Result{Status: Fail, Reason: fmt.Sprintf("the register row for RFC %s (line %d): %s", x.Number, row.Line, p), Location: &Location{File: g.waiverPath, Line: row.Line}})
	}
	return r.Criterion(Result{Status: Pass, Reason: fmt.Sprintf("waived (line %d) and registered: outcome `%s` (%s line %d)", waived, row.Outcome, filepath.Base(g.waiverPath), row.Line),
		Location: &Location{File: g.waiverPath, Line: row.Line}})
}

// waiverAuditCriterion checks the whole register against every RFC of the
// repository.
func waiverAuditCriterion(g *governance) Criterion {
	r := rule(CritWaiverAudit)
	if g.waiverErr != nil {
		why := fmt.Sprintf("the waiver register cannot be read: %v", g.waiverErr)
		if errors.Is(g.waiverErr, fs.ErrNotExist) {
			why = fmt.Sprintf("%s does not exist: the RFC 0156 §B register of the %d RFC(s) whose comment window was waived cannot be checked", g.waiverPath, len(g.waived))
		}
		return r.Criterion(Result{Status: Blocked, Reason: why, Location: &Location{File: g.waiverPath, Line: 1}})
	}
	rows := lastRows(g.waiverRows)
	var t tally
	waivedNums := map[string]bool{}
	missing, extra, absent := 0, 0, 0
	for _, x := range g.rfcs {
		l := g.waived[x.File]
		if l == 0 {
			continue
		}
		waivedNums[x.Number] = true
		if _, ok := rows[x.Number]; !ok {
			missing++
			t.failf(&Location{File: x.File, Line: l}, "RFC %s's comment window was waived (line %d) and the register has no row for it", x.Number, l)
		}
	}
	outcomes := map[string]int{}
	for _, row := range g.waiverRows {
		if rows[row.Number].Line != row.Line {
			continue // a later row for the same RFC wins
		}
		outcomes[row.Outcome]++
		loc := &Location{File: g.waiverPath, Line: row.Line}
		if p := waiverRowProblem(row); p != "" {
			t.failf(loc, "RFC %s: %s", row.Number, p)
		}
		if waivedNums[row.Number] {
			continue
		}
		extra++
		if len(g.byNumber[row.Number]) == 0 {
			absent++
			t.failf(loc, "the row names RFC %s, whose file is absent from %s: no waiver can be read for it", row.Number, g.rfcsDir)
		} else {
			t.failf(loc, "the row names RFC %s, whose text never says its comment window was waived", row.Number)
		}
	}
	var counts []string
	for _, o := range rfc.WaiverOutcomes {
		counts = append(counts, fmt.Sprintf("%s %d", o, outcomes[o]))
	}
	summary := fmt.Sprintf("%d waived RFC(s), %d row(s) (%s); %d of them discharge (ratified); %d waived RFC(s) without a row, %d row(s) for RFCs not waived (%d of those absent from RFCS/)",
		len(waivedNums), len(rows), strings.Join(counts, ", "), outcomes["ratified"], missing, extra, absent)
	res := t.result(summary)
	if res.Status != Pass {
		res.Reason = summary + "; first: " + res.Findings[0].Message
	}
	res.Location = &Location{File: g.waiverPath, Line: 1}
	return r.Criterion(res)
}
