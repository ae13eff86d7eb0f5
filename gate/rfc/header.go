package rfc

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Field is one value of an RFC's header table (| **Name** | value |): the
// cell after the name, trimmed (the rest of the row, so a value with a | in it
// is kept whole), and its 1-based line. Line is 0 when the header has no such
// row.
type Field struct {
	Value string `json:"value"`
	Line  int    `json:"line"`
}

// HeaderField is one header-table row in file order.
type HeaderField struct {
	Name string `json:"name"`
	Field
}

// Status is an RFC's lifecycle state, as its header's Status row states it.
// The six states are those RFC 0174 names ("the six RFC states are reachable
// and used"), the set the reference scripts compare banners against. Anything
// else, in any other spelling or case, is not a Status (ParseStatus).
type Status string

// The known states.
const (
	StatusDraft      Status = "Draft"
	StatusActive     Status = "Active"
	StatusAccepted   Status = "Accepted"
	StatusSuperseded Status = "Superseded"
	StatusWithdrawn  Status = "Withdrawn"
	StatusRejected   Status = "Rejected"
)

// Statuses lists the known states in lifecycle order.
var Statuses = []Status{StatusDraft, StatusActive, StatusAccepted, StatusSuperseded, StatusWithdrawn, StatusRejected}

// Known reports whether s is one of Statuses, exactly (case included).
func (s Status) Known() bool {
	for _, k := range Statuses {
		if s == k {
			return true
		}
	}
	return false
}

