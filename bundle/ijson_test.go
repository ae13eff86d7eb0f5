package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReaderRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		kind     RefusalKind
	}{
		{"duplicate name", `{"a":1,"a":2}`, RefuseDuplicateName},
		{"duplicate name, large object", `{` + manyMembers(40) + `,"m7":0}`, RefuseDuplicateName},
		{"duplicate name via escape", `{"a":1,"\u0061":2}`, RefuseDuplicateName},
		{"lone high surrogate", `"\ud800"`, RefuseLoneSurrogate},
		{"lone low surrogate", `"\udc00"`, RefuseLoneSurrogate},
		{"high surrogate then letter", `"\ud800\u0041"`, RefuseLoneSurrogate},
		{"lone surrogate in a name", `{"\ud83d":1}`, RefuseLoneSurrogate},
		{"raw surrogate bytes", "\"\xed\xa0\x80\"", RefuseInvalidUTF8},
		{"invalid UTF-8", "\"\xff\"", RefuseInvalidUTF8},
		{"2^53", `9007199254740992`, RefuseIntegerRange},
		{"-2^53", `-9007199254740992`, RefuseIntegerRange},
		{"huge integer", `123456789012345678901234567890`, RefuseIntegerRange},
		{"overflow", `1e400`, RefuseNonFinite},
		{"negative overflow", `-1.8e308`, RefuseNonFinite},
		{"raw newline in string", "\"a\nb\"", RefuseControlChar},
		{"raw NUL in string", "\"a\x00b\"", RefuseControlChar},
		{"bad escape", `"\x"`, RefuseNotJSON},
		{"short unicode escape", `"\u12"`, RefuseNotJSON},
		{"unterminated string", `"abc`, RefuseNotJSON},
		{"trailing data", `{} {}`, RefuseTrailingData},
		{"trailing comma", `[1,]`, RefuseNotJSON},
		{"leading zero", `01`, RefuseTrailingData},
		{"bare word", `nul`, RefuseNotJSON},
		{"NaN", `NaN`, RefuseNotJSON},
		{"empty", ``, RefuseNotJSON},
		{"byte-order mark", "\xef\xbb\xbf{}", RefuseByteOrderMark},
		{"too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), RefuseTooDeep},
		{"single quotes", `{'a':1}`, RefuseNotJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseIJSON([]byte(tc.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("accepted %q; want refusal %s", tc.in, tc.kind)
			}
			if se.Kind != tc.kind {
				t.Errorf("refused as %s (%v); want %s", se.Kind, se, tc.kind)
			}
		})
	}
}

func manyMembers(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"m%d":0`, i)
	}
	return strings.Join(parts, ",")
}

func TestReaderAccepts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		check    func(Value) bool
	}{
		{"2^53-1", `9007199254740991`, func(v Value) bool { n, ok := v.Int(); return ok && n == MaxSafeInteger }},
		{"-(2^53-1)", `-9007199254740991`, func(v Value) bool { n, ok := v.Int(); return ok && n == -MaxSafeInteger }},
		{"big but fractional literal", `9007199254740993.0`, func(v Value) bool { f, _ := v.Float(); return f == 9007199254740992 }},
		{"underflow is zero", `1e-400`, func(v Value) bool { f, ok := v.Float(); return ok && f == 0 }},
		{"negative zero", `-0`, func(v Value) bool { f, _ := v.Float(); return f == 0 && math.Signbit(f) }},
		{"__proto__ is data", `{"__proto__":{"x":1}}`, func(v Value) bool { return v.Has("__proto__") }},
		{"surrogate pair", `"\ud83d\ude00"`, func(v Value) bool { s, _ := v.Str(); return s == "😀" }},
		{"null kept", `{"a":null}`, func(v Value) bool { a, ok := v.Get("a"); return ok && a.IsNull() }},
		{"absent is absent", `{"a":1}`, func(v Value) bool { return !v.Has("b") }},
		{"whitespace", " \t\r\n[ 1 , 2 ]\n", func(v Value) bool { return len(v.Items()) == 2 }},
		{"member order kept", `{"b":1,"a":2}`, func(v Value) bool { return v.Members()[0].Name == "b" }},
		{"escaped solidus", `"a\/b"`, func(v Value) bool { s, _ := v.Str(); return s == "a/b" }},
		{"depth at the limit", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), func(v Value) bool { return v.Kind() == Array }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseIJSON([]byte(tc.in))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.check(v) {
				t.Errorf("parsed %q wrongly", tc.in)
			}
		})
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	_, err := ParseIJSON([]byte("{\n  \"a\": 1,\n  \"a\": 2\n}"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || se.Column != 3 {
		t.Fatalf("got %v; want line 3, column 3", err)
	}
	if !strings.Contains(se.Error(), `duplicate member name "a"`) {
		t.Errorf("message %q does not name the member", se.Error())
	}
}

// FuzzParseIJSON: the reader never panics; what it accepts is JSON that
// encoding/json also accepts; canonical output re-reads to an equal value and is a
// fixed point; the 2-space layout re-reads to an equal value too.
func FuzzParseIJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `"\ud83d\ude00"`, `1e21`, `{"\ue000":1,"😀":2}`, `[[[]]]`, `-0`, `"\u2028<&>"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseIJSON(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted text encoding/json calls invalid: %q", data)
		}
		c1, err := Canonical(v)
		if err != nil {
			t.Fatalf("parsed value not writable: %v", err)
		}
		v2, err := ParseIJSON(c1)
		var se *SyntaxError
		if errors.As(err, &se) && se.Kind == RefuseIntegerRange && hasUnsafeInteger(v) {
			// JCS writes integral doubles below 1e21 without an exponent, and
			// I-JSON (like the reference parseIJson) refuses such integer literals
			// beyond 2^53−1: "1e17" is readable, its canonical form is not.
			return
		}
		if err != nil {
			t.Fatalf("canonical output not readable: %v\n%s", err, c1)
		}
		if !Equal(v, v2) {
			t.Fatalf("canonical output reads back differently: %s", c1)
		}
		c2, _ := Canonical(v2)
		if string(c1) != string(c2) {
			t.Fatalf("canonical form not a fixed point:\n%s\n%s", c1, c2)
		}
		ind, err := Indent(v)
		if err != nil {
			t.Fatal(err)
		}
		if v3, err := ParseIJSON(ind); err != nil || !Equal(v, v3) {
			t.Fatalf("indented output reads back differently (%v)", err)
		}
		assertVerbatimWritesAsLooked(t, v)
	})
}

