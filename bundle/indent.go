package bundle

import (
	"fmt"
	"math"
	"strconv"
)

// Indent returns v as JSON.stringify(v, null, 2) writes it, followed by a newline:
// members in the order they are held, two spaces per level, ": " after names,
// empty arrays and objects as [] and {}. Scalars are written as in canonical JSON.
// This is the layout of bundle files on disk.
func Indent(v Value) ([]byte, error) { return indent(v, false) }

// IndentIJSON is Indent that also refuses, with a *WriteError of kind
// RefuseIntegerRange, a number whose written form an I-JSON reader (certcut's
// included) refuses: an integer beyond ±(2^53−1) whose shortest form is an
// integer literal (1e17 is written 100000000000000000; 1e21, written 1e+21,
// reads back).
func IndentIJSON(v Value) ([]byte, error) { return indent(v, true) }

func indent(v Value, ijson bool) ([]byte, error) {
	size := indentSize(v, 0) + 1
	size += size / 32 // escapes, which the estimate does not count
	out, err := appendIndent(make([]byte, 0, size), v, 0, ijson)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// unreadableInteger reports whether f is an integer beyond ±(2^53−1) whose
// written form an I-JSON reader refuses. (A number that is not finite is refused
// by AppendNumber.)
func unreadableInteger(f float64) bool {
	if math.Abs(f) <= MaxSafeInteger || f != math.Trunc(f) || math.IsInf(f, 0) {
		return false // a safe integer, written with a fraction, not finite, or NaN
	}
	text, err := AppendNumber(nil, f)
	if err == nil {
		_, err = ParseIJSON(text)
	}
	return err != nil
}

// indentSize is about what Indent writes for v at depth (escapes and the longest numbers
// aside), so that the output is allocated once rather than grown by doubling.
func indentSize(v Value, depth int) int {
	if n := scalarSize(v); n >= 0 {
		return n
	}
	if v.n == 0 {
		return 2 // [] or {}
	}
	n := 2 + 2*depth + 1
	step := 2 + 2*(depth+1) // a line break and the indentation
	if v.kind == Array {
		items := v.Items()
		for i := range items {
			s := scalarSize(items[i])
			if s < 0 {
				s = indentSize(items[i], depth+1)
			}
			n += step + s
		}
		return n
	}
	members := v.Members()
	for i := range members {
		s := scalarSize(members[i].Value)
		if s < 0 {
			s = indentSize(members[i].Value, depth+1)
		}
		n += step + len(members[i].Name) + 4 + s
	}
	return n
}

// scalarSize is indentSize for a scalar, and -1 for an array or an object.
func scalarSize(v Value) int {
	switch v.kind {
	case Null, Bool:
		return 5
	case Number:
		if f := v.num(); f == math.Trunc(f) && math.Abs(f) <= MaxSafeInteger {
			n := 1 // AppendNumber writes it with AppendInt
			if f < 0 {
				n, f = 2, -f
			}
			for ; f >= 10; f /= 10 {
				n++
			}
			return n
		}
		return 24 // the longest shortest form, as -1.2345678901234567e-308
	case String:
		return int(v.n) + 2
	}
	return -1
}

// commaNewline is a comma, a newline and the indentation of depth 31: a line
// break is commaNewline[1:2+2*depth], one after an item commaNewline[:2+2*depth].
const commaNewline = ",\n" + "                                                              "

// appendBreak appends a line break to depth (after a comma when comma is set).
func appendBreak(out []byte, depth int, comma bool) []byte {
	if comma {
		out = append(out, ',')
	}
	if n := 2 + 2*depth; n <= len(commaNewline) {
		return append(out, commaNewline[1:n]...)
	}
	out = append(out, '\n')
	for range depth {
		out = append(out, ' ', ' ')
	}
	return out
}

// appendIndent appends v at depth to out. The text is passed and returned, not
// held in a struct, so that appending writes no pointer to memory.
func appendIndent(out []byte, v Value, depth int, ijson bool) ([]byte, error) {
	var err error
	switch v.kind {
	case Array:
		items := v.Items()
		if len(items) == 0 {
			return append(out, '[', ']'), nil
		}
		out = append(out, '[')
		var names *siblingNames // made at the first object item
		for i := range items {
			out = appendBreak(out, depth+1, i > 0)
			if items[i].kind == Object {
				if names == nil {
					names = &siblingNames{}
				}
				out, err = appendObject(out, items[i].Members(), depth+1, ijson, names)
			} else {
				out, err = appendIndent(out, items[i], depth+1, ijson)
			}
			if err != nil {
				return out, err
			}
		}
		out = appendBreak(out, depth, false)
		return append(out, ']'), nil
	case Object:
		return appendObject(out, v.Members(), depth, ijson, nil)
	case String:
		return appendStringValue(out, v)
	case Number:
		if ijson && unreadableInteger(v.num()) {
			return out, &WriteError{Kind: RefuseIntegerRange, Msg: fmt.Sprintf("number %v is an integer beyond ±(2^53−1) written as an integer", v.num())}
		}
		return AppendNumber(out, v.num())
	case Bool:
		return strconv.AppendBool(out, v.n != 0), nil
	}
	return append(out, "null"...), nil
}

// siblingNames remembers, for the objects of one array (the rows of a bundle,
// say), the names of the last object written, and what was written before each
// member's value: the comma, the line break, the quoted name and ": ". An object
// whose names are those remembered, or the first of them, is written from what is
// remembered, its names neither escaped nor checked for repeats again: they were
// written, and found distinct, once. Names are compared as strings (rows built by
// Value share theirs, and equal pointers compare at once; rows read from a file
// have their own copies, compared byte by byte, which costs less than writing
// them).
type siblingNames struct {
	last  []Member // the last object written: its names are distinct
	texts [][]byte // texts[i] is what precedes the value of last[i], once made
}

// known reports whether members can be written from what is remembered.
func (s *siblingNames) known(members []Member) bool {
	if s == nil || len(members) > len(s.last) {
		return false
	}
	for i := range members {
		if members[i].Name != s.last[i].Name {
			return false
		}
	}
	return true
}

// text returns what precedes the value of member i at depth, made at first use.
func (s *siblingNames) text(i, depth int) []byte {
	if t := s.texts[i]; t != nil {
		return t
	}
	return s.makeText(i, depth)
}

func (s *siblingNames) makeText(i, depth int) []byte {
	text := appendBreak(nil, depth+1, true)
	text, _ = AppendString(text, s.last[i].Name) // written once already
	s.texts[i] = append(text, ':', ' ')
	return s.texts[i]
}

// remember records members, an object just written, as the last one.
func (s *siblingNames) remember(members []Member) {
	for i := range s.texts { // keep the texts of the names that stay
		if i >= len(members) || i >= len(s.last) || members[i].Name != s.last[i].Name {
			s.texts[i] = nil
		}
	}
	for len(s.texts) < len(members) {
		s.texts = append(s.texts, nil)
	}
	s.last = members
}

// appendObject appends an object of members at depth; names, when not nil,
// remembers the names of its siblings.
func appendObject(out []byte, members []Member, depth int, ijson bool, names *siblingNames) ([]byte, error) {
	if len(members) == 0 {
		return append(out, '{', '}'), nil
	}
	var err error
	out = append(out, '{')
	if names.known(members) {
		for i := range members {
			text := names.text(i, depth)
			if i == 0 {
				text = text[1:] // no comma
			}
			out = append(out, text...)
			if v := members[i].Value; v.kind == String {
				out, err = appendStringValue(out, v)
			} else {
				out, err = appendIndent(out, v, depth+1, ijson)
			}
			if err != nil {
				return out, err
			}
		}
		out = appendBreak(out, depth, false)
		return append(out, '}'), nil
	}
	var seen map[string]struct{} // only for large objects: small ones are scanned
	if len(members) > 16 {
		seen = make(map[string]struct{}, len(members))
	}
	for i := range members {
		name := members[i].Name
		dup := false
		if seen != nil {
			_, dup = seen[name]
			seen[name] = struct{}{}
		} else {
			for j := range i {
				dup = dup || members[j].Name == name
			}
		}
		if dup {
			return out, &WriteError{Kind: RefuseDuplicateName, Msg: "duplicate member name " + name}
		}
		out = appendBreak(out, depth+1, i > 0)
		if out, err = AppendString(out, name); err != nil {
			return out, err
		}
		out = append(out, ':', ' ')
		if out, err = appendMemberValue(out, members[i].Value, depth, ijson); err != nil {
			return out, err
		}
	}
	if names != nil {
		names.remember(members)
	}
	out = appendBreak(out, depth, false)
	return append(out, '}'), nil
}

// appendMemberValue appends the value of a member of an object at depth.
func appendMemberValue(out []byte, v Value, depth int, ijson bool) ([]byte, error) {
	if v.kind == String {
		return appendStringValue(out, v)
	}
	return appendIndent(out, v, depth+1, ijson)
}
