package bundle

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// WriteError is the canonical writer's refusal of a value a caller built (values the
// reader produced are always writable).
type WriteError struct {
	Kind RefusalKind
	Msg  string
}

func (e *WriteError) Error() string { return fmt.Sprintf("%s (%s)", e.Msg, e.Kind) }

// Canonical returns the RFC 8785 (JCS) canonical form of v: no whitespace, object
// members sorted by their names' UTF-16 code units, numbers as ECMAScript's
// Number::toString writes them, strings as JSON.stringify writes them. It refuses
// non-finite numbers, strings that are not valid UTF-8 and duplicate member names.
func Canonical(v Value) ([]byte, error) {
	return AppendCanonical(make([]byte, 0, 256), v)
}

// AppendCanonical appends the canonical form of v to dst.
func AppendCanonical(dst []byte, v Value) ([]byte, error) {
	var w canonWriter
	return w.value(dst, v)
}

// CanonicalSHA256 returns the lowercase hex SHA-256 of the canonical form of v. The
// form streams into the hash through a small buffer; it is never held whole.
func CanonicalSHA256(v Value) (string, error) {
	w, out := newHashWriter()
	out, err := w.value(out, v)
	if err != nil {
		return "", err
	}
	return w.sum(out), nil
}

// flushAt is how much canonical text a hashing writer buffers before it feeds
// the hash.
const flushAt = 4 << 10

// canonWriter writes canonical JSON. The text is passed to each method and
// returned, never kept in the writer, so that appending to it writes no pointer
// to memory (no write barrier).
type canonWriter struct {
	order []int // member-order scratch, shared by all objects (sorted, then consumed)

	// sink, when set, takes the text whenever it holds flushAt bytes or more, so
	// that it stays small; sum feeds it the rest.
	sink hash.Hash
}

// newHashWriter returns a writer into SHA-256 and the buffer to pass it.
func newHashWriter() (*canonWriter, []byte) {
	return &canonWriter{sink: sha256.New()}, make([]byte, 0, flushAt+1<<10)
}

// flush feeds the hash out once out holds flushAt bytes, and returns what is left
// to fill.
func (w *canonWriter) flush(out []byte) []byte {
	if w.sink != nil && len(out) >= flushAt {
		w.sink.Write(out)
		return out[:0]
	}
	return out
}

// sum feeds the hash what is left and returns its lowercase hex digest.
func (w *canonWriter) sum(out []byte) string {
	w.sink.Write(out)
	var sum [sha256.Size]byte
	return hex.EncodeToString(w.sink.Sum(sum[:0]))
}

func (w *canonWriter) value(out []byte, v Value) ([]byte, error) {
	var err error
	switch v.kind {
	case Null:
		out = append(out, "null"...)
	case Bool:
		out = strconv.AppendBool(out, v.n != 0)
	case Number:
		out, err = AppendNumber(out, v.num())
	case String:
		out, err = appendStringValue(out, v)
		out = w.flush(out)
	case Array:
		out = append(out, '[')
		items := v.Items()
		for i := range items {
			if i > 0 {
				out = append(out, ',')
			}
			if out, err = w.value(out, items[i]); err != nil {
				return out, err
			}
		}
		out = append(out, ']')
	case Object:
		out, err = w.object(out, v.Members())
	}
	return out, err
}

func (w *canonWriter) object(out []byte, members []Member) ([]byte, error) {
	// Take this object's slice of the shared scratch; nested objects take theirs
	// after it, so writing a member never disturbs the order being walked.
	base := len(w.order)
	w.order = slices.Grow(w.order, len(members))[:base+len(members)]
	order := w.order[base:]
	for i := range order {
		order[i] = i
	}
	out, err := w.members(out, members, order)
	w.order = w.order[:base]
	return out, err
}

// members writes the members of an object in the order given, once sorted.
func (w *canonWriter) members(out []byte, members []Member, order []int) ([]byte, error) {
	if len(order) <= 12 {
		// Insertion sort: objects are mostly a handful of members.
		for i := 1; i < len(order); i++ {
			for j := i; j > 0 && CompareUTF16(members[order[j-1]].Name, members[order[j]].Name) > 0; j-- {
				order[j-1], order[j] = order[j], order[j-1]
			}
		}
	} else {
		slices.SortFunc(order, func(a, b int) int { return CompareUTF16(members[a].Name, members[b].Name) })
	}
	out = append(out, '{')
	var err error
	for i, idx := range order {
		if i > 0 {
			if members[order[i-1]].Name == members[idx].Name {
				return out, &WriteError{Kind: RefuseDuplicateName, Msg: fmt.Sprintf("duplicate member name %q", members[idx].Name)}
			}
			out = append(out, ',')
		}
		if out, err = AppendString(out, members[idx].Name); err != nil {
			return out, err
		}
		out = append(out, ':')
		if out, err = w.value(out, members[idx].Value); err != nil {
			return out, err
		}
		out = w.flush(out)
	}
	return append(out, '}'), nil
}

