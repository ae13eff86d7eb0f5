package bundle

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// RefusalKind names why the strict reader or the canonical writer refused input.
// The first five are the reference implementation's JcsRefusalKind values.
type RefusalKind string

// Refusal kinds.
const (
	RefuseDuplicateName RefusalKind = "duplicate-name"
	RefuseLoneSurrogate RefusalKind = "lone-surrogate"
	RefuseIntegerRange  RefusalKind = "integer-out-of-range"
	RefuseNonFinite     RefusalKind = "non-finite"
	RefuseNotJSON       RefusalKind = "not-json"
	RefuseInvalidUTF8   RefusalKind = "invalid-utf8"
	RefuseTooDeep       RefusalKind = "too-deep"
	RefuseTooLarge      RefusalKind = "too-large"
	RefuseControlChar   RefusalKind = "control-character"
	RefuseTrailingData  RefusalKind = "trailing-data"
	RefuseByteOrderMark RefusalKind = "byte-order-mark"
)

// SyntaxError is the reader's refusal of a text: where, and why.
type SyntaxError struct {
	Kind   RefusalKind
	Offset int // byte offset of the problem
	Line   int // 1-based
	Column int // 1-based, in bytes
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s (%s)", e.Line, e.Column, e.Msg, e.Kind)
}

// MaxDepth is how deeply arrays and objects may nest. Bundles nest less than ten
// levels; the bound keeps hostile input from exhausting the stack.
const MaxDepth = 512

// Memory budget. The tree the reader builds is bounded in proportion to its input:
// at most BudgetPerByte bytes per input byte plus BudgetBase, counting every value
// slot, member slot, string and duplicate-name index it allocates, and the growth
// of its own scratch stacks, and the one copy of the input its strings share. Past
// the budget the reader stops with RefuseTooLarge, before the memory is taken. Real
// bundles need 2 to 3 bytes per input byte (the corpus test asserts they stay well
// inside); a text built to be expensive, such as a million empty objects in one
// array, is refused instead of taking gigabytes.
const (
	BudgetPerByte = 8
	BudgetBase    = 4 << 20
)

// MemoryBudget returns the most the reader allocates for an input of n bytes.
func MemoryBudget(n int) int64 { return BudgetPerByte*int64(n) + BudgetBase }

var (
	valueSize  = int64(unsafe.Sizeof(Value{}))
	memberSize = int64(unsafe.Sizeof(Member{}))
)

// ParseIJSON reads exactly one JSON text under the I-JSON rules (RFC 7493) that
// RFC 8785 canonical JSON requires, refusing rather than coercing:
//   - duplicate member names in one object;
//   - lone surrogates, whether written raw (invalid UTF-8) or as \u escapes;
//   - integer literals (no fraction, no exponent) beyond ±(2^53−1);
//   - numbers that overflow to ±Infinity;
//   - raw control characters (U+0000–U+001F) in strings, bad escapes;
//   - invalid UTF-8 anywhere, a byte-order mark, trailing data after the value;
//   - nesting deeper than MaxDepth;
//   - a tree that would need more than MemoryBudget(len(data)) bytes.
//
// Leading and trailing JSON whitespace is allowed. A member named "__proto__" is data.
//
// The strings of the tree share one copy of the input (those without escapes are
// slices of it), so a string kept from the tree keeps the whole copy alive: clone
// it (strings.Clone) to keep it longer than the tree.
func ParseIJSON(data []byte) (Value, error) {
	p := parser{data: data, budget: MemoryBudget(len(data))}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return Value{}, p.fail(0, RefuseByteOrderMark, "the text starts with a UTF-8 byte-order mark, which JSON does not allow")
	}
	if err := p.charge(stringCost(len(data))); err != nil {
		return Value{}, err
	}
	p.src = string(data)
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Value{}, p.fail(p.pos, RefuseTrailingData, "unexpected data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data []byte
	src  string // a copy of data: strings without escapes are slices of it
	pos  int
	buf  []byte // scratch for strings with escapes

	// Scratch stacks: the members and items of the containers being read. A
	// container's slots are copied into a slice of exactly their number when it
	// closes, so the tree holds no spare capacity.
	members []Member
	items   []Value

	budget int64 // bytes the reader may still allocate
}

// charge takes n bytes from the budget, or refuses at offset when it is spent.
func (p *parser) charge(n int64) error {
	p.budget -= n
	if p.budget < 0 {
		return p.fail(p.pos, RefuseTooLarge, "the document needs more memory than certcut allows for a text of %d bytes (%d bytes per byte plus %d MiB): it is built of many tiny values, which no bundle is", len(p.data), BudgetPerByte, BudgetBase>>20)
	}
	return nil
}

// allocCost is what the allocator takes for a block of n bytes: nothing for an
// empty one, at least 16 bytes, a multiple of 16 up to 128 bytes, and up to an
// eighth more beyond for the size class.
func allocCost(n int64) int64 {
	switch {
	case n == 0:
		return 0
	case n <= 128:
		return (n + 15) &^ 15
	}
	return n + n/8
}

