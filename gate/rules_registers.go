package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/lazyre"
	"github.com/certcut/certcut/internal/limitedfile"
)

// The register rules (RFC 0166 §A/§C; scripts/registers-lib.mjs and
// scripts/check-registers.mjs): every gap and risk row states a resolution
// token from its kind's closed vocabulary, an open gap row does not outlive
// its RFC, and the open counts do not rise past docs/witness-baseline.json.
const (
	CritRegisterTokens   RuleID = "registers.tokens"
	CritRegisterCarried  RuleID = "registers.carried"
	CritRegisterTerminal RuleID = "registers.terminal-open"
	CritRegisterRatchet  RuleID = "registers.ratchet"
	CritRegisterHeadroom RuleID = "registers.ratchet-headroom"
	// CritSelfCarry: a gap row of a terminal RFC that carries itself
	// (carried:openwop.gap.<its RFC>.<its number>) is a ratchet, and is refused
	// when its prose says CLOSED.
	CritSelfCarry   RuleID = "registers.self-carry"
	registersScript        = "scripts/check-registers.mjs, scripts/registers-lib.mjs"
)

func init() {
	declare(func() {
		audit := []string{"audit"}
		register(
			Rule{ID: CritRegisterTokens, Title: "every gap and risk row states a resolution token of its kind",
				Source: "RFC 0166 §A.1; " + registersScript, Gates: audit, Anchor: coherenceAnchor},
			Rule{ID: CritRegisterCarried, Title: "every carried:<gap-id> names a gap of spec/v1/gaps.json",
				Source: "RFC 0166 §A.1; " + registersScript + " (stricter on a missing input: BLOCKED once, where the script fails every carried row)", Gates: audit, Anchor: coherenceAnchor},
			Rule{ID: CritRegisterTerminal, Title: "no `open` gap row on an Accepted, Superseded, Withdrawn or Rejected RFC",
				Source: "RFC 0166 §A, RFC 0174 §B.1 rule 2; " + registersScript, Gates: audit, Anchor: coherenceAnchor},
			Rule{ID: CritRegisterRatchet, Title: "open gap and risk rows within docs/witness-baseline.json's ratchets",
				Source: "RFC 0166 §C; scripts/check-registers.mjs (openGaps, openRisks)", Gates: audit, Anchor: coherenceAnchor},
			Rule{ID: CritSelfCarry, Title: "no gap row of a terminal RFC carries itself while its prose says CLOSED; self-carried rows within the selfCarried ratchet",
				Source: "RFC 0174 §C.2; " + coherenceScript + " rule 3 (stricter: registers directly in RFCS/ count too, and a row whose RFC's Status cannot be told is BLOCKED)", Gates: audit, Anchor: coherenceAnchor},
			Rule{ID: CritRegisterHeadroom, Title: "the ratchets are at the open counts (no headroom left to rise into)",
				Source:   "RFC 0166 §C (counts may only go down); certcut: a warning, the script has no such check",
				Severity: SeverityWarning, Gates: audit, Anchor: coherenceAnchor},
		)
	})
}

