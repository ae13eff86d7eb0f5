package verify

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/certcut/certcut/bundle"
)

// TrimJS trims what ECMAScript's String.prototype.trim trims: Unicode white space
// (category Zs, tab, vertical tab, form feed, U+FEFF) and line terminators (LF, CR,
// U+2028, U+2029). Unlike strings.TrimSpace it trims U+FEFF and keeps U+0085.
func TrimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', 0xFEFF, 0x2028, 0x2029:
			return true
		}
		return unicode.Is(unicode.Zs, r)
	})
}

func isString(v bundle.Value, want string) bool {
	s, ok := v.Str()
	return ok && s == want
}

// describe names a value for a message, without quoting large data.
func describe(v bundle.Value, present bool) string {
	if !present {
		return "missing"
	}
	switch v.Kind() {
	case bundle.String:
		s, _ := v.Str()
		return fmt.Sprintf("%q", s)
	case bundle.Number:
		b, _ := bundle.AppendNumber(nil, mustFloat(v))
		return "the number " + string(b)
	}
	return v.Kind().String()
}

func mustFloat(v bundle.Value) float64 { f, _ := v.Float(); return f }

func notV3Hint(root bundle.Value) string {
	if root.Kind() != bundle.Object {
		return "this is not a bundle at all"
	}
	if bv, _ := root.Get("bundleVersion"); isString(bv, "2") || root.Has("scenarioManifestSha256") {
		return "this is a bundle v2, which carries no signature; v1/v2 bundles are never upgraded to v3"
	}
	return "certcut reads bundle v3 only"
}

func orNone(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

func describeBuild(root bundle.Value) string {
	b, ok := root.Path("host", "build")
	if !ok {
		return "missing"
	}
	c, err := bundle.Canonical(b)
	if err != nil || len(c) > 120 {
		return b.Kind().String()
	}
	return string(c)
}

func isExactOver(over bundle.Value) bool {
	items := over.Items()
	if over.Kind() != bundle.Array || len(items) != len(bundle.SignatureOver) {
		return false
	}
	for i, want := range bundle.SignatureOver {
		if !isString(items[i], want) {
			return false
		}
	}
	return true
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ",")
}

// after reports whether timestamp a is later than b; unparseable times compare false.
func after(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	return errA == nil && errB == nil && ta.After(tb)
}

// jsonStrings writes a list of strings as a JSON array, for messages.
func jsonStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ",") + "]"
}
