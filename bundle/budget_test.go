package bundle_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
)

// allocated returns the bytes f allocates on the heap (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// repeat builds open + n copies of item joined by sep + close.
func repeat(open, item, sep, close string, n int) []byte {
	var b strings.Builder
	b.Grow(len(open) + n*(len(item)+len(sep)) + len(close))
	b.WriteString(open)
	for i := range n {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(item)
	}
	b.WriteString(close)
	return []byte(b.String())
}

// The reader's memory is bounded in proportion to its input: on shapes built to be
// expensive it allocates at most MemoryBudget(len(input)) bytes (plus the small
// constant of the error it returns), refusing with too-large instead of growing.
func TestParserMemoryWithinBudget(t *testing.T) {
	manyMembers := func(n int) []byte {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"m%d":0`, i)
		}
		b.WriteString("}")
		return []byte(b.String())
	}
	const refuse, accept, either = "refuse", "accept", "either"
	cases := []struct {
		name   string
		input  []byte
		expect string
	}{
		{"a million empty objects (3 MB)", repeat(`{"bundleVersion":"3","results":{"requirements":[`, "{}", ",", "]}}", 1_000_000), refuse},
		{"a million empty arrays", repeat("[", "[]", ",", "]", 1_000_000), refuse},
		{"a million digits", repeat("[", "1", ",", "]", 1_000_000), refuse},
		{"a million nulls in objects", repeat("[", `{"a":null}`, ",", "]", 1_000_000), refuse},
		{"a million empty strings", repeat("[", `""`, ",", "]", 1_000_000), refuse},
		{"a million short strings", repeat("[", `"ab"`, ",", "]", 1_000_000), refuse},
		{"300k members of one object", manyMembers(300_000), either},
		{"3k members of one object", manyMembers(3_000), accept},
		{"deep nesting at the limit, once", []byte(strings.Repeat("[", 500) + strings.Repeat("]", 500)), accept},
		{"deep nesting at the limit, many times", repeat("[", strings.Repeat("[", 500)+strings.Repeat("]", 500), ",", "]", 2000), refuse},
		{"escaped strings", repeat("[", `"`+strings.Repeat(`\u0041`, 100)+`"`, ",", "]", 10_000), accept},
		{"rows of a plausible size", repeat(`{"rows":[`, `{"id":"openwop.requirement.0211.a-plausible-row-id","scenario":"x.test.ts","result":"executed-pass","assertions":3}`, ",", "]}", 20_000), accept},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			got := allocated(func() { _, err = bundle.ParseIJSON(c.input) })
			budget := uint64(bundle.MemoryBudget(len(c.input)))
			const slack = 16 << 10 // the error value and its message
			if got > budget+slack {
				t.Errorf("%d-byte input: the reader allocated %d bytes (%.1f per input byte), over its budget of %d", len(c.input), got, float64(got)/float64(len(c.input)), budget)
			}
			var syn *bundle.SyntaxError
			refused := errors.As(err, &syn) && syn.Kind == bundle.RefuseTooLarge
			if c.expect == refuse && !refused {
				t.Errorf("%d-byte input: want a too-large refusal, got %v", len(c.input), err)
			}
			if c.expect == accept && err != nil {
				t.Errorf("%d-byte input: %v", len(c.input), err)
			}
			if err != nil && !refused {
				t.Errorf("%d-byte input: refused for another reason: %v", len(c.input), err)
			}
			t.Logf("%d bytes in, %d allocated (%.1f×), refused: %v", len(c.input), got, float64(got)/float64(len(c.input)), refused)
		})
	}
}

// Real bundles sit far inside the budget.
func TestCorpusWithinBudget(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testkit.CorpusDir(t), "evidence", "*", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "host-tiers.json" {
			continue
		}
		var perr error
		got := allocated(func() { _, perr = bundle.ParseIJSON(data) })
		if perr != nil {
			t.Fatalf("%s: %v", f, perr)
		}
		ratio := float64(got) / float64(len(data))
		t.Logf("%-60s %8d bytes, %.1f bytes allocated per byte", filepath.Base(f), len(data), ratio)
		if ratio > bundle.BudgetPerByte/2 {
			t.Errorf("%s: %.1f bytes per byte, more than half the budget", f, ratio)
		}
	}
}