// registerCriteria runs the register rules over rfcsDir's registers; notes are
// facts for the report.
func registerCriteria(g *governance) (crits []Criterion, notes []string) {
	files, rows, err := rfc.ReadRegisters(g.rfcsDir)
	if err != nil {
		for _, id := range []RuleID{CritRegistersPlace, CritRegisterTokens, CritRegisterCarried, CritRegisterTerminal} {
			crits = append(crits, rule(id).Criterion(Result{Status: Blocked, Reason: fmt.Sprintf("the registers cannot be read: %v", err)}))
		}
		return crits, nil
	}
	crits = append(crits, registersPlaceCriterion(files))

	// Tokens: missing, not of the kind, an argument-taking one without it.
	var tok tally
	counts := map[string]map[string]int{rfc.KindGaps: {}, rfc.KindRisks: {}}
	spellings := map[string]int{}
	var carried []rfc.ResolutionRow
	for _, row := range rows {
		loc := &Location{File: row.File, Line: row.Line}
		switch {
		case row.Token == "":
			tok.failf(loc, "%s row %s states no resolution token at the head of its resolution cell (%q): write one of %s", row.Kind, row.ID, row.Cell, vocab(row.Kind))
			continue
		case !rfc.ValidToken(row.Kind, row.Token):
			tok.failf(loc, "%s row %s: `%s` is not a %s token (%s)", row.Kind, row.ID, row.Token, row.Kind, vocab(row.Kind))
			continue
		case rfc.TokenTakesArg(row.Token) && row.Arg == "":
			tok.failf(loc, "%s row %s: `%s` needs its argument (`%s:<…>`)", row.Kind, row.ID, row.Token, row.Token)
			continue
		}
		counts[row.Kind][row.Token]++
		spellings[row.Spelling]++
		if row.Token == "carried" {
			carried = append(carried, row)
		}
	}
	summary := fmt.Sprintf("%d register(s), %d row(s): gaps %s; risks %s; spelled %d backticked, %d bold, %d bare",
		len(files), len(rows), countList(counts[rfc.KindGaps], rfc.GapTokens), countList(counts[rfc.KindRisks], rfc.RiskTokens),
		spellings["backticked"], spellings["bold"], spellings["bare"])
	res := tok.result(summary)
	if res.Status != Pass {
		res.Reason = summary + "; " + res.Reason
	}
	crits = append(crits, rule(CritRegisterTokens).Criterion(res))

	// carried:<gap-id> against spec/v1/gaps.json.
	crits = append(crits, carriedCriterion(g, carried))

	// An open gap row on a terminal RFC.
	var term tally
	for _, row := range rows {
		if row.Kind != rfc.KindGaps || row.Token != "open" {
			continue
		}
		num := row.Number
		x, why := g.lookup(num)
		loc := &Location{File: row.File, Line: row.Line}
		switch {
		case x == nil:
			term.blockf(loc, "open gap row %s: %s, so whether the RFC is terminal cannot be told", row.ID, why)
		case isTerminal(x.Status):
			term.failf(loc, "open gap row %s on RFC %s, which is `%s`: resolve it (closed, transferred:<to>, carried:<gap-id>, externally-gated:<by>) before the RFC leaves Active", row.ID, num, x.Status)
		}
	}
	crits = append(crits, rule(CritRegisterTerminal).Criterion(term.result(fmt.Sprintf("%d open gap row(s), none on a terminal RFC", counts[rfc.KindGaps]["open"]))))

	// Ratchets.
	bpath := filepath.Join(g.root, "docs", "witness-baseline.json")
	b, err := readBaseline(bpath)
	crits = append(crits, selfCarryCriterion(g, rows, b, bpath))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		notes = append(notes, fmt.Sprintf("%s does not exist: no ratchet applies; %d open gap row(s), %d open risk row(s)", bpath, counts[rfc.KindGaps]["open"], counts[rfc.KindRisks]["open"]))
	case err != nil:
		crits = append(crits, rule(CritRegisterRatchet).Criterion(Result{Status: Blocked, Reason: fmt.Sprintf("the baseline cannot be read: %v", err), Location: &Location{File: bpath, Line: 1}}))
	default:
		var over, head tally
		var parts []string
		for _, k := range []struct {
			name  string
			limit *int
			n     int
		}{{"openGaps", b.OpenGaps, counts[rfc.KindGaps]["open"]}, {"openRisks", b.OpenRisks, counts[rfc.KindRisks]["open"]}} {
			if k.limit == nil {
				parts = append(parts, fmt.Sprintf("%s %d (no ratchet)", k.name, k.n))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %d of %d", k.name, k.n, *k.limit))
			loc := &Location{File: bpath, Line: 1}
			if k.n > *k.limit {
				over.failf(loc, "%d open row(s) exceed the %s ratchet of %d: resolve %d, or raise the baseline in a reviewed change that says why", k.n, k.name, *k.limit, k.n-*k.limit)
			} else if k.n < *k.limit {
				head.failf(loc, "%s is %d but only %d row(s) are open: lower the ratchet to %d so the count cannot rise in silence", k.name, *k.limit, k.n, k.n)
			}
		}
		sum := strings.Join(parts, ", ")
		res := over.result(sum)
		if res.Status != Pass {
			res.Reason = sum + "; " + res.Reason
		}
		res.Location = &Location{File: bpath, Line: 1}
		crits = append(crits, rule(CritRegisterRatchet).Criterion(res))
		hr := head.result(sum + ": no headroom")
		hr.Location = res.Location
		crits = append(crits, rule(CritRegisterHeadroom).Criterion(hr))
	}
	return crits, notes
}

