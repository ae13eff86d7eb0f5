// Package rfc reads an OpenWOP RFC's Markdown for what the Accepted predicate
// (RFC 0174 §B.1) needs: the header's Status and Updated fields, the acceptance
// criteria (boxes and table rows), the requirement ids the Falsifiability and
// Conformance tables and the acceptance lines name, and the RFC's gap register.
// Every finding keeps its line number so annotations land on the RFC file.
//
// Id shorthand (spec §9): RFC texts write `0211.a2a-error-data-shape` for
// openwop.requirement.0211.a2a-error-data-shape, and a following
// `.a2a-no-openwop-envelope` reuses the last RFC number on the same line.
// Shorthand is read only inside code spans, and in tables only from the first
// (Requirement / Leg) cell, so an observable that merely mentions another id is not
// mistaken for a requirement. Full ids are read anywhere in a row or line, as the
// reference predicate reads them; an id followed by `*` is a wildcard and not an id.
package rfc

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/certcut/certcut/internal/limitedfile"
)

// RequirementPrefix is the area the shorthand abbreviates away.
const RequirementPrefix = "openwop.requirement."

// Where a requirement id was found.
const (
	SourceFalsifiability = "falsifiability"
	SourceConformance    = "conformance"
	SourceAcceptance     = "acceptance"
)

// RFC is what the Accepted predicate reads from one RFC file.
type RFC struct {
	File   string `json:"file"`
	Number string `json:"number"`
	Title  string `json:"title"`
	// Status is the header's Status value without backticks ("Accepted"): the
	// first row | **Status** | `Accepted` | (also read: up to three leading
	// spaces, Status without bold or with a colon, a value without backticks or
	// in bold, text after the value). "" when the header has no Status row, or
	// its cell is empty; StatusLine is 0 when there is no row.
	Status     string `json:"status"`
	StatusLine int    `json:"statusLine"`
	// Updated is the header's Updated cell.
	Updated     string `json:"updated"`
	UpdatedLine int    `json:"updatedLine"`
	// AcceptanceLine is the line of the "## Acceptance criteria" heading (0: none).
	AcceptanceLine int `json:"acceptanceLine"`
	// Acceptance lists the boxes and table rows of the acceptance criteria.
	Acceptance []AcceptanceItem `json:"acceptance"`
	// Requirements are the ids the RFC requires, first mention first.
	Requirements []Requirement `json:"requirements"`
	// NotRequired are ids found in rows that say they are not claimed as a witness.
	NotRequired []Requirement `json:"notRequired"`
}

// AcceptanceItem is one acceptance box (- [ ] / - [x]) or table row (| n | … | evidence |).
type AcceptanceItem struct {
	Line   int    `json:"line"`
	Kind   string `json:"kind"` // "box" or "table"
	Ticked bool   `json:"ticked"`
	// Reasoned: an unticked box carries reason:, deferred: or Phase 4.
	Reasoned bool   `json:"reasoned"`
	Text     string `json:"text"`
}

// OK reports whether the item satisfies the predicate: ticked, or unticked with a
// stated reason; a table row whose evidence cell names something.
func (a AcceptanceItem) OK() bool { return a.Ticked || a.Reasoned }

// Requirement is one required id and where the RFC names it.
type Requirement struct {
	ID     string `json:"id"`
	Line   int    `json:"line"`
	Source string `json:"source"`
	// Corpus: the Falsifiability row says (corpus): witnessed by the corpus ledger,
	// never by a host bundle.
	Corpus bool `json:"corpus"`
	// Gated: the Falsifiability row's verdict declares the requirement gated or
	// unwitnessable (and does not demand executed-pass), so a reasoned non-pass row
	// also accounts for it.
	Gated bool `json:"gated"`
}