// CompareUTF16 orders two strings by their UTF-16 code units, as JavaScript's default
// sort and RFC 8785 §3.2.3 do. It differs from byte order only where a character
// beyond U+FFFF meets one in U+E000–U+FFFF: the first encodes as a surrogate
// (0xD800–0xDBFF) and so sorts before. Both strings must be valid UTF-8.
func CompareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	// Skip the common prefix eight bytes at a time (ids share long ones).
	ba, bb := unsafe.Slice(unsafe.StringData(a), n), unsafe.Slice(unsafe.StringData(b), n) // read only
	for i+8 <= n && binary.LittleEndian.Uint64(ba[i:]) == binary.LittleEndian.Uint64(bb[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return len(a) - len(b)
	}
	if a[i] < 0x80 && b[i] < 0x80 {
		return int(a[i]) - int(b[i])
	}
	// Back up to the start of the rune that differs and compare code units.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return int(firstUnits(ra)) - int(firstUnits(rb))
}

// firstUnits maps a rune to a number that orders like its UTF-16 code units: the
// high surrogate first, then the low one. Distinct runes never map to equal values.
func firstUnits(r rune) uint32 {
	if r < 0x10000 {
		return uint32(r) << 16
	}
	r -= 0x10000
	hi, lo := 0xD800+uint32(r>>10), 0xDC00+uint32(r&0x3FF)
	return hi<<16 | lo
}

// appendStringValue appends the string v as AppendString writes it; a verbatim
// string (read with no escape) is copied without being looked at again, since it
// has no byte to escape.
func appendStringValue(out []byte, v Value) ([]byte, error) {
	if !v.verbatim {
		return AppendString(out, v.str())
	}
	out = append(out, '"')
	out = append(out, v.str()...)
	return append(out, '"'), nil
}

// AppendString appends s as JSON.stringify writes it: '"' and '\' escaped, the
// control characters U+0000–U+001F as \b \f \n \r \t or \u00xx (lowercase hex), and
// everything else, including '/', '<', '>', '&', DEL, U+2028 and U+2029, literally.
// It refuses s that is not valid UTF-8 (a lone surrogate cannot be encoded).
func AppendString(dst []byte, s string) ([]byte, error) {
	const hexDigits = "0123456789abcdef"
	// Fast path: printable ASCII without quotes (the common case) is copied as it
	// is looked at.
	dst = slices.Grow(dst, len(s)+2)
	n := len(dst)
	dst = dst[:n+1+len(s)+1]
	dst[n] = '"'
	plain := copyPlain(dst[n+1:], s)
	if plain == len(s) {
		dst[n+1+len(s)] = '"'
		return dst, nil
	}
	dst = dst[:n+1+plain]
	if !utf8.ValidString(s[plain:]) {
		return dst[:n], &WriteError{Kind: RefuseInvalidUTF8, Msg: fmt.Sprintf("string %q is not valid UTF-8", s)}
	}
	start := plain // s[:start] is written
	for i := plain; ; i++ {
		i += literalPrefix(s[i:]) // UTF-8 is written as it is
		if i == len(s) {
			break
		}
		c := s[i]
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

// AppendNumber appends f as ECMAScript's Number::toString writes it (RFC 8785 §3.2.2.3):
// the shortest digits that round-trip; integers below 1e21 in full; fixed notation
// while the decimal exponent n satisfies −6 < n ≤ 21, exponent notation
// ("1e+21", "1e-7", "1.5e-7") otherwise; −0 as 0. It refuses NaN and ±Infinity.
func AppendNumber(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, &WriteError{Kind: RefuseNonFinite, Msg: fmt.Sprintf("number %v is not finite", f)}
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	if f == math.Trunc(f) && math.Abs(f) <= MaxSafeInteger {
		// Every integer up to 2^53−1 is a double of its own, so its shortest
		// digits are all of its digits.
		return strconv.AppendInt(dst, int64(f), 10), nil
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var scratch [32]byte
	// 'e' with -1 precision gives the shortest round-trip digits as d.ddde±XX.
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			exp, _ = strconv.Atoi(string(e[i+1:]))
			break
		}
	}
	var digits [24]byte
	k := 0
	for _, c := range mant {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	ds := digits[:k]
	n := exp + 1 // the value is 0.ds × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, ds...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, ds[:n]...)
		dst = append(dst, '.')
		dst = append(dst, ds[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, ds...)
	default:
		dst = append(dst, ds[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, ds[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}
