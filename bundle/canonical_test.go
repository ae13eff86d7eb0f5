package bundle

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// RFC 8785 Appendix B: IEEE 754 bit patterns and the text canonical JSON writes.
// Values derived from the RFC's table; 1e21, 1e-7, 0.1 and friends added by hand
// from ECMAScript's Number::toString rules (fixed notation for exponents −7 < e < 21).
var numberVectors = []struct {
	bits string
	want string
}{
	{"0000000000000000", "0"},
	{"8000000000000000", "0"}, // -0
	{"0000000000000001", "5e-324"},
	{"8000000000000001", "-5e-324"},
	{"7fefffffffffffff", "1.7976931348623157e+308"},
	{"ffefffffffffffff", "-1.7976931348623157e+308"},
	{"4340000000000000", "9007199254740992"},
	{"c340000000000000", "-9007199254740992"},
	{"4430000000000000", "295147905179352830000"},
	{"44b52d02c7e14af5", "9.999999999999997e+22"},
	{"44b52d02c7e14af6", "1e+23"},
	{"44b52d02c7e14af7", "1.0000000000000001e+23"},
	{"444b1ae4d6e2ef4e", "999999999999999700000"},
	{"444b1ae4d6e2ef4f", "999999999999999900000"},
	{"444b1ae4d6e2ef50", "1e+21"},
	{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
	{"3eb0c6f7a0b5ed8d", "0.000001"},
	{"41b3de4355555553", "333333333.3333332"},
	{"41b3de4355555554", "333333333.33333325"},
	{"41b3de4355555555", "333333333.3333333"},
	{"41b3de4355555556", "333333333.3333334"},
	{"41b3de4355555557", "333333333.33333343"},
	{"becbf647612f3696", "-0.0000033333333333333333"},
	{"43143ff3c1cb0959", "1424953923781206.2"},
}

func TestNumberVectorsRFC8785(t *testing.T) {
	for _, v := range numberVectors {
		raw, _ := hex.DecodeString(v.bits)
		f := math.Float64frombits(binary.BigEndian.Uint64(raw))
		got, err := AppendNumber(nil, f)
		if err != nil || string(got) != v.want {
			t.Errorf("%s (%v): got %q, %v; want %q", v.bits, f, got, err, v.want)
		}
	}
}

func TestNumberFormatting(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{0.000001, "0.000001"},
		{0.1, "0.1"},
		{0.5, "0.5"},
		{-0.0, "0"},
		{math.Copysign(0, -1), "0"},
		{5e-324, "5e-324"},
		{100, "100"},
		{-42, "-42"},
		{255.0 / 256, "0.99609375"},
		{123456789012345680000, "123456789012345680000"},
		{1.5e300, "1.5e+300"},
		{-1.25e-10, "-1.25e-10"},
	} {
		got, err := AppendNumber(nil, tc.f)
		if err != nil || string(got) != tc.want {
			t.Errorf("%v: got %q, %v; want %q", tc.f, got, err, tc.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := AppendNumber(nil, f); err == nil {
			t.Errorf("%v: written, want a non-finite refusal", f)
		}
	}
}

// TestNumbersAgainstNode checks 3,000 doubles (random bit patterns, random
// magnitudes, short decimals) against the text Node's JSON.stringify wrote for them.
// The file was made with node v20 from a fixed-seed generator; regenerate it the same
// way if the set should grow.
func TestNumbersAgainstNode(t *testing.T) {
	f, err := os.Open("testdata/es-numbers.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		bits, want, _ := strings.Cut(line, " ")
		raw, _ := hex.DecodeString(bits)
		v := math.Float64frombits(binary.BigEndian.Uint64(raw))
		got, err := AppendNumber(nil, v)
		if err != nil || string(got) != want {
			t.Errorf("%s: got %q, %v; node wrote %q", bits, got, err, want)
		}
		n++
	}
	if n < 2900 {
		t.Fatalf("read only %d vectors", n)
	}
}

func TestStringEscaping(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{"\u2028\u2029", "\"\u2028\u2029\""}, // literal, unlike encoding/json
		{"<&>", `"<&>"`},                     // literal, unlike encoding/json
		{"a/b", `"a/b"`},
		{"\x7f", "\"\x7f\""},
		{"quote \" backslash \\", `"quote \" backslash \\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x0b\x1f", `"\u0000\u0001\u000b\u001f"`},
		{"é€😀", `"é€😀"`},
		{"\ufeff", "\"\ufeff\""},
	} {
		got, err := AppendString(nil, tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("%q: got %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := AppendString(nil, "bad \xff"); err == nil {
		t.Error("invalid UTF-8 written; want a refusal")
	}
	if _, err := AppendString(nil, "\xed\xa0\x80"); err == nil {
		t.Error("a raw surrogate (CESU-8) written; want a refusal")
	}
}

func TestMemberOrderUTF16(t *testing.T) {
	// RFC 8785 §3.2.3's example.
	doc := `{"€":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","😀":"Emoji: Grinning Face","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis"}`
	v, err := ParseIJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Canonical(v)
	want := `{"\r":"Carriage Return","1":"One","` + "\u0080" + `":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face","` + "\ufb33" + `":"Hebrew Letter Dalet With Dagesh"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// An astral key (surrogate 0xD83D) sorts before U+E000 in code units, after it in bytes.
	v, _ = ParseIJSON([]byte(`{"\ue000":1,"😀":2,"\uffff":3,"a":4}`))
	got, _ = Canonical(v)
	if want := `{"a":4,"😀":2,"` + "\ue000" + `":1,"` + "\uffff" + `":3}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCompareUTF16(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		sign int
	}{
		{"a", "b", -1},
		{"a", "a", 0},
		{"a", "ab", -1},
		{"😀", "\ue000", -1},
		{"\ue000", "😀", 1},
		{"😀", "😁", -1},
		{"x😀", "x\uffff", -1},
		{"é", "e", 1},
		{"\U00010000", "\U0010ffff", -1},
	} {
		got := CompareUTF16(tc.a, tc.b)
		if (got < 0 && tc.sign >= 0) || (got > 0 && tc.sign <= 0) || (got == 0 && tc.sign != 0) {
			t.Errorf("CompareUTF16(%q, %q) = %d, want sign %d", tc.a, tc.b, got, tc.sign)
		}
	}
}

// CompareUTF16, which skips common prefixes eight bytes at a time, orders as the
// strings' UTF-16 code units do, on pairs sharing prefixes of every length that
// then differ in characters of every UTF-8 length (so that a difference falls
// inside a word, across words, and inside a multi-byte character).
func TestCompareUTF16AgreesWithUTF16(t *testing.T) {
	units := func(s string) []uint16 { return utf16.Encode([]rune(s)) }
	chars := []string{"a", "b", ".", "é", "ë", "€", "\uffff", "\ue000", "😀", "😁", "\U00010000"}
	r := rand.New(rand.NewSource(4))
	for range 100000 {
		prefix := strings.Repeat("openwop.", r.Intn(3)) + strings.Repeat("x", r.Intn(9))
		var a, b strings.Builder
		a.WriteString(prefix)
		b.WriteString(prefix)
		for range r.Intn(4) {
			a.WriteString(chars[r.Intn(len(chars))])
		}
		for range r.Intn(4) {
			b.WriteString(chars[r.Intn(len(chars))])
		}
		want := slices.Compare(units(a.String()), units(b.String()))
		if got := CompareUTF16(a.String(), b.String()); (got > 0) != (want > 0) || (got < 0) != (want < 0) {
			t.Fatalf("CompareUTF16(%q, %q) = %d, want sign %d", a.String(), b.String(), got, want)
		}
	}
}

func TestCanonicalWhole(t *testing.T) {
	in := `{ "b" : [ 1.0, 1e2, -0, 0.1, true, null, "x" ], "a" : { "z": {}, "y": [] } }`
	v, err := ParseIJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Canonical(v)
	if want := `{"a":{"y":[],"z":{}},"b":[1,100,0,0.1,true,null,"x"]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Built values with duplicates or non-finite numbers are refused, not written.
	if _, err := Canonical(ObjectValue(Member{"a", NullValue()}, Member{"a", NullValue()})); err == nil {
		t.Error("duplicate names written")
	}
	if _, err := Canonical(NumberValue(math.NaN())); err == nil {
		t.Error("NaN written")
	}
}