// stringCost is what the allocator takes for a string of n bytes.
func stringCost(n int) int64 { return allocCost(int64(n)) }

// pushMember appends to the member stack, charging each new backing array.
func (p *parser) pushMember(m Member) error {
	if len(p.members) == cap(p.members) {
		grown := 2*cap(p.members) + 16
		if err := p.charge(allocCost(int64(grown) * memberSize)); err != nil {
			return err
		}
		p.members = append(make([]Member, 0, grown), p.members...)
	}
	p.members = append(p.members, m)
	return nil
}

// pushItem appends to the item stack, charging each new backing array.
func (p *parser) pushItem(v Value) error {
	if len(p.items) == cap(p.items) {
		grown := 2*cap(p.items) + 16
		if err := p.charge(allocCost(int64(grown) * valueSize)); err != nil {
			return err
		}
		p.items = append(make([]Value, 0, grown), p.items...)
	}
	p.items = append(p.items, v)
	return nil
}

func (p *parser) fail(offset int, kind RefusalKind, format string, args ...any) error {
	line, col := 1, 1
	if offset > len(p.data) {
		offset = len(p.data)
	}
	for _, c := range p.data[:offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Kind: kind, Offset: offset, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) unexpected(what string) error {
	if p.pos >= len(p.data) {
		return p.fail(p.pos, RefuseNotJSON, "unexpected end of input, expected %s", what)
	}
	c := p.data[p.pos]
	if c < 0x20 || c >= 0x7f {
		return p.fail(p.pos, RefuseNotJSON, "unexpected byte 0x%02x, expected %s", c, what)
	}
	return p.fail(p.pos, RefuseNotJSON, "unexpected %q, expected %s", c, what)
}

func (p *parser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.unexpected("a value")
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object(depth + 1)
	case '[':
		return p.array(depth + 1)
	case '"':
		s, verbatim, err := p.string()
		v := StringValue(s)
		v.verbatim = verbatim
		return v, err
	case 't':
		return p.literal("true", BoolValue(true))
	case 'f':
		return p.literal("false", BoolValue(false))
	case 'n':
		return p.literal("null", Value{})
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return p.number()
		}
		return Value{}, p.unexpected("a value")
	}
}

func (p *parser) literal(word string, v Value) (Value, error) {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return Value{}, p.unexpected("a value")
	}
	p.pos += len(word)
	return v, nil
}

// Shared empty containers: a zero-length slice is never written through, so every
// empty object and array can point at the same one.
var (
	noMembers = []Member{}
	noItems   = []Value{}
)

func (p *parser) object(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.fail(p.pos, RefuseTooDeep, "objects and arrays nest deeper than %d levels", MaxDepth)
	}
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return Value{kind: Object}, nil
	}
	base := len(p.members)
	defer func() {
		clear(p.members[base:]) // the scratch must not keep the values alive
		p.members = p.members[:base]
	}()
	var seen map[string]struct{} // built only for large objects
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.unexpected("a member name in double quotes")
		}
		nameAt := p.pos
		name, _, err := p.string()
		if err != nil {
			return Value{}, err
		}
		dup, err := p.seenName(p.members[base:], &seen, name)
		if err != nil {
			return Value{}, err
		}
		if dup {
			return Value{}, p.fail(nameAt, RefuseDuplicateName, "duplicate member name %q in one object", name)
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.unexpected("':' after a member name")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		if err := p.pushMember(Member{Name: name, Value: v}); err != nil {
			return Value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.unexpected("',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			n := len(p.members) - base
			if err := p.charge(allocCost(int64(n) * memberSize)); err != nil {
				return Value{}, err
			}
			members := make([]Member, n)
			copy(members, p.members[base:])
			return ObjectValue(members...), nil
		default:
			return Value{}, p.unexpected("',' or '}'")
		}
	}
}

// seenName reports whether name is already among members. Small objects are
// scanned; from 16 members on, a set is kept (and charged to the budget).
func (p *parser) seenName(members []Member, seen *map[string]struct{}, name string) (bool, error) {
	const scanLimit = 16
	const entrySize = 64 // a map slot for a string key, with growth and overhead
	if len(members) < scanLimit {
		for i := range members {
			if members[i].Name == name {
				return true, nil
			}
		}
		return false, nil
	}
	if *seen == nil {
		if err := p.charge(2 * entrySize * int64(len(members))); err != nil {
			return false, err
		}
		*seen = make(map[string]struct{}, 2*len(members))
		for i := range members {
			(*seen)[members[i].Name] = struct{}{}
		}
	}
	if _, ok := (*seen)[name]; ok {
		return true, nil
	}
	if err := p.charge(entrySize); err != nil {
		return false, err
	}
	(*seen)[name] = struct{}{}
	return false, nil
}