var (
	statusRE     = lazyRegexp(`^ {0,3}\|\s*(?:\*\*|__)?Status:?(?:\*\*|__)?:?\s*\|([^|]*)`)
	statusWordRE = lazyRegexp(`^[*_]*([A-Za-z][A-Za-z-]*)`)
	updatedRE    = lazyRegexp(`^\|\s*\*\*Updated\*\*\s*\|(.*)$`)
	rfcFieldRE   = lazyRegexp(`^\|\s*\*\*RFC\*\*\s*\|\s*(\d{4})`)
	titleRE      = lazyRegexp(`^#\s+RFC\s+(\d{4})\s*[:—-]\s*(.*)$`)
	boxRE        = lazyRegexp(`^- \[([ xX])\]`)
	reasonRE     = lazyRegexp(`(?i)reason:|deferred:|phase 4`)
	tableRowRE   = lazyRegexp(`^\|\s*\d+\s*\|`)
	emptyEvidRE  = lazyRegexp(`(?i)^(—|-|tbd|pending|n/a)?$`)
	tierLabelRE  = lazyRegexp(`(?i)tier[- ]?[123]|corpus gate`)
	fullIDRE     = lazyRegexp(`openwop\.requirement\.[a-z0-9.-]+`)
	codeSpanRE   = lazyRegexp("`([^`]+)`")
	shortIDRE    = lazyRegexp(`^(\d{4})\.[a-z0-9][a-z0-9.-]*$`)
	legIDRE      = lazyRegexp(`^\.[a-z0-9][a-z0-9.-]*$`)
	wellFormedRE = lazyRegexp(`^openwop\.requirement\.(\d{4})\.[a-z0-9][a-z0-9.-]*[a-z0-9]$`)
	separatorRE  = lazyRegexp(`^\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*$`)
	openGapRE    = lazyRegexp("\\|\\s*`open`")
)

// statusValue reads the Status cell: the first code span (`Accepted`), else the
// first word, emphasis stripped (Accepted, **Accepted**), else "".
func statusValue(cell string) string {
	cell = strings.TrimSpace(cell)
	if strings.HasPrefix(cell, "`") {
		if end := strings.IndexByte(cell[1:], '`'); end > 0 {
			return strings.TrimSpace(cell[1 : 1+end])
		}
		return ""
	}
	if m := statusWordRE().FindStringSubmatch(cell); m != nil {
		return m[1]
	}
	return ""
}

// lazyRegexp compiles the expression on first use: an RFC is read by the gate
// commands alone, and every other command would pay the compilation at start-up.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// TierLabel returns the evidence-tier label the Updated field names ("tier-1",
// "corpus gate"), or "".
func TierLabel(updated string) string { return tierLabelRE().FindString(updated) }

// ReadFile reads and parses an RFC file.
func ReadFile(path string) (*RFC, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return Parse(path, string(data)), nil
}

