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
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
	File string `json:"file"`
	// Number is the number the header's | **RFC** | NNNN | row states; without
	// that row, the title's (# RFC NNNN: …), then the file name's. NumberProblem
	// says why the number cannot be trusted ("" when it can): the file name,
	// the header and the title disagree, or the header states it twice or not
	// as four digits.
	Number        string `json:"number"`
	NumberProblem string `json:"numberProblem,omitempty"`
	NumberField   Field  `json:"numberField"`
	Title         string `json:"title"`
	// Status is the header's Status, one of the known states (Status.Known), or
	// "" when it cannot be read; StatusProblem then says why: no Status row,
	// two of them (rows inside HTML comments and in body tables count), an
	// empty cell, or a value that is not exactly a known state. The value is
	// the cell's first code span (`Accepted`), emphasised word (**Accepted**)
	// or word; text may follow it. StatusLine is the (first) Status row's line,
	// 0 when there is none.
	Status        Status `json:"status"`
	StatusProblem string `json:"statusProblem,omitempty"`
	StatusLine    int    `json:"statusLine"`
	// WaivedLine is the line on which the text says its comment window was
	// waived (WaivedLine), 0 when it never does.
	WaivedLine  int   `json:"-"`
	StatusField Field `json:"statusField"`
	// Updated is the header's Updated cell.
	Updated     string `json:"updated"`
	UpdatedLine int    `json:"updatedLine"`
	// Header lists every header-table row (before the first ## heading), in
	// order; the fields below are read from it.
	Header        []HeaderField `json:"header"`
	UpdatedField  Field         `json:"updatedField"`
	Supersedes    Field         `json:"supersedes"`
	SupersededBy  Field         `json:"supersededBy"`
	Compatibility Field         `json:"compatibility"`
	// PartOf is the parent RFC's number a header value names as
	// "Part of: RFC NNNN" (RFC 0167's children say so in Affects).
	PartOf Field `json:"partOf"`
	// AcceptanceLine is the line of the "## Acceptance criteria" heading (0: none).
	AcceptanceLine int `json:"acceptanceLine"`
	// Acceptance lists the boxes and table rows of the acceptance criteria.
	Acceptance []AcceptanceItem `json:"acceptance"`
	// Requirements are the ids the RFC requires, first mention first.
	Requirements []Requirement `json:"requirements"`
	// NotRequired are ids found in rows that say they are not claimed as a witness.
	NotRequired []Requirement `json:"notRequired"`
	// Predicate is the text as the reference governance checks read it.
	Predicate Predicate `json:"predicate"`

	titleNumber  string
	hiddenStatus []int
}

// AcceptanceItem is one acceptance box (- [ ] / - [x]) or table row (| n | … | evidence |).
type AcceptanceItem struct {
	Line   int    `json:"line"`
	Kind   string `json:"kind"` // "box" or "table"
	Ticked bool   `json:"ticked"`
	// Reasoned: an unticked box carries a reason: or deferred: label (a whole
	// word, any case); "Phase 4" is no excuse.
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
	// Verdict is the class the Falsifiability row's Verdict cell declares
	// (ParseVerdict; "" when the cell is in no class, or the id is not from a
	// Falsifiability row).
	Verdict WitnessClass `json:"verdict,omitempty"`
	// Gated: the verdict declares a class no executed-pass can have
	// (WitnessClass.Declared) and does not demand executed-pass, so a reasoned
	// non-pass row also accounts for the requirement.
	Gated bool `json:"gated"`
}

