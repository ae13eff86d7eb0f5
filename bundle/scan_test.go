package bundle

import (
	"math/rand"
	"testing"
)

func plainPrefixSlow(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return len(s)
}

// plainPrefix, eight bytes at a time, agrees with the byte-by-byte definition on
// every special byte at every position of strings of every length up to 40, and
// on random strings.
func TestPlainPrefix(t *testing.T) {
	specials := []byte{0, 0x1f, '"', '\\', 0x80, 0xc3, 0xff, 0x7f, 0x20, 0x21, 0x5b, 0x5d, 'a'}
	for n := 0; n <= 40; n++ {
		for at := 0; at < n; at++ {
			for _, c := range specials {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'x'
				}
				b[at] = c
				if got, want := plainPrefix(string(b)), plainPrefixSlow(string(b)); got != want {
					t.Fatalf("%q: %d, want %d", b, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewSource(1))
	for range 100000 {
		b := make([]byte, r.Intn(30))
		for i := range b {
			b[i] = byte(r.Intn(256))
			if r.Intn(4) > 0 {
				b[i] = byte(0x20 + r.Intn(0x5f))
			}
		}
		if got, want := plainPrefix(string(b)), plainPrefixSlow(string(b)); got != want {
			t.Fatalf("%q: %d, want %d", b, got, want)
		}
	}
}