func statusList() string {
	var names []string
	for _, s := range Statuses {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// ParseStatus reads a Status cell: its first token — a code span (`Accepted`),
// an emphasised word (**Accepted**), or else the first word — must be exactly
// one of the known states; text may follow the token (`Accepted` — provisional).
// `accepted`, ACCEPTED, a look-alike letter from another script and
// `Accepted (2026-11-01)` are not a Status: ok is false, and token says what
// was read.
func ParseStatus(cell string) (s Status, token string, ok bool) {
	token = statusToken(strings.TrimSpace(cell))
	s = Status(token)
	return s, token, s.Known()
}

// statusToken is a cell's first token: the content of its leading code span
// or emphasis (one or two levels: **`Accepted`**), whole, or else its first
// word; "" for an empty cell or an unterminated span.
func statusToken(cell string) string {
	cell = strings.TrimSpace(cell)
	inner, wrapped := unwrap(cell)
	if !wrapped {
		if i := strings.IndexAny(cell, " \t"); i >= 0 {
			return cell[:i]
		}
		return cell
	}
	if again, ok := unwrap(inner); ok {
		return again
	}
	return inner
}

// unwrap returns the content of the cell's leading code span or emphasis (the
// text after it is dropped); wrapped is false when the cell starts with
// neither. An unterminated one is wrapped with no content.
func unwrap(cell string) (string, bool) {
	for _, m := range []string{"``", "`", "**", "__", "*", "_"} {
		if !strings.HasPrefix(cell, m) {
			continue
		}
		end := strings.Index(cell[len(m):], m)
		if end < 0 {
			return "", true
		}
		return cell[len(m) : len(m)+end], true
	}
	return cell, false
}

// headerRow reads a line as a header-table row: up to three spaces, then
// | Name | value…. The name loses its bold (** or __) and a colon inside or
// after it.
func headerRow(l string) (name, value string, ok bool) {
	trimmed := strings.TrimLeft(l, " ")
	if len(l)-len(trimmed) > 3 || !strings.HasPrefix(trimmed, "|") {
		return "", "", false
	}
	rest := trimmed[1:]
	end := strings.IndexByte(rest, '|')
	if end < 0 {
		return "", "", false
	}
	name = strings.TrimSuffix(strings.TrimSpace(rest[:end]), ":")
	for _, m := range []string{"**", "__"} {
		if len(name) > 2*len(m) && strings.HasPrefix(name, m) && strings.HasSuffix(name, m) {
			name = strings.TrimSuffix(strings.TrimSpace(name[len(m):len(name)-len(m)]), ":")
			break
		}
	}
	value = strings.TrimSpace(rest[end+1:])
	value = strings.TrimSpace(strings.TrimSuffix(value, "|"))
	return name, value, name != ""
}

// hiddenRow reads a line inside an HTML comment (or opening one) as a table row
// would read without the comment markers.
func hiddenRow(l string) (name, value string, ok bool) {
	l = strings.TrimSpace(l)
	if i := strings.Index(l, "<!--"); i >= 0 {
		l = strings.TrimSpace(l[i+4:])
	}
	l = strings.TrimSpace(strings.TrimSuffix(l, "-->"))
	return headerRow(l)
}

// readHeader reads the header table — the rows before the first level-1 or
// level-2 heading after the title — into r.Header, and decides Number and
// Status from it (see RFC.StatusProblem and RFC.NumberProblem).
func (r *RFC) readHeader(lines []string) {
	titleSeen := false
	end := len(lines)
	for i, l := range lines {
		lvl := headingLevel(l)
		if lvl == 1 && !titleSeen && titleRE().MatchString(l) {
			titleSeen = true
			continue
		}
		if lvl == 1 || lvl == 2 {
			end = i
			break
		}
	}
	// Status rows anywhere: the visible header row is the value; any other —
	// a second header row, one inside an HTML comment, one in a body table, or
	// one the reference reader's pattern finds mid-line — makes the Status
	// unreadable, because two readers could then disagree on it.
	var statusLines []int
	visible := -1
	inComment := false
	for i, l := range lines {
		hidden := inComment || strings.Contains(l, "<!--")
		if strings.Contains(l, "<!--") {
			inComment = !strings.Contains(l[strings.LastIndex(l, "<!--"):], "-->")
		} else if inComment && strings.Contains(l, "-->") {
			inComment = false
		}
		var name, value string
		var ok bool
		if hidden {
			name, value, ok = hiddenRow(l)
		} else {
			name, value, ok = headerRow(l)
		}
		isStatus := ok && strings.EqualFold(name, "Status")
		if !isStatus && referenceStatusRE().MatchString(l) {
			isStatus = true
		}
		if isStatus {
			statusLines = append(statusLines, i+1)
		}
		if hidden || !ok || i >= end {
			if isStatus {
				r.hiddenStatus = append(r.hiddenStatus, i+1)
			}
			continue
		}
		r.Header = append(r.Header, HeaderField{Name: name, Field: Field{Value: value, Line: i + 1}})
		if isStatus && visible < 0 {
			visible = len(r.Header) - 1
		}
	}
	r.UpdatedField = r.field("Updated")
	r.Updated, r.UpdatedLine = r.UpdatedField.Value, r.UpdatedField.Line
	r.Supersedes = r.field("Supersedes")
	r.SupersededBy = r.field("Superseded by")
	r.Compatibility = r.field("Compatibility")
	for _, h := range r.Header {
		if m := partOfRE().FindStringSubmatch(h.Value); m != nil {
			r.PartOf = Field{Value: m[1], Line: h.Line}
			break
		}
	}
	r.decideStatus(statusLines, visible)
	r.decideNumber()
}

func (r *RFC) decideStatus(statusLines []int, visible int) {
	fix := fmt.Sprintf("write one header row | **Status** | `Accepted` | whose value is exactly one of %s", statusList())
	switch {
	case len(statusLines) == 0:
		r.StatusProblem = "the header has no Status row: " + fix
		return
	case len(statusLines) > 1:
		r.StatusLine = statusLines[0]
		r.StatusProblem = fmt.Sprintf("%d Status rows (lines %s, HTML comments and body tables included), so which one states the Status is open to reading: %s", len(statusLines), joinInts(statusLines), fix)
		return
	case visible < 0:
		r.StatusLine = statusLines[0]
		r.StatusProblem = fmt.Sprintf("the only Status row (line %d) is inside an HTML comment or outside the header table: %s", statusLines[0], fix)
		return
	}
	f := r.Header[visible]
	r.StatusField, r.StatusLine = f.Field, f.Line
	s, token, ok := ParseStatus(f.Value)
	switch {
	case ok:
		r.Status = s
	case strings.TrimSpace(f.Value) == "" || token == "":
		r.StatusProblem = "the Status cell is empty: " + fix
	default:
		r.StatusProblem = fmt.Sprintf("the Status value %q is not a known state (%s, exactly, in that case and script): %s", token, statusList(), fix)
	}
}

// decideNumber takes the number the header's RFC row states; without one, the
// title's, then the file name's. Any two of them that disagree, two RFC rows,
// or an RFC row that is not four digits set NumberProblem, naming the numbers.
func (r *RFC) decideNumber() {
	fileNum := ""
	if m := fileNumberRE().FindStringSubmatch(filepath.Base(r.File)); m != nil {
		fileNum = m[1]
	}
	var rows []Field
	for _, h := range r.Header {
		if strings.EqualFold(h.Name, "RFC") {
			rows = append(rows, h.Field)
		}
	}
	headerNum := ""
	switch {
	case len(rows) > 1:
		r.NumberProblem = fmt.Sprintf("the header has %d RFC rows (lines %d and %d): write one | **RFC** | NNNN |", len(rows), rows[0].Line, rows[1].Line)
	case len(rows) == 1:
		r.NumberField = rows[0]
		tok := statusToken(rows[0].Value)
		if numberRE().MatchString(tok) {
			headerNum = tok
		} else {
			r.NumberProblem = fmt.Sprintf("the header's RFC row (line %d) states %q, not a four-digit number: write | **RFC** | NNNN |", rows[0].Line, rows[0].Value)
		}
	}
	r.Number = headerNum
	if r.Number == "" {
		r.Number = r.titleNumber
	}
	if r.Number == "" {
		r.Number = fileNum
	}
	where := "header"
	if headerNum == "" {
		where = "title"
	}
	if r.NumberProblem == "" && r.titleNumber != "" && r.titleNumber != r.Number {
		r.NumberProblem = fmt.Sprintf("the %s states RFC %s but the title states RFC %s", where, r.Number, r.titleNumber)
	}
	if r.NumberProblem == "" && fileNum != "" && fileNum != r.Number && (headerNum != "" || r.titleNumber != "") {
		r.NumberProblem = fmt.Sprintf("the file name says RFC %s but its %s states RFC %s: an RFC's number is the one its header states; a renumber is a Withdrawn file at the old number with a forward pointer (RFC 0174 §A.3), never a rename", fileNum, where, r.Number)
	}
}

// field is the first header row of that name (case-insensitive).
func (r *RFC) field(name string) Field {
	for _, h := range r.Header {
		if strings.EqualFold(h.Name, name) {
			return h.Field
		}
	}
	return Field{}
}

// Field returns the header value of that name (case-insensitive), the first
// row of it; Line 0 when the header has none.
func (r *RFC) Field(name string) Field { return r.field(name) }

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, fmt.Sprint(n))
	}
	return strings.Join(s, ", ")
}

var (
	// referenceStatusRE is the reference scripts' own Status pattern, unanchored:
	// any line it would read counts as a Status row.
	referenceStatusRE = lazyRegexp("\\*\\*Status\\*\\*\\s*\\|\\s*`")
	partOfRE          = lazyRegexp(`Part of:\**\s*RFC\s*(\d{4})`)
	fileNumberRE      = lazyRegexp(`^(\d{4})-`)
	numberRE          = lazyRegexp(`^\d{4}$`)
)
