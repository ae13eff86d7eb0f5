package bundle_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
)

// indentOf is Indent's output, failing the test on an error.
func indentOf(t *testing.T, v bundle.Value) []byte {
	t.Helper()
	out, err := bundle.Indent(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fresh encodes b as if nothing had been encoded before (no Raw to take rows from).
func fresh(t *testing.T, b *bundle.Bundle) []byte {
	t.Helper()
	c := *b
	c.Raw = bundle.Value{}
	return indentOf(t, c.Value())
}

// withRow returns root with results.requirements[i] replaced by row.
func withRow(root bundle.Value, i int, row bundle.Value) bundle.Value {
	results, _ := root.Get("results")
	reqs, _ := results.Get("requirements")
	items := slices.Clone(reqs.Items())
	items[i] = row
	return root.With("results", results.With("requirements", bundle.ArrayValue(items...)))
}

// Value takes a row (and a detail.nonPass item) from b.Raw only when it is written
// exactly as the typed one would be: a typed row changed since, or a stored row
// written otherwise (members in another order, one more or one less, a number
// where the typed row has another, a string for a number), is built again. The
// document is always the one encoded from nothing.
func TestValueTakesOnlyIdenticalRowsFromRaw(t *testing.T) {
	b := testkit.Unsigned("https://host.example") // sealed: Raw is what it encodes to
	v := b.Value()
	if got, want := indentOf(t, v), fresh(t, b); !bytes.Equal(got, want) {
		t.Fatalf("re-encoded:\n%s\nwant:\n%s", got, want)
	}
	rows, _ := v.Path("results", "requirements")
	prev, _ := b.Raw.Path("results", "requirements")
	if unsafe.SliceData(rows.Items()) != unsafe.SliceData(prev.Items()) {
		t.Error("every row is identical, yet the rows are a new array")
	}
	nonPassItems, _ := v.Path("detail", "nonPass")
	prevNonPass, _ := b.Raw.Path("detail", "nonPass")
	if unsafe.SliceData(nonPassItems.Items()) != unsafe.SliceData(prevNonPass.Items()) {
		t.Error("every detail.nonPass item is identical, yet they are a new array")
	}
	c := *b
	c.Results.Requirements = slices.Clone(b.Results.Requirements)
	c.Results.Requirements[1].Result = bundle.Blocked
	rows, _ = c.Value().Path("results", "requirements")
	for i, r := range rows.Items() {
		if same := unsafe.SliceData(r.Members()) == unsafe.SliceData(prev.Items()[i].Members()); same != (i != 1) {
			t.Errorf("row %d taken from Raw: %v", i, same)
		}
	}
	nonPass := slices.IndexFunc(b.Results.Requirements, func(r bundle.Row) bool { return r.Result != bundle.ExecutedPass })
	withEvidence := slices.IndexFunc(b.Results.Requirements, func(r bundle.Row) bool { return r.Evidence != nil })
	if b.Detail == nil || nonPass < 0 || withEvidence < 0 {
		t.Fatal("the fixture lacks a non-pass row or a row with evidence")
	}

	zero, detail := int64(0), "changed"
	typed := map[string]func(b *bundle.Bundle){
		"detail set":     func(b *bundle.Bundle) { b.Results.Requirements[0].Detail = &detail },
		"detail removed": func(b *bundle.Bundle) { b.Results.Requirements[nonPass].Detail = nil },
		"assertions":     func(b *bundle.Bundle) { b.Results.Requirements[0].Assertions = &zero },
		"no assertions":  func(b *bundle.Bundle) { b.Results.Requirements[0].Assertions = nil },
		"result":         func(b *bundle.Bundle) { b.Results.Requirements[2].Result = bundle.Blocked },
		"row added": func(b *bundle.Bundle) {
			b.Results.Requirements = append(b.Results.Requirements, b.Results.Requirements[0])
		},
		"row dropped":     func(b *bundle.Bundle) { b.Results.Requirements = b.Results.Requirements[1:] },
		"evidence":        func(b *bundle.Bundle) { b.Results.Requirements[0].Evidence = &bundle.Evidence{} },
		"evidence number": func(b *bundle.Bundle) { b.Results.Requirements[withEvidence].Evidence.RecoveryBounds[0].Bound++ },
		"non-pass reason": func(b *bundle.Bundle) { b.Detail.NonPass[0].Reason = "other" },
		"non-pass gone":   func(b *bundle.Bundle) { b.Detail = nil },
	}
	row0, _ := b.Raw.Path("results", "requirements")
	m := row0.Items()[0].Members()
	stored := map[string]bundle.Value{
		"members reversed": bundle.ObjectValue(append([]bundle.Member{m[1], m[0]}, m[2:]...)...),
		"one more":         bundle.ObjectValue(append(slices.Clone(m), bundle.Member{Name: "x", Value: bundle.NullValue()})...),
		"one less":         bundle.ObjectValue(m[:len(m)-1]...),
		"not an object":    bundle.StringValue("row"),
		"assertions -4":    bundle.ObjectValue(append(slices.Clone(m[:3]), bundle.Member{Name: "assertions", Value: bundle.IntValue(-4)})...),
		"assertions \"4\"": bundle.ObjectValue(append(slices.Clone(m[:3]), bundle.Member{Name: "assertions", Value: bundle.StringValue("4")})...),
	}
	for name, mutate := range typed {
		c := testkit.Unsigned("https://host.example")
		c.Results.Requirements = slices.Clone(c.Results.Requirements)
		for i, r := range c.Results.Requirements {
			if r.Evidence != nil && r.Evidence.RecoveryBounds != nil {
				ev := *r.Evidence
				ev.RecoveryBounds = slices.Clone(ev.RecoveryBounds)
				c.Results.Requirements[i].Evidence = &ev
			}
		}
		c.Detail = &bundle.Detail{NonPass: slices.Clone(c.Detail.NonPass)}
		mutate(c)
		if got, want := indentOf(t, c.Value()), fresh(t, c); !bytes.Equal(got, want) {
			t.Errorf("%s: re-encoded:\n%s\nwant:\n%s", name, got, want)
		}
	}
	for name, row := range stored {
		c := testkit.Unsigned("https://host.example")
		c.Raw = withRow(c.Raw, 0, row)
		if got, want := indentOf(t, c.Value()), fresh(t, c); !bytes.Equal(got, want) {
			t.Errorf("stored row %s: re-encoded:\n%s\nwant:\n%s", name, got, want)
		}
	}
}

// IndentIJSON writes what Indent writes, and refuses an integer beyond ±(2^53−1)
// written as an integer literal, which Indent writes and a reader refuses.
func TestIndentIJSON(t *testing.T) {
	for _, tc := range []struct {
		n    float64
		kind bundle.RefusalKind // "" when written
	}{
		{0.5, ""}, {-1, ""}, {bundle.MaxSafeInteger, ""}, {-bundle.MaxSafeInteger, ""}, {1e21, ""}, {1.5e300, ""},
		{bundle.MaxSafeInteger + 1, bundle.RefuseIntegerRange}, {1e17, bundle.RefuseIntegerRange}, {-1e20, bundle.RefuseIntegerRange},
		{math.NaN(), bundle.RefuseNonFinite}, {math.Inf(-1), bundle.RefuseNonFinite},
	} {
		v := bundle.ObjectValue(bundle.Member{Name: "a", Value: bundle.ArrayValue(bundle.StringValue("x"), bundle.NumberValue(tc.n))})
		got, err := bundle.IndentIJSON(v)
		var we *bundle.WriteError
		switch {
		case tc.kind == "" && err != nil:
			t.Errorf("%v: %v", tc.n, err)
		case tc.kind == "" && !bytes.Equal(got, indentOf(t, v)):
			t.Errorf("%v: %s, Indent writes %s", tc.n, got, indentOf(t, v))
		case tc.kind != "" && (!errors.As(err, &we) || we.Kind != tc.kind):
			t.Errorf("%v: %v, want a %s refusal", tc.n, err, tc.kind)
		}
	}
}

// Indent writes objects whose names are the very strings of an earlier sibling's
// from what it wrote for that sibling: the text is the same as for copies of the
// names (Clone shares no memory), duplicate names are still refused, and names
// that need escapes, repeat in another order or come and go are all written as
// they would be alone.
func TestIndentSiblingNames(t *testing.T) {
	pool := []string{"id", "scenario", "result", "detail", "", "q\"uote", "é", "a\nb", "id"} // the last "id" is another string of the same text
	pool[len(pool)-1] = string([]byte("id"))
	r := rand.New(rand.NewSource(7))
	for range 20000 {
		items := make([]bundle.Value, r.Intn(6))
		for i := range items {
			members := make([]bundle.Member, r.Intn(5))
			for j := range members {
				members[j] = bundle.Member{Name: pool[r.Intn(len(pool))], Value: bundle.IntValue(int64(j))}
			}
			if r.Intn(3) > 0 && i > 0 && items[i-1].Kind() == bundle.Object {
				members = slices.Clone(items[i-1].Members()) // the same strings again
				if len(members) > 0 && r.Intn(3) == 0 {
					members = members[:r.Intn(len(members))]
				}
			}
			items[i] = bundle.ObjectValue(members...)
			if r.Intn(8) == 0 {
				items[i] = bundle.StringValue("x")
			}
		}
		v := bundle.ObjectValue(bundle.Member{Name: "rows", Value: bundle.ArrayValue(items...)})
		got, err := bundle.Indent(v)
		want, werr := bundle.Indent(v.Clone())
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("%s\nwritten as\n%s (%v)\nwant\n%s (%v)", want, got, err, want, werr)
		}
		if err == nil && !json.Valid(got) {
			t.Fatalf("not JSON: %s", got)
		}
	}
}