var (
	titleRE     = lazyRegexp(`^#\s+RFC\s+(\d{4})\s*[:—-]\s*(.*)$`)
	boxRE       = lazyRegexp(`^- \[([ xX])\]`)
	reasonRE    = lazyRegexp(`(?i)\b(reason|deferred):`)
	tableRowRE  = lazyRegexp(`^\|\s*\d+\s*\|`)
	emptyEvidRE = lazyRegexp(`(?i)^(—|-|tbd|pending|n/a)?$`)
	tierLabelRE = lazyRegexp(`(?i)tier[- ]?[123]|corpus gate`)
	separatorRE = lazyRegexp(`^\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*$`)
	openGapRE   = lazyRegexp("\\|\\s*`open`")
)

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
	r := &RFC{File: file, Acceptance: []AcceptanceItem{}, Requirements: []Requirement{}, NotRequired: []Requirement{}, Header: []HeaderField{}, WaivedLine: WaivedLine(text)}
	for _, l := range lines {
		if m := titleRE().FindStringSubmatch(l); m != nil {
			r.Title, r.titleNumber = strings.TrimSpace(m[2]), m[1]
			break
		}
	}
	r.readHeader(lines)
	r.Predicate = readPredicate(lines)
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
			class, gated := verdictOf(cells)
			notClaimed := strings.Contains(strings.ToLower(lines[row]), "not claimed as a witness")
			ids := rowIDs(lines[row], cells[0])
			r.Requirements = slices.Grow(r.Requirements, len(ids))
			for _, id := range ids {
				add(Requirement{ID: id, Line: row + 1, Source: SourceFalsifiability, Corpus: corpus, Verdict: class, Gated: gated}, notClaimed)
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
			ids := rowIDs(lines[row], cells[0])
			r.Requirements = slices.Grow(r.Requirements, len(ids))
			for _, id := range ids {
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
			ids := lineIDs(l)
			r.Requirements = slices.Grow(r.Requirements, len(ids))
			for _, id := range ids {
				add(Requirement{ID: id, Line: i + 1, Source: SourceAcceptance}, false)
			}
		}
		break
	}
	return r
}

// verdictOf reads a Falsifiability row's verdict: the fourth cell, as the
// reference reads it, and the last when the row has more or fewer; the row is
// gated only when every one of those cells declares a non-executable class and
// none demands executed-pass.
func verdictOf(cells []string) (WitnessClass, bool) {
	idx := []int{len(cells) - 1}
	if len(cells) >= 4 && len(cells)-1 != 3 {
		idx = []int{3, len(cells) - 1}
	}
	var first WitnessClass
	gated := true
	for i, k := range idx {
		class, ok := ParseVerdict(cells[k])
		if i == 0 {
			first = class
		}
		gated = gated && ok && class.Declared() && !strings.Contains(strings.ToLower(cells[k]), "executed-pass required")
	}
	return first, gated
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
	var u uniq
	for _, id := range fullIDs(row) {
		u.add(id)
	}
	for _, id := range ExpandIDs(firstCell) {
		u.add(id)
	}
	return u.ids
}

// lineIDs: full ids and shorthand anywhere in an acceptance line, in order.
func lineIDs(l string) []string {
	return ExpandIDs(l)
}

// ExpandIDs returns the requirement ids a piece of RFC text names, in order of
// appearance: full openwop.requirement ids anywhere, and in code spans the
// shorthand NNNN.slug and .slug (reusing the last RFC number seen in the text).
// It runs in time linear in the text (a hand-written scanner, no regular
// expression per id): one RFC line may name hundreds of thousands of ids.
func ExpandIDs(text string) []string {
	type hit struct {
		pos int
		id  string
	}
	var full, spans []hit
	for _, m := range fullIDMatches(text) {
		if id, ok := cleanFull(text, m[0], m[1]); ok {
			full = append(full, hit{m[0], id})
		}
	}
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			break
		}
		start := i + j + 1
		k := strings.IndexByte(text[start:], '`')
		if k < 0 {
			break
		}
		if k == 0 { // `` is no span: try from the second backtick
			i = start
			continue
		}
		span := strings.TrimSpace(text[start : start+k])
		if isShortID(span) || isLegID(span) {
			spans = append(spans, hit{start, span})
		}
		i = start + k + 1
	}
	// Both lists are in text order; merge them (a full id first on a tie).
	hits := make([]hit, 0, len(full)+len(spans))
	for a, b := 0, 0; a < len(full) || b < len(spans); {
		if b == len(spans) || a < len(full) && full[a].pos <= spans[b].pos {
			hits = append(hits, full[a])
			a++
		} else {
			hits = append(hits, spans[b])
			b++
		}
	}
	var u uniq
	number := ""
	for _, h := range hits {
		id := h.id
		switch {
		case strings.HasPrefix(id, RequirementPrefix):
		case isShortID(id):
			id = RequirementPrefix + id
		case isLegID(id) && number != "":
			id = RequirementPrefix + number + id
		default:
			continue
		}
		id = strings.TrimRight(id, ".-")
		n, ok := wellFormed(id)
		if !ok {
			continue
		}
		number = n
		u.add(id)
	}
	return u.ids
}

func fullIDs(text string) []string {
	var u uniq
	for _, m := range fullIDMatches(text) {
		if id, ok := cleanFull(text, m[0], m[1]); ok {
			u.add(id)
		}
	}
	return u.ids
}

