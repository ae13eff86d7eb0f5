package rfc

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/certcut/certcut/internal/lazyre"
)

// Predicate is what the reference governance checks read from an RFC's text
// as they read it (RFC 0174 §B.1 rules 4a/4b and the parent rule,
// scripts/check-accepted-predicate.mjs; RFC 0178 §C.1,
// scripts/check-falsifiability.mjs): the Falsifiability section split at its
// anchored heading, and the first "Part of: RFC NNNN" anywhere in the text.
type Predicate struct {
	// Parent is the RFC number the first "Part of: RFC NNNN" anywhere in the
	// text names (Value), with its line; Line 0 when the text names none. An
	// RFC may name itself (RFC 0167 does): it is then its own child.
	Parent Field `json:"parent"`
	// Family0167 is true when the text says "Part of: RFC 0167" (the literal
	// space the falsifiability check's scope requires).
	Family0167 bool `json:"family0167"`
	// FalsifiabilityLine is the 1-based line of the first "### Falsifiability"
	// heading, 0 when there is none.
	FalsifiabilityLine int `json:"falsifiabilityLine"`
	// FalsifiabilityBlank: the section (after the heading, up to a second
	// "### Falsifiability" heading or the next "## " heading, ### subsections
	// included) is all white space.
	FalsifiabilityBlank bool `json:"falsifiabilityBlank"`
	// FalsifiabilityLines are the section's lines that start with "|" (after
	// leading spaces), in order, untrimmed.
	FalsifiabilityLines []SectionLine `json:"falsifiabilityLines"`
}

// SectionLine is one line of a section, with its 1-based line number.
type SectionLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

var (
	parentRE     = lazyRegexp(`Part of:\s*RFC\s*(\d{4})`)
	family0167RE = lazyRegexp(`Part of:\s*RFC 0167`)
	tierDeclRE   = lazyRegexp(`(?i)Evidence tier:\s*\**\s*(tier-[123]|corpus gate)`)
	// The reference predicate's rule 4b: a row that is neither a separator nor
	// the Requirement header names an id or one of these verdict words.
	rowSeparatorRE = lazyRegexp(`^\|\s*-{2,}`)
	rowHeaderRE    = lazyRegexp(`(?i)^\|\s*(Requirement|§?\s*Requirement)\b`)
	verdictWordRE  = lazyRegexp(`(?i)witnessable|gated|corpus gate|not probed|negative[- ]existence|unwitnessable|host-pending|inspection|suite review`)
	// RFC 0178 §C.1's closed vocabulary, as scripts/check-falsifiability.mjs
	// anchors it (case-sensitive; the cell has no |, so each alternative is a
	// head word).
	vocabularyRE = lazyRegexp(`^(witnessable(?: — (?:unaided|gated|seam-gated))?(?: \([^)]*\))?(?:[^|]*)|seam-gated[^|]*|claims-check[^|]*|negative-existence[^|]*|unwitnessable[^|]*)$`)
	testFileRE   = lazyRegexp("`([a-z0-9-]+\\.test\\.ts)`")
	testExemptRE = lazyRegexp(`(?i)planned|Phase 3|suite 2\.0\.0`)
)

// DeclaredTier returns the evidence tier the Updated field declares —
// "Evidence tier: tier-N" or "Evidence tier: corpus gate", bold allowed
// between the colon and the label, case-insensitive (RFC 0174 §B.1 rule 3 as
// the newest reference predicate reads it) — or "". A tier merely mentioned in
// prose ("tier-1 host") declares nothing.
func DeclaredTier(updated string) string {
	if m := tierDeclRE().FindStringSubmatch(updated); m != nil {
		return m[1]
	}
	return ""
}

// readPredicate reads the Predicate from an RFC's lines.
func readPredicate(lines []string) Predicate {
	p := Predicate{FalsifiabilityLines: []SectionLine{}}
	for i, l := range lines {
		if p.Parent.Line == 0 {
			if m := parentRE().FindStringSubmatch(l); m != nil {
				p.Parent = Field{Value: m[1], Line: i + 1}
			}
		}
		if !p.Family0167 && family0167RE().MatchString(l) {
			p.Family0167 = true
		}
	}
	// "Part of:" may wrap onto the next line ("\s*" spans newlines upstream).
	if p.Parent.Line == 0 || !p.Family0167 {
		text := strings.Join(lines, "\n")
		if m := parentRE().FindStringSubmatchIndex(text); m != nil && p.Parent.Line == 0 {
			p.Parent = Field{Value: text[m[2]:m[3]], Line: strings.Count(text[:m[0]], "\n") + 1}
		}
		p.Family0167 = p.Family0167 || family0167RE().MatchString(text)
	}
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "### Falsifiability") {
			start = i
			break
		}
	}
	if start < 0 {
		return p
	}
	p.FalsifiabilityLine = start + 1
	blank := true
	for i := start + 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "### Falsifiability") || strings.HasPrefix(l, "## ") {
			break
		}
		if strings.TrimSpace(l) != "" {
			blank = false
		}
		if strings.HasPrefix(strings.TrimLeft(l, " "), "|") {
			p.FalsifiabilityLines = append(p.FalsifiabilityLines, SectionLine{Line: i + 1, Text: strings.TrimLeft(l, " ")})
		}
	}
	p.FalsifiabilityBlank = blank
	return p
}