func (p *parser) array(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.fail(p.pos, RefuseTooDeep, "objects and arrays nest deeper than %d levels", MaxDepth)
	}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return Value{kind: Array}, nil
	}
	base := len(p.items)
	defer func() {
		clear(p.items[base:])
		p.items = p.items[:base]
	}()
	for {
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		if err := p.pushItem(v); err != nil {
			return Value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.unexpected("',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			n := len(p.items) - base
			if err := p.charge(allocCost(int64(n) * valueSize)); err != nil {
				return Value{}, err
			}
			items := make([]Value, n)
			copy(items, p.items[base:])
			return ArrayValue(items...), nil
		default:
			return Value{}, p.unexpected("',' or ']'")
		}
	}
}

// string reads a string literal starting at the opening quote and returns its
// decoded text, which is always valid UTF-8 without surrogate code points.
//
// verbatim reports that the string had no escape in the input: every byte of it
// is as it was read (none JSON escapes, valid UTF-8), so it is written as itself.
func (p *parser) string() (s string, verbatim bool, err error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: printable ASCII up to the closing quote.
	p.pos += plainPrefix(p.src[p.pos:])
	if p.pos < len(p.data) && p.data[p.pos] == '"' {
		s := p.src[start:p.pos] // shares the copy of the input: nothing to allocate
		p.pos++
		return s, true, nil
	}
	verbatim = true
	p.buf = append(p.buf[:0], p.data[start:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return "", false, p.fail(start-1, RefuseNotJSON, "string is not terminated")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if err := p.charge(stringCost(len(p.buf))); err != nil {
				return "", false, err
			}
			return string(p.buf), verbatim, nil
		case c == '\\':
			verbatim = false
			if err := p.escape(); err != nil {
				return "", false, err
			}
		case c < 0x20:
			return "", false, p.fail(p.pos, RefuseControlChar, "raw control character U+%04X in a string; write it as an escape", c)
		case c < 0x80:
			p.buf = append(p.buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return "", false, p.fail(p.pos, RefuseInvalidUTF8, "invalid UTF-8 byte 0x%02x in a string (a raw surrogate or a broken sequence)", c)
			}
			p.buf = append(p.buf, p.data[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

// escape decodes one backslash escape into p.buf.
func (p *parser) escape() error {
	at := p.pos
	if p.pos+1 >= len(p.data) {
		return p.fail(at, RefuseNotJSON, "string is not terminated")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		p.buf = append(p.buf, c)
	case 'b':
		p.buf = append(p.buf, '\b')
	case 'f':
		p.buf = append(p.buf, '\f')
	case 'n':
		p.buf = append(p.buf, '\n')
	case 'r':
		p.buf = append(p.buf, '\r')
	case 't':
		p.buf = append(p.buf, '\t')
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return p.fail(at, RefuseNotJSON, "bad \\u escape: four hex digits expected")
		}
		if utf16.IsSurrogate(r) {
			if r >= 0xDC00 {
				return p.fail(at, RefuseLoneSurrogate, "lone low surrogate \\u%04x", r)
			}
			if p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
				return p.fail(at, RefuseLoneSurrogate, "lone high surrogate \\u%04x", r)
			}
			p.pos += 2
			r2, ok := p.hex4()
			if !ok {
				return p.fail(p.pos-2, RefuseNotJSON, "bad \\u escape: four hex digits expected")
			}
			if r2 < 0xDC00 || r2 > 0xDFFF {
				return p.fail(at, RefuseLoneSurrogate, "lone high surrogate \\u%04x", r)
			}
			r = utf16.DecodeRune(r, r2)
		}
		p.buf = utf8.AppendRune(p.buf, r)
	default:
		return p.fail(at, RefuseNotJSON, "bad escape \\%c in a string", c)
	}
	return nil
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// number reads a number literal with JSON's grammar and JSON.parse's value.
func (p *parser) number() (Value, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	intStart := p.pos
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.pos < len(p.data) && p.data[p.pos] >= '1' && p.data[p.pos] <= '9':
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
	default:
		return Value{}, p.unexpected("a digit")
	}
	intDigits := p.pos - intStart
	integral := true
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		integral = false
		p.pos++
		if !p.digits() {
			return Value{}, p.unexpected("a digit after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		integral = false
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return Value{}, p.unexpected("a digit in the exponent")
		}
	}
	lit := p.data[start:p.pos]
	if integral && intDigits <= 15 {
		// Exact in a double; no need for the general parser.
		var n int64
		for _, c := range p.data[intStart:p.pos] {
			n = n*10 + int64(c-'0')
		}
		if lit[0] == '-' {
			if n == 0 {
				return NumberValue(math.Copysign(0, -1)), nil
			}
			n = -n
		}
		return NumberValue(float64(n)), nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if math.IsInf(f, 0) {
		return Value{}, p.fail(start, RefuseNonFinite, "number %s overflows to %s", lit, map[bool]string{true: "-Infinity", false: "Infinity"}[f < 0])
	}
	if err != nil && f != 0 {
		return Value{}, p.fail(start, RefuseNotJSON, "number %s: %v", lit, err)
	}
	if integral && math.Abs(f) > MaxSafeInteger {
		return Value{}, p.fail(start, RefuseIntegerRange, "integer %s is beyond ±(2^53−1), which I-JSON cannot carry exactly", lit)
	}
	return NumberValue(f), nil
}

func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}
