package rows

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// nativeMembers are the members a row may have (the schema's row object is closed).
var nativeMembers = []string{"id", "scenario", "result", "assertions", "detail", "evidence"}

// ReadNative reads native rows: a JSON array of row objects, or JSON Lines with one
// row object per line (blank lines allowed). Each row is
// {id, scenario, result, assertions?, detail?, evidence?} exactly as a bundle holds
// it; text is read as I-JSON, members and types are checked, and an id that appears
// twice is refused. source names the input in errors.
func ReadNative(data []byte, source string) ([]Sourced, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, inputErr(source, 0, "no rows (the file is empty)")
	}
	var out []Sourced
	var rd bundle.RowDecoder
	if trimmed[0] == '[' {
		v, err := bundle.ParseIJSON(data)
		if err != nil {
			return nil, inputErr(source, 0, "not a JSON array of rows: %v", err)
		}
		out = make([]Sourced, 0, v.Len())
		for i, item := range v.Items() {
			s, err := nativeRow(&rd, item, source+": row "+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	} else {
		for n, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			v, err := bundle.ParseIJSON(line)
			if err != nil {
				return nil, inputErr(source, n+1, "not a JSON row: %s", lineSyntax(err))
			}
			s, err := nativeRow(&rd, v, fmt.Sprintf("%s:%d", source, n+1))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, inputErr(source, 0, "no rows")
	}
	seen := make(map[string]string, len(out))
	for _, s := range out {
		if first, dup := seen[s.Row.ID]; dup {
			return nil, &DuplicateError{ID: s.Row.ID, First: first, Second: s.Origin}
		}
		seen[s.Row.ID] = s.Origin
	}
	return out, nil
}

func nativeRow(rd *bundle.RowDecoder, v bundle.Value, where string) (Sourced, error) {
	fail := func(format string, args ...any) (Sourced, error) {
		return Sourced{}, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
	}
	if v.Kind() != bundle.Object {
		return fail("a row is a JSON object {id, scenario, result, assertions?, detail?, evidence?}, this is %s", v.Kind())
	}
	for _, m := range v.Members() {
		if !slices.Contains(nativeMembers, m.Name) {
			return fail("unknown member %q (a row has only %s)", m.Name, strings.Join(nativeMembers, ", "))
		}
	}
	if res, ok := v.Get("result"); ok {
		if s, isStr := res.Str(); isStr && !bundle.ValidResult(s) {
			return fail("unknown result %q; a result is one of %s", s, strings.Join(bundle.Results, ", "))
		}
	}
	row, problems := rd.Decode(v, "")
	if len(problems) > 0 {
		p := problems[0]
		name := strings.TrimPrefix(p.Pointer, "/")
		if name == "" {
			name = "row"
		}
		return fail("%s: %s", name, p.Message)
	}
	if row.ID == "" || row.Scenario == "" {
		return fail("id and scenario must be non-empty")
	}
	if row.Assertions != nil && *row.Assertions < 0 {
		return fail("assertions is %d; it counts assertions, so it is 0 or more", *row.Assertions)
	}
	if ev, ok := v.Get("evidence"); ok {
		for _, m := range ev.Members() {
			if m.Name != "recovery" && m.Name != "recoveryBounds" {
				return fail("evidence has unknown member %q (evidence holds recovery and recoveryBounds)", m.Name)
			}
		}
		if len(ev.Members()) == 0 {
			return fail("evidence is empty; leave it out instead")
		}
	}
	return Sourced{Row: row, Origin: where}, nil
}