// IsRow reports whether a Falsifiability line is a row the predicate's rule 4b
// inspects: not a separator (|--) and not the Requirement header.
func (s SectionLine) IsRow() bool {
	return !rowSeparatorRE().MatchString(s.Text) && !rowHeaderRE().MatchString(s.Text)
}

// Undeclared returns the Falsifiability rows (IsRow) that name no
// openwop.requirement. id and carry none of the reference predicate's verdict
// words (witnessable, gated, corpus gate, not probed, negative-existence,
// unwitnessable, host-pending, inspection, suite review; anywhere in the row,
// any case).
func (p Predicate) Undeclared() []SectionLine {
	var out []SectionLine
	for _, s := range p.FalsifiabilityLines {
		if s.IsRow() && !strings.Contains(s.Text, RequirementPrefix) && !verdictWordRE().MatchString(s.Text) {
			out = append(out, s)
		}
	}
	return out
}

// SectionRequirements returns the ids every Falsifiability row (IsRow) of the
// anchored section names — full ids anywhere, shorthand in the first cell —
// with the row's (corpus) mark and declared verdict, as Parse reads the
// rows of its narrower section.
func (p Predicate) SectionRequirements() []Requirement {
	var out []Requirement
	for _, s := range p.FalsifiabilityLines {
		if !s.IsRow() {
			continue
		}
		cells := splitRow(s.Text)
		class, gated := verdictOf(cells)
		if strings.Contains(strings.ToLower(s.Text), "not claimed as a witness") {
			continue
		}
		for _, id := range rowIDs(s.Text, cells[0]) {
			out = append(out, Requirement{ID: id, Line: s.Line, Source: SourceFalsifiability, Corpus: strings.Contains(s.Text, "(corpus)"), Verdict: class, Gated: gated})
		}
	}
	return out
}

// VocabularyFinding is one Falsifiability row that breaks RFC 0178 §C.1.
type VocabularyFinding struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// VocabularyResult is the falsifiability vocabulary check of one RFC.
type VocabularyResult struct {
	// InScope: the RFC is numbered 0167 or later, or says "Part of: RFC 0167".
	InScope bool `json:"inScope"`
	// Rows is the number of rows checked.
	Rows     int                 `json:"rows"`
	Findings []VocabularyFinding `json:"findings"`
	// Unchecked lists the named *.test.ts files that could not be looked up
	// because the repository has no conformance/src directory.
	Unchecked []VocabularyFinding `json:"unchecked"`
}

