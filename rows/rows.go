// Package rows turns leg results into bundle rows. Each input format has an adapter:
// the conformance suite's own requirement ledger (requirement-ledger.jsonl), native
// rows (a JSON array or JSON Lines of {id, scenario, result, assertions?, detail?,
// evidence?}), a vitest JSON report and JUnit XML. Every adapter returns the same
// []Sourced; Merge joins inputs and refuses an id that two of them record. Nothing
// downstream knows which adapter a row came from: Sourced.Origin is only for
// messages.
//
// Ids for test reports follow the spec's scheme (§9): openwop.it.<stem>.<slug>[~N]
// per test and one openwop.scenario.<stem> (or openwop.floor.<stem> for a profile
// floor scenario) per file.
package rows

import (
	"errors"
	"fmt"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// Sourced is a row and where it was read, e.g. "rows.json:12" or
// "report.json: v2-era-key.test.ts".
type Sourced struct {
	Row    bundle.Row
	Origin string
}

// Options tune the test-report adapters.
type Options struct {
	// IsFloor reports whether a scenario file stem is a profile floor scenario, whose
	// per-file row is openwop.floor.<stem>. Nil: every per-file row is
	// openwop.scenario.<stem>.
	IsFloor func(stem string) bool
}

// InputError is malformed input: which input, where in it (line, or 0), and why.
type InputError struct {
	Source string
	Line   int
	Msg    string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Source, e.Msg)
}

func inputErr(source string, line int, format string, args ...any) error {
	return &InputError{Source: source, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// DuplicateError is one requirement id recorded by two inputs (or twice in one
// input that allows no repeats).
type DuplicateError struct {
	ID            string
	First, Second string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("requirement %s is recorded twice: in %s and in %s; a bundle holds exactly one row per requirement (drop one input, or fix the one that is wrong)", e.ID, e.First, e.Second)
}

// Merge joins the rows of several inputs in order, refusing any id that appears
// twice, and checks each id against the schema's id pattern.
func Merge(inputs ...[]Sourced) ([]bundle.Row, error) {
	n := 0
	for _, in := range inputs {
		n += len(in)
	}
	seen := make(map[string]string, n)
	out := make([]bundle.Row, 0, n)
	for _, in := range inputs {
		for _, s := range in {
			if !bundle.HasRequirementIDForm(s.Row.ID) {
				return nil, fmt.Errorf("%s: requirement id %q is not of the form openwop.<requirement|it|scenario|floor|profile|family>.<name>", s.Origin, s.Row.ID)
			}
			if first, dup := seen[s.Row.ID]; dup {
				return nil, &DuplicateError{ID: s.Row.ID, First: first, Second: s.Origin}
			}
			seen[s.Row.ID] = s.Origin
			out = append(out, s.Row)
		}
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }

// firstLine returns the first non-empty line of s, cut to n bytes at a rune
// boundary, for failure messages in row details.
func firstLine(s string, n int) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(line) > n {
			cut := n
			for cut > 0 && !utf8RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut] + "…"
		}
		return line
	}
	return ""
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// lineSyntax describes a syntax error inside one line of JSON Lines: the column
// only, since the line is already named.
func lineSyntax(err error) string {
	var syn *bundle.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("column %d: %s (%s)", syn.Column, syn.Msg, syn.Kind)
	}
	return err.Error()
}