// fullIDMatches finds, left to right and without overlap, each
// "openwop.requirement." followed by at least one of [a-z0-9.-], and as many
// as follow.
func fullIDMatches(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], RequirementPrefix)
		if j < 0 {
			break
		}
		start := i + j
		end := start + len(RequirementPrefix)
		for end < len(text) && isIDByte(text[end]) {
			end++
		}
		if end == start+len(RequirementPrefix) {
			i = start + 1
			continue
		}
		out = append(out, [2]int{start, end})
		i = end
	}
	return out
}

func isIDByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '.' || b == '-'
}

func isSlugStart(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// slug: [a-z0-9][a-z0-9.-]*
func isSlug(s string) bool {
	if s == "" || !isSlugStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIDByte(s[i]) {
			return false
		}
	}
	return true
}

// isShortID: NNNN.slug
func isShortID(s string) bool {
	return len(s) > 5 && isDigits(s[:4]) && s[4] == '.' && isSlug(s[5:])
}

// isLegID: .slug
func isLegID(s string) bool { return len(s) > 1 && s[0] == '.' && isSlug(s[1:]) }

// wellFormed: openwop.requirement.NNNN.slug, the slug at least two characters
// and ending in [a-z0-9]; it
// returns the RFC number.
func wellFormed(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, RequirementPrefix)
	if !ok || !isShortID(rest) || len(rest) < 7 || !isSlugStart(rest[len(rest)-1]) {
		return "", false
	}
	return rest[:4], true
}

// uniq collects ids once each, in first-seen order, in linear time: an RFC line
// may name hundreds of thousands of them.
type uniq struct {
	ids  []string
	seen map[string]bool
}

func (u *uniq) add(id string) {
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	if !u.seen[id] {
		u.seen[id] = true
		u.ids = append(u.ids, id)
	}
}

// cleanFull trims a full-id match and refuses wildcards (`…0235.*`) and ids
// without a slug after the RFC number.
func cleanFull(text string, start, end int) (string, bool) {
	if end < len(text) && text[end] == '*' {
		return "", false
	}
	id := strings.TrimRight(text[start:end], ".-")
	_, ok := wellFormed(id)
	return id, ok
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	n := 0
	for i := range s { // by rune, without converting a long line whole
		if n == 119 {
			if utf8.RuneCountInString(s[i:]) > 1 {
				return s[:i] + "…"
			}
			return s
		}
		n++
	}
	return s
}

// Register is the result of reading an RFC's gap register.
type Register struct {
	// File is the register found (RFCS/registers/NNNN*.gaps.md), "" when none.
	File string `json:"file"`
	// Open lists the lines with a cell starting `open` (the reference
	// predicate's test, which reads any line, not only gap rows).
	Open []RegisterRow `json:"open"`
	// Rows lists the register's gap rows (first cell G<n>, optionally bold),
	// typed by their disposition token (RFC 0166 §A.1).
	Rows []RegisterRow `json:"rows"`
}

// RegisterRow is one register line: an open one, or a typed gap row.
type RegisterRow struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	// ID is the row's local id (G3); "" for a line that is not a gap row.
	ID string `json:"id,omitempty"`
	// Token is the disposition at the head of the Resolution Path cell (the
	// fifth, or the last when there are fewer), read as the register rules read
	// it (resolutionRow): open, closed, transferred, carried, externally-gated,
	// or a risk token out of place, lower-cased; "" when the cell starts with
	// none. Arg is its :argument (carried:openwop.gap.0167.3).
	Token string `json:"token,omitempty"`
	Arg   string `json:"arg,omitempty"`
}

// ReadRegister finds RFCS/registers/<number>*.gaps.md beside the RFC file and lists
// its open rows. No register is not an error: the RFC then has no open gap.
func ReadRegister(rfcFile, number string) (Register, error) {
	reg := Register{Open: []RegisterRow{}, Rows: []RegisterRow{}}
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
		row := RegisterRow{Line: i + 1, Text: clip(l)}
		if rr, ok := resolutionRow(KindGaps, l, i+1); ok {
			row = rr.RegisterRow
			reg.Rows = append(reg.Rows, row)
		}
		if openGapRE().MatchString(l) {
			reg.Open = append(reg.Open, row)
		}
	}
	return reg, nil
}

var (
	gapRowRE = lazyRegexp(`^\|\s*(?:\*\*)?(G\d+)(?:\*\*)?\s*\|`)
)