// Parse reads an RFC's Markdown. It never fails: what it cannot find is empty,
// and the predicate reports it.
func Parse(file, text string) *RFC {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	r := &RFC{File: file, Acceptance: []AcceptanceItem{}, Requirements: []Requirement{}, NotRequired: []Requirement{}}
	if m := regexp.MustCompile(`^(\d{4})-`).FindStringSubmatch(filepath.Base(file)); m != nil {
		r.Number = m[1]
	}
	for i, l := range lines {
		n := i + 1
		switch {
		case r.Title == "" && titleRE().MatchString(l):
			m := titleRE().FindStringSubmatch(l)
			r.Title = strings.TrimSpace(m[2])
			if r.Number == "" {
				r.Number = m[1]
			}
		case r.StatusLine == 0 && statusRE().MatchString(l):
			r.Status, r.StatusLine = statusValue(statusRE().FindStringSubmatch(l)[1]), n
		case r.UpdatedLine == 0 && updatedRE().MatchString(l):
			r.Updated, r.UpdatedLine = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(updatedRE().FindStringSubmatch(l)[1]), "|")), n
		case r.Number == "" && rfcFieldRE().MatchString(l):
			r.Number = rfcFieldRE().FindStringSubmatch(l)[1]
		}
	}
	seen := map[string]int{}
	add := func(req Requirement, notClaimed bool) {
		if notClaimed {
			r.NotRequired = append(r.NotRequired, req)
			return
		}
		if i, ok := seen[req.ID]; ok {
			// Strictest wins: a host id stays a host id, an ungated id stays ungated.
			r.Requirements[i].Corpus = r.Requirements[i].Corpus && req.Corpus
			r.Requirements[i].Gated = r.Requirements[i].Gated && req.Gated
			return
		}
		seen[req.ID] = len(r.Requirements)
		r.Requirements = append(r.Requirements, req)
	}

	// Falsifiability table(s): ### Falsifiability up to the next ## or ### heading.
	falsifiability := map[int]bool{}
	for _, sec := range sections(lines, "### Falsifiability", 3) {
		for _, row := range tableRows(lines, sec) {
			falsifiability[row] = true
			cells := splitRow(lines[row])
			corpus := strings.Contains(lines[row], "(corpus)")
			verdict := strings.ToLower(cells[len(cells)-1])
			gated := (strings.Contains(verdict, "gated") || strings.Contains(verdict, "unwitnessable")) && !strings.Contains(verdict, "executed-pass required")
			notClaimed := strings.Contains(strings.ToLower(lines[row]), "not claimed as a witness")
			for _, id := range rowIDs(lines[row], cells[0]) {
				add(Requirement{ID: id, Line: row + 1, Source: SourceFalsifiability, Corpus: corpus, Gated: gated}, notClaimed)
			}
		}
	}
	// Conformance section tables: ## Conformance up to the next ## heading.
	for _, sec := range sections(lines, "## Conformance", 2) {
		for _, row := range tableRows(lines, sec) {
			if falsifiability[row] {
				continue // read above, with its (corpus) and verdict
			}
			cells := splitRow(lines[row])
			notClaimed := strings.Contains(strings.ToLower(lines[row]), "not claimed as a witness")
			for _, id := range rowIDs(lines[row], cells[0]) {
				add(Requirement{ID: id, Line: row + 1, Source: SourceConformance}, notClaimed)
			}
		}
	}
	// Acceptance criteria.
	for _, sec := range sections(lines, "## Acceptance criteria", 2) {
		r.AcceptanceLine = sec[0]
		for i := sec[0]; i < sec[1]; i++ {
			l := lines[i]
			item, isItem := acceptanceItem(l, i+1)
			if isItem {
				r.Acceptance = append(r.Acceptance, item)
			}
			if isItem && !item.Ticked {
				continue // a deferred box requires nothing now
			}
			for _, id := range lineIDs(l) {
				add(Requirement{ID: id, Line: i + 1, Source: SourceAcceptance}, false)
			}
		}
		break
	}
	return r
}

func acceptanceItem(l string, line int) (AcceptanceItem, bool) {
	if m := boxRE().FindStringSubmatch(l); m != nil {
		ticked := m[1] != " "
		return AcceptanceItem{Line: line, Kind: "box", Ticked: ticked, Reasoned: !ticked && reasonRE().MatchString(l), Text: clip(l)}, true
	}
	if tableRowRE().MatchString(l) {
		cells := strings.Split(l, "|")
		evidence := ""
		if len(cells) > 3 {
			evidence = strings.TrimSpace(cells[3])
		}
		named := !emptyEvidRE().MatchString(evidence)
		return AcceptanceItem{Line: line, Kind: "table", Ticked: named, Text: clip(l)}, true
	}
	return AcceptanceItem{}, false
}

// sections returns [start, end) line ranges (0-based; start is the heading line)
// of every heading that starts with head, ending at the next heading of level
// ≤ level.
func sections(lines []string, head string, level int) [][2]int {
	var out [][2]int
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], head) {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if h := headingLevel(lines[j]); h > 0 && h <= level {
				end = j
				break
			}
		}
		out = append(out, [2]int{i, end})
		i = end - 1
	}
	return out
}

func headingLevel(l string) int {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n >= len(l) || l[n] != ' ' {
		return 0
	}
	return n
}

