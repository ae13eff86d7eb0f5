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
func plainPrefix(s string) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i : i+8])
		// A byte is special when its high bit is set (non-ASCII), when it is
		// below 0x20, or when it equals '"' or '\': the classic "has a zero
		// byte" test on x, x-0x20 and x xor each quote.
		special := x & highs
		special |= (x - 0x20*ones) &^ x & highs
		q := x ^ ('"' * ones)
		special |= (q - ones) &^ q & highs
		b := x ^ ('\\' * ones)
		special |= (b - ones) &^ b & highs
		if special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return i
}