// closedProseRE is what says a row is closed in its prose (the coherence
// script's words).
var closedProseRE = lazyre.New(`\bCLOSED\b|\*\*Closed\b`)

// selfCarryCriterion decides registers.self-carry: the gap rows of terminal
// RFCs that carry themselves are counted against baseline.selfCarried (b nil:
// no baseline, no ratchet), and each one whose prose says CLOSED fails: the
// token and the prose must agree (re-token it closed).
func selfCarryCriterion(g *governance, rows []rfc.ResolutionRow, b *baseline, bpath string) Criterion {
	var t tally
	count := 0
	for _, row := range rows {
		if row.Kind != rfc.KindGaps || !strings.Contains(row.Raw, "carried:openwop.gap."+row.Number+"."+strings.TrimPrefix(row.ID, "G")) {
			continue
		}
		loc := &Location{File: row.File, Line: row.Line}
		x, why := g.lookup(row.Number)
		switch {
		case x == nil:
			t.blockf(loc, "gap row %s carries itself: %s, so whether the RFC is terminal cannot be told", row.ID, why)
			continue
		case !isTerminal(x.Status):
			continue
		}
		count++
		if closedProseRE().MatchString(row.Raw) {
			t.failf(loc, "gap row %s of RFC %s (`%s`) says CLOSED in its prose but carries itself: re-token it `closed` (RFC 0174 §C.2)", row.ID, row.Number, x.Status)
		}
	}
	summary := fmt.Sprintf("%d self-carried gap row(s) on terminal RFCs", count)
	if b != nil && b.SelfCarried != nil {
		summary += fmt.Sprintf(" (selfCarried ratchet %d)", *b.SelfCarried)
		if count > *b.SelfCarried {
			t.failf(&Location{File: bpath, Line: 1}, "%d self-carried gap row(s) on terminal RFCs exceed the selfCarried ratchet of %d: a carry must name another open row or a tracked surface (RFC 0174 §C.2)", count, *b.SelfCarried)
		}
	} else {
		summary += " (no selfCarried ratchet)"
	}
	res := t.result(summary)
	if res.Status != Pass {
		res.Reason = summary + "; " + res.Reason
	}
	return rule(CritSelfCarry).Criterion(res)
}

func carriedCriterion(g *governance, carried []rfc.ResolutionRow) Criterion {
	r := rule(CritRegisterCarried)
	if len(carried) == 0 {
		return r.Criterion(Result{Status: Pass, Reason: "no row is carried:<gap-id>"})
	}
	path := filepath.Join(g.root, "spec", "v1", "gaps.json")
	ids, err := readGapIDs(path)
	if err != nil {
		why := fmt.Sprintf("%d carried row(s) name v1 gaps, but %s cannot be read (%v): add it to check them", len(carried), path, err)
		if errors.Is(err, fs.ErrNotExist) {
			why = fmt.Sprintf("%d carried row(s) name v1 gaps, but %s does not exist: the v1 gap ids they name cannot be checked", len(carried), path)
		}
		return r.Criterion(Result{Status: Blocked, Reason: why, Location: &Location{File: path, Line: 1}})
	}
	var t tally
	for _, row := range carried {
		if !ids[row.Arg] {
			t.failf(&Location{File: row.File, Line: row.Line}, "%s row %s carries %s, which is not an id of %s", row.Kind, row.ID, row.Arg, path)
		}
	}
	return r.Criterion(t.result(fmt.Sprintf("%d carried row(s), each naming a gap of %s", len(carried), path)))
}

func readGapIDs(path string) (map[string]bool, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Entries []struct {
			ID string `json:"id"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range doc.Entries {
		out[e.ID] = true
	}
	return out, nil
}

func vocab(kind string) string {
	v := rfc.GapTokens
	if kind == rfc.KindRisks {
		v = rfc.RiskTokens
	}
	return "`" + strings.Join(v, "`, `") + "`"
}

func countList(c map[string]int, order []string) string {
	var parts []string
	for _, t := range order {
		parts = append(parts, fmt.Sprintf("%s %d", t, c[t]))
	}
	return strings.Join(parts, ", ")
}