// tableRows returns the 0-based line numbers of a section's table body rows:
// header rows (followed by a separator) and separators are skipped.
func tableRows(lines []string, sec [2]int) []int {
	var out []int
	for i := sec[0] + 1; i < sec[1]; i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") || separatorRE().MatchString(l) {
			continue
		}
		if i+1 < sec[1] && separatorRE().MatchString(strings.TrimSpace(lines[i+1])) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// splitRow splits a table row into trimmed cells (never empty).
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	cells := strings.Split(l, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// rowIDs: full ids anywhere in the row, shorthand only in the first cell.
func rowIDs(row, firstCell string) []string {
	ids := fullIDs(row)
	for _, id := range shorthandIDs(firstCell) {
		if !contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// lineIDs: full ids and shorthand anywhere in an acceptance line, in order.
func lineIDs(l string) []string {
	return ExpandIDs(l)
}

// ExpandIDs returns the requirement ids a piece of RFC text names, in order of
// appearance: full openwop.requirement ids anywhere, and in code spans the
// shorthand NNNN.slug and .slug (reusing the last RFC number seen in the text).
func ExpandIDs(text string) []string {
	type hit struct {
		pos int
		id  string
	}
	var hits []hit
	for _, m := range fullIDRE().FindAllStringIndex(text, -1) {
		if id, ok := cleanFull(text, m[0], m[1]); ok {
			hits = append(hits, hit{m[0], id})
		}
	}
	for _, m := range codeSpanRE().FindAllStringSubmatchIndex(text, -1) {
		span := strings.TrimSpace(text[m[2]:m[3]])
		if shortIDRE().MatchString(span) || legIDRE().MatchString(span) {
			hits = append(hits, hit{m[2], span}) // resolved below, in order
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
	var out []string
	number := ""
	for _, h := range hits {
		id := h.id
		switch {
		case strings.HasPrefix(id, RequirementPrefix):
		case shortIDRE().MatchString(id):
			id = RequirementPrefix + id
		case legIDRE().MatchString(id) && number != "":
			id = RequirementPrefix + number + id
		default:
			continue
		}
		id = strings.TrimRight(id, ".-")
		m := wellFormedRE().FindStringSubmatch(id)
		if m == nil {
			continue
		}
		number = m[1]
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func shorthandIDs(cell string) []string {
	var out []string
	for _, id := range ExpandIDs(cell) {
		out = append(out, id)
	}
	return out
}

func fullIDs(text string) []string {
	var out []string
	for _, m := range fullIDRE().FindAllStringIndex(text, -1) {
		if id, ok := cleanFull(text, m[0], m[1]); ok && !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// cleanFull trims a full-id match and refuses wildcards (`…0235.*`) and ids
// without a slug after the RFC number.
func cleanFull(text string, start, end int) (string, bool) {
	if end < len(text) && text[end] == '*' {
		return "", false
	}
	id := strings.TrimRight(text[start:end], ".-")
	return id, wellFormedRE().MatchString(id)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return s
}

// Register is the result of reading an RFC's gap register.
type Register struct {
	// File is the register found (RFCS/registers/NNNN*.gaps.md), "" when none.
	File string `json:"file"`
	// Open lists the rows whose status cell is `open`.
	Open []RegisterRow `json:"open"`
}

// RegisterRow is one open gap.
type RegisterRow struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// ReadRegister finds RFCS/registers/<number>*.gaps.md beside the RFC file and lists
// its open rows. No register is not an error: the RFC then has no open gap.
func ReadRegister(rfcFile, number string) (Register, error) {
	reg := Register{Open: []RegisterRow{}}
	if number == "" {
		return reg, nil
	}
	matches, err := filepath.Glob(filepath.Join(filepath.Dir(rfcFile), "registers", number+"*.gaps.md"))
	if err != nil || len(matches) == 0 {
		return reg, nil
	}
	sort.Strings(matches)
	reg.File = matches[0]
	data, err := limitedfile.Read(reg.File, limitedfile.MaxPolicy)
	if err != nil {
		return reg, fmt.Errorf("read register: %w", err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if openGapRE().MatchString(l) {
			reg.Open = append(reg.Open, RegisterRow{Line: i + 1, Text: clip(l)})
		}
	}
	return reg, nil
}
