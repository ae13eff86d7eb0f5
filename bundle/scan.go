package bundle

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// plainPrefix returns the length of the longest prefix of s made of bytes that
// JSON writes and reads as themselves: printable ASCII other than '"' and '\'.
// It looks at eight bytes at a time; the reader and the canonical writer stop
// there and take their slow paths (escapes, control characters, UTF-8).
func plainPrefix(s string) int { return prefixWithout(s, true) }

// copyPlain copies the longest plain prefix of s (as plainPrefix finds it) to dst,
// eight bytes at a time as it looks at them, and returns its length. dst must
// hold len(s) bytes; those past the prefix are left with bytes of s, or as they
// were.
func copyPlain(dst []byte, s string) int {
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	dst = dst[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		binary.LittleEndian.PutUint64(dst[i:], x)
		if special := x&highs | escapedBytes(x); special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	switch {
	case i == len(b):
		return i
	case len(b) >= 8: // the last eight bytes, as in prefixWithout
		x := binary.LittleEndian.Uint64(b[len(b)-8:])
		binary.LittleEndian.PutUint64(dst[len(b)-8:], x)
		if special := (x&highs | escapedBytes(x)) >> (8 * (8 - (len(b) - i))); special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
		dst[i] = c
	}
	return i
}

// literalPrefix returns the length of the longest prefix of s that JSON.stringify
// writes unescaped: no control character, '"' or '\'. Bytes of UTF-8 sequences
// are part of it (the caller checks that s is valid UTF-8).
func literalPrefix(s string) int { return prefixWithout(s, false) }

// prefixWithout returns the length of the longest prefix of s without a byte that
// must be escaped, nor, when nonASCII is set, a byte at or above 0x80.
func prefixWithout(s string, nonASCII bool) int {
	var high uint64 // the flag of a byte at or above 0x80
	if nonASCII {
		high = highs
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i : i+8])
		if special := x&high | escapedBytes(x); special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	switch {
	case i == len(b):
		return i
	case len(b) >= 8:
		// The last eight bytes: those before i were found clean, and a clean byte
		// never sets (nor borrows into) a flag, so shifting them out leaves the
		// flags of the bytes from i on.
		x := binary.LittleEndian.Uint64(b[len(b)-8:])
		special := (x&high | escapedBytes(x)) >> (8 * (8 - (len(b) - i)))
		if special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || nonASCII && c >= 0x80 {
			return i
		}
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// escapedBytes sets the high bit of each byte of x (eight bytes, the first lowest)
// that JSON escapes: below 0x20, '"' or '\' (the classic "has a zero byte" test on
// x-0x20 and on x xor each quote). A flag may also be set on a byte after one that
// is flagged, never before: the lowest flag is always that of the first such byte.
func escapedBytes(x uint64) uint64 {
	special := (x - 0x20*ones) &^ x & highs
	q := x ^ ('"' * ones)
	special |= (q - ones) &^ q & highs
	b := x ^ ('\\' * ones)
	special |= (b - ones) &^ b & highs
	return special
}