// lookedAt returns a copy of v whose strings are not verbatim: written, each is
// looked at byte by byte.
func lookedAt(v Value) Value {
	switch v.kind {
	case String:
		return StringValue(v.str())
	case Array:
		items := make([]Value, v.n)
		for i, it := range v.Items() {
			items[i] = lookedAt(it)
		}
		return ArrayValue(items...)
	case Object:
		members := make([]Member, v.n)
		for i, m := range v.Members() {
			members[i] = Member{m.Name, lookedAt(m.Value)}
		}
		return ObjectValue(members...)
	}
	return v
}

// assertVerbatimWritesAsLooked: the canonical form and the layout of a parsed
// value, whose strings read with no escape are copied as they are, are the bytes
// written when every string is looked at.
func assertVerbatimWritesAsLooked(t *testing.T, v Value) {
	t.Helper()
	w := lookedAt(v)
	c1, err1 := Canonical(v)
	c2, err2 := Canonical(w)
	if string(c1) != string(c2) || (err1 == nil) != (err2 == nil) {
		t.Fatalf("canonical form with verbatim strings differs:\n%s (%v)\n%s (%v)", c1, err1, c2, err2)
	}
	i1, err1 := Indent(v)
	i2, err2 := Indent(w)
	if string(i1) != string(i2) || (err1 == nil) != (err2 == nil) {
		t.Fatalf("layout with verbatim strings differs:\n%s (%v)\n%s (%v)", i1, err1, i2, err2)
	}
}

// A string read with no escape is verbatim (written as it was read, non-ASCII
// included); one with any escape, even of a character that needs none, is not.
func TestVerbatimStrings(t *testing.T) {
	for _, tc := range []struct {
		in       string
		verbatim bool
	}{
		{`"plain ascii"`, true},
		{`""`, true},
		{`"caf\u00e9"`, false},
		{`"café 😀 \u2028"`, false},
		{"\"café 😀 \u2028\"", true}, // U+2028 as raw UTF-8: JSON.stringify writes it as is
		{`"a\/b"`, false},
		{`"tab\tstop"`, false},
		{"\"\u007f\"", true},
	} {
		v, err := ParseIJSON([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if v.verbatim != tc.verbatim {
			t.Errorf("%s: verbatim %v, want %v", tc.in, v.verbatim, tc.verbatim)
		}
		assertVerbatimWritesAsLooked(t, v)
	}
	// Member names and strings built in code are never verbatim.
	v, _ := ParseIJSON([]byte(`{"a":"b"}`))
	if !v.Members()[0].Value.verbatim || StringValue("b").verbatim {
		t.Errorf("verbatim %v for a parsed member value, %v for a built string", v.Members()[0].Value.verbatim, StringValue("b").verbatim)
	}
}

// hasUnsafeInteger reports whether v holds an integral number beyond ±(2^53−1).
func hasUnsafeInteger(v Value) bool {
	switch v.Kind() {
	case Number:
		f, _ := v.Float()
		return f == math.Trunc(f) && math.Abs(f) > MaxSafeInteger
	case Array:
		for _, it := range v.Items() {
			if hasUnsafeInteger(it) {
				return true
			}
		}
	case Object:
		for _, m := range v.Members() {
			if hasUnsafeInteger(m.Value) {
				return true
			}
		}
	}
	return false
}

// FuzzCanonicalString: any valid UTF-8 string is written as JSON that reads back to
// itself, with no raw control characters.
func FuzzCanonicalString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "\u2028", "😀", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := AppendString(nil, s)
		if !utf8.ValidString(s) {
			if err == nil {
				t.Fatalf("invalid UTF-8 %q written", s)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range out {
			if c < 0x20 {
				t.Fatalf("raw control character in %q", out)
			}
		}
		v, err := ParseIJSON(out)
		if err != nil {
			t.Fatalf("%q: output %q not readable: %v", s, out, err)
		}
		if got, _ := v.Str(); got != s {
			t.Fatalf("round trip: %q became %q", s, got)
		}
	})
}

// FuzzNumber: every finite double is written as text that reads back to the same
// double, and text written twice is the same.
func FuzzNumber(f *testing.F) {
	for _, x := range []float64{0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, math.MaxFloat64} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		out, err := AppendNumber(nil, x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if err == nil {
				t.Fatal("non-finite written")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		v, err := ParseIJSON(out)
		if err != nil {
			// Integral values ≥ 2^53 written without exponent are integer
			// literals I-JSON refuses on reading; that is the reader's rule.
			var se *SyntaxError
			if errors.As(err, &se) && se.Kind == RefuseIntegerRange && math.Abs(x) > MaxSafeInteger {
				return
			}
			t.Fatalf("%v written as %s, not readable: %v", x, out, err)
		}
		if got, _ := v.Float(); got != x && !(x == 0 && got == 0) {
			t.Fatalf("%v written as %s reads back as %v", x, out, got)
		}
	})
}
