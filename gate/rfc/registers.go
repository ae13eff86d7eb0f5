package rfc

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/internal/limitedfile"
)

// Register kinds (RFC 0166 §A): a gaps register's rows are G<n>, a risks
// register's R<n>.
const (
	KindGaps  = "gaps"
	KindRisks = "risks"
)

// GapTokens and RiskTokens are the closed vocabularies of a row's resolution
// token (RFC 0166 §A.1, the reference registers library).
var (
	GapTokens  = []string{"open", "closed", "transferred", "carried", "externally-gated"}
	RiskTokens = []string{"open", "mitigated", "accepted", "closed", "transferred"}
)

// TokenTakesArg reports whether a token needs its :argument (transferred:<to>,
// carried:<gap-id>, externally-gated:<by>).
func TokenTakesArg(token string) bool {
	return token == "transferred" || token == "carried" || token == "externally-gated"
}

// ValidToken reports whether token is in kind's vocabulary.
func ValidToken(kind, token string) bool {
	vocab := GapTokens
	if kind == KindRisks {
		vocab = RiskTokens
	}
	for _, t := range vocab {
		if t == token {
			return true
		}
	}
	return false
}

// RegisterFile is one gaps or risks register, every row typed.
type RegisterFile struct {
	File string `json:"file"`
	// Number is the RFC the register belongs to (its file name's NNNN).
	Number string `json:"number"`
	Kind   string `json:"kind"`
	// Legacy: the file lies directly in RFCS/, not under RFCS/registers/.
	Legacy bool          `json:"legacy"`
	Rows   []RegisterRow `json:"rows"`
}

// ResolutionRow is one row's resolution cell, read as the reference library
// reads it.
type ResolutionRow struct {
	RegisterRow
	// File is the register, Number the RFC it belongs to.
	File   string `json:"file"`
	Number string `json:"number"`
	Kind   string `json:"kind"`
	// Cell is the resolution cell (a gaps row's fifth cell, or its last when
	// it has fewer; a risks row's last).
	Cell string `json:"cell"`
	// Spelling is how the token is written: "backticked", "bold" or "bare"
	// ("" when there is no token).
	Spelling string `json:"spelling,omitempty"`
	// Raw is the whole row as written (Text is clipped for reports).
	Raw string `json:"-"`
}

// ReadRegisters reads every NNNN-*.gaps.md and NNNN-*.risks.md under
// rfcsDir/registers/ and, the legacy place, directly in rfcsDir, each sorted
// by name. A missing registers directory is no register, not an error.
func ReadRegisters(rfcsDir string) ([]RegisterFile, []ResolutionRow, error) {
	var files []RegisterFile
	var rows []ResolutionRow
	for _, place := range []struct {
		dir    string
		legacy bool
	}{{filepath.Join(rfcsDir, "registers"), false}, {rfcsDir, true}} {
		entries, err := os.ReadDir(place.dir)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, nil, err
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && registerFileRE().MatchString(e.Name()) {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			m := registerFileRE().FindStringSubmatch(n)
			path := filepath.Join(place.dir, n)
			data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
			if err != nil {
				return nil, nil, fmt.Errorf("read register: %w", err)
			}
			rf := RegisterFile{File: path, Number: m[1], Kind: m[2], Legacy: place.legacy, Rows: []RegisterRow{}}
			for i, l := range strings.Split(string(data), "\n") {
				rr, ok := resolutionRow(rf.Kind, strings.TrimRight(l, "\r"), i+1)
				if !ok {
					continue
				}
				rr.File, rr.Number, rr.Raw = path, rf.Number, strings.TrimRight(l, "\r")
				rf.Rows = append(rf.Rows, rr.RegisterRow)
				rows = append(rows, rr)
			}
			files = append(files, rf)
		}
	}
	return files, rows, nil
}

// resolutionRow reads a register line as a row of kind: its first cell is the
// row id (G<n> or R<n>, optionally bold); the token is the head of the
// resolution cell, backticked, bold or bare, any case, lower-cased.
func resolutionRow(kind, l string, line int) (ResolutionRow, bool) {
	re := gapRowRE()
	if kind == KindRisks {
		re = riskRowRE()
	}
	m := re.FindStringSubmatch(l)
	if m == nil {
		return ResolutionRow{}, false
	}
	cells := splitRow(l)
	cell := cells[len(cells)-1]
	if kind == KindGaps {
		cell = cells[min(4, len(cells)-1)]
	}
	rr := ResolutionRow{RegisterRow: RegisterRow{Line: line, Text: clip(l), ID: m[1]}, Kind: kind, Cell: clip(cell)}
	if t := tokenRE().FindStringSubmatch(cell); t != nil {
		rr.Token, rr.Arg = strings.ToLower(t[1]), t[2]
		head := strings.TrimSpace(cell)
		switch {
		case strings.HasPrefix(head, "`") || strings.HasPrefix(head, "**`"):
			rr.Spelling = "backticked"
		case strings.HasPrefix(head, "**"):
			rr.Spelling = "bold"
		default:
			rr.Spelling = "bare"
		}
	}
	return rr, true
}

// WaiverRow is one row of the waiver retrospective register (RFC 0156 §B):
// | RFC | Title | §B scope | Reviewer org | Date | Outcome |.
type WaiverRow struct {
	Line     int    `json:"line"`
	Number   string `json:"number"`
	Reviewer string `json:"reviewer"`
	Outcome  string `json:"outcome"`
}

// WaiverOutcomes are the register's legal outcomes; only ratified discharges
// the review.
var WaiverOutcomes = []string{"ratified", "corrective-rfc-required", "provisional", "withdrawn", "not-reviewed"}

// ReadWaiverRegister reads the register's rows, in file order (the reference
// check lets a later row for the same RFC win; callers decide).
func ReadWaiverRegister(path string) ([]WaiverRow, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	var out []WaiverRow
	for i, l := range strings.Split(string(data), "\n") {
		m := waiverRowRE().FindStringSubmatch(strings.TrimRight(l, "\r"))
		if m == nil {
			continue
		}
		out = append(out, WaiverRow{Line: i + 1, Number: m[1], Reviewer: strings.TrimSpace(m[4]), Outcome: m[6]})
	}
	return out, nil
}

var (
	registerFileRE = lazyRegexp(`^(\d{4})-.+\.(gaps|risks)\.md$`)
	riskRowRE      = lazyRegexp(`^\|\s*(?:\*\*)?(R\d+)(?:\*\*)?\s*\|`)
	// tokenRE is the reference library's token pattern; its lookahead (what may
	// follow the token) is matched as one more character or the end.
	tokenRE     = lazyRegexp("(?i)^\\s*(?:\\*\\*|`)*(open|closed|transferred|carried|externally-gated|mitigated|accepted)(?::([^\\s*|`]+))?(?:\\*\\*|`)*(?:\\s|$|—|-|\\.|,|;|:)")
	waiverRowRE = lazyRegexp("^\\|\\s*(\\d{4})\\s*\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|\\s*`?([a-z-]+)`?\\s*\\|")
)