// CheckVocabulary applies RFC 0178 §C.1 as scripts/check-falsifiability.mjs
// does: an RFC numbered 0167 or later (or "Part of: RFC 0167") has a
// "### Falsifiability" section; each of its rows (lines starting "| ", not
// "| Requirement" or "| ---") has at least four cells; the fourth, bold
// removed, starts with witnessable, seam-gated, claims-check,
// negative-existence or unwitnessable (case-sensitive); an unwitnessable
// verdict says why (20 characters or more); and each `name.test.ts` the row
// names exists under conformanceSrc/scenarios or conformanceSrc/coherence,
// unless the row says planned, Phase 3 or suite 2.0.0. conformanceSrc "" or
// absent: the names are listed in Unchecked, not failed.
func (x *RFC) CheckVocabulary(conformanceSrc string) VocabularyResult {
	res := VocabularyResult{Findings: []VocabularyFinding{}, Unchecked: []VocabularyFinding{}}
	n, _ := strconv.Atoi(x.Number)
	base := filepath.Base(x.File)
	if strings.HasPrefix(base, "0000") {
		return res
	}
	res.InScope = x.Number == "0167" || x.Predicate.Family0167 || n >= 167
	if !res.InScope {
		return res
	}
	if x.Predicate.FalsifiabilityLine == 0 {
		res.Findings = append(res.Findings, VocabularyFinding{Line: 1, Message: "no \"### Falsifiability\" table (RFC 0178 §C.1: every RFC of the v2 era has one)"})
		return res
	}
	haveSrc := false
	if conformanceSrc != "" {
		if st, err := os.Stat(conformanceSrc); err == nil && st.IsDir() {
			haveSrc = true
		}
	}
	for _, s := range x.Predicate.FalsifiabilityLines {
		if !strings.HasPrefix(s.Text, "| ") || strings.HasPrefix(s.Text, "| Requirement") || strings.HasPrefix(s.Text, "| ---") {
			continue
		}
		res.Rows++
		parts := strings.Split(s.Text, "|")
		cells := parts[1 : len(parts)-1]
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) < 4 {
			res.Findings = append(res.Findings, VocabularyFinding{Line: s.Line, Message: "falsifiability row has " + strconv.Itoa(len(cells)) + " cells (at least 4: Requirement | Observable | Witness | Verdict)"})
			continue
		}
		verdict := strings.ReplaceAll(cells[3], "**", "")
		switch {
		case !vocabularyRE().MatchString(verdict):
			res.Findings = append(res.Findings, VocabularyFinding{Line: s.Line, Message: "verdict " + strconv.Quote(clip(verdict)) + " is not in RFC 0178 §C.1's vocabulary (witnessable[ — unaided|gated|seam-gated], seam-gated, claims-check, negative-existence, unwitnessable)"})
		case strings.HasPrefix(verdict, "unwitnessable") && utf8.RuneCountInString(verdict) < 20:
			res.Findings = append(res.Findings, VocabularyFinding{Line: s.Line, Message: "verdict " + strconv.Quote(verdict) + " does not say why the requirement is unwitnessable (RFC 0178 §C.1)"})
		}
		if testExemptRE().MatchString(s.Text) {
			continue
		}
		for _, m := range testFileRE().FindAllStringSubmatch(s.Text, -1) {
			name := m[1]
			if !haveSrc {
				res.Unchecked = append(res.Unchecked, VocabularyFinding{Line: s.Line, Message: name})
				continue
			}
			if !fileExists(filepath.Join(conformanceSrc, "scenarios", name)) && !fileExists(filepath.Join(conformanceSrc, "coherence", name)) {
				res.Findings = append(res.Findings, VocabularyFinding{Line: s.Line, Message: "names " + name + ", which is neither in " + filepath.ToSlash(filepath.Join(conformanceSrc, "scenarios")) + " nor in " + filepath.ToSlash(filepath.Join(conformanceSrc, "coherence"))})
			}
		}
	}
	return res
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Tree is every RFC file of an RFCS directory (NNNN-*.md), read once: what the
// rules that look across RFCs need — statuses by number, program children,
// and the ids every v2-era Falsifiability table declares.
type Tree struct {
	Dir string
	// RFCs in file-name order.
	RFCs []*RFC
	// Declared holds every requirement id a Falsifiability row of an RFC
	// numbered 0167 or later names (any status): a bundle row <id>.<leg>
	// witnesses <id> only when <id>.<leg> is not itself declared.
	Declared IDSet
	status   map[string]*RFC
}

var treeFileRE = lazyre.New(`^\d{4}-.*\.md$`)

// LoadTree reads every RFCS/NNNN-*.md of dir. A file that cannot be read is an
// error naming it.
func LoadTree(dir string) (*Tree, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && treeFileRE().MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	t := &Tree{Dir: dir, Declared: IDSet{}, status: map[string]*RFC{}}
	for _, n := range names {
		x, err := ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		t.add(x)
	}
	return t, nil
}

// NewTree makes a Tree of parsed RFCs (in the order given).
func NewTree(dir string, rfcs ...*RFC) *Tree {
	t := &Tree{Dir: dir, Declared: IDSet{}, status: map[string]*RFC{}}
	for _, x := range rfcs {
		t.add(x)
	}
	return t
}

func (t *Tree) add(x *RFC) {
	t.RFCs = append(t.RFCs, x)
	// Numbers are keyed last-file-wins, as the reference scripts' maps are.
	t.status[x.Number] = x
	if n, _ := strconv.Atoi(x.Number); n >= 167 {
		for _, q := range x.Requirements {
			if q.Source == SourceFalsifiability {
				t.Declared[q.ID] = struct{}{}
			}
		}
		for _, q := range x.Predicate.SectionRequirements() {
			t.Declared[q.ID] = struct{}{}
		}
	}
}

// ByNumber returns the RFC the tree keys under the number (the last file of
// that number, as the reference scripts key it), or nil.
func (t *Tree) ByNumber(number string) *RFC { return t.status[number] }

// Children returns the RFCs whose first "Part of: RFC NNNN" names number,
// in file order (the RFC itself included when it names itself).
func (t *Tree) Children(number string) []*RFC {
	var out []*RFC
	for _, x := range t.RFCs {
		if x.Predicate.Parent.Value == number {
			out = append(out, x)
		}
	}
	return out
}
