package bundle

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

func plainPrefixSlow(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return len(s)
}

func literalPrefixSlow(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(s)
}

// plainPrefix, literalPrefix and copyPlain, eight bytes at a time, agree with the
// byte-by-byte definitions on every special byte at every position of strings of
// every length up to 40, and on random strings.
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
				if got, want := literalPrefix(string(b)), literalPrefixSlow(string(b)); got != want {
					t.Fatalf("literal %q: %d, want %d", b, got, want)
				}
				checkCopyPlain(t, string(b))
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
		if got, want := literalPrefix(string(b)), literalPrefixSlow(string(b)); got != want {
			t.Fatalf("literal %q: %d, want %d", b, got, want)
		}
		checkCopyPlain(t, string(b))
	}
}

// checkCopyPlain: copyPlain finds what plainPrefix finds and copies it.
func checkCopyPlain(t *testing.T, s string) {
	t.Helper()
	dst := make([]byte, len(s))
	got, want := copyPlain(dst, s), plainPrefixSlow(s)
	if got != want || string(dst[:got]) != s[:got] {
		t.Fatalf("copyPlain %q: %d %q, want %d", s, got, dst[:got], want)
	}
}

// appendStringSlow is AppendString byte by byte, as JSON.stringify defines it.
func appendStringSlow(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return dst, fmt.Errorf("invalid UTF-8")
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, `\b`...)
		case c == '\f':
			dst = append(dst, `\f`...)
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c < 0x20:
			dst = fmt.Appendf(dst, `\u%04x`, c)
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"'), nil
}

// AppendString, which skips runs eight bytes at a time, writes what the
// byte-by-byte definition writes, and refuses what it refuses, on strings mixing
// plain runs of every length with escapes, UTF-8 and broken UTF-8.
func TestAppendStringAgreesWithSlow(t *testing.T) {
	pieces := []string{"", "a", "abcdefg", "abcdefgh", "abcdefghijklmnopq", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", "é", "€", "😀", "\u2028", "\xff", "\xed\xa0\x80", "\xe2\x82"}
	r := rand.New(rand.NewSource(2))
	for range 200000 {
		var sb strings.Builder
		for range r.Intn(6) {
			sb.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := sb.String()
		got, err := AppendString([]byte("x"), s)
		want, werr := appendStringSlow([]byte("x"), s)
		if (err == nil) != (werr == nil) || err == nil && string(got) != string(want) {
			t.Fatalf("%q: got %q, %v; want %q, %v", s, got, err, want, werr)
		}
	}
}
