package bundle

import (
	"math"
	"strings"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The six JSON types. The zero Value is Null.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Value is one JSON value as the strict reader parsed it, or as a caller built it.
//
// Objects keep their members in the order written, so a document can be written back
// with the member order it had (the reference emitter's order), while canonical JSON
// sorts them. Presence is data: a member that is absent is not in Members, and a
// member whose value is JSON null is present with a Null value.
//
// Numbers are kept as the IEEE 754 double that ECMAScript's JSON.parse would produce.
//
// A Value is three words: a pointer (to the string's bytes, the first item or the
// first member), a length (or the number's bits, or the boolean), and the kind
// with the verbatim flag. A bundle holds tens of thousands of values, so their size
// is most of the memory a parsed bundle takes.
type Value struct {
	ptr  unsafe.Pointer
	n    uint64
	kind Kind
	// verbatim marks a string the reader took from input with no escape in it:
	// with no byte JSON escapes and valid UTF-8 (the reader refuses anything
	// else), it is written as itself, so Indent and the canonical writer copy it
	// without looking at it again. Only the reader sets it; a string built in
	// code is looked at when it is written. Nothing may keep it on a Value made
	// from part of a string (a cut through a UTF-8 sequence would be written
	// unrefused): StringValue, the only way to make one, leaves it unset.
	verbatim bool
}

// Member is one name/value pair of an object.
type Member struct {
	Name  string
	Value Value
}

// NullValue returns JSON null.
func NullValue() Value { return Value{} }

// BoolValue returns a JSON boolean.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: Bool, n: 1}
	}
	return Value{kind: Bool}
}

// NumberValue returns a JSON number. Non-finite numbers are refused when written.
func NumberValue(f float64) Value { return Value{kind: Number, n: math.Float64bits(f)} }

// IntValue returns a JSON number holding an integer.
func IntValue(i int64) Value { return NumberValue(float64(i)) }

// StringValue returns a JSON string.
func StringValue(s string) Value {
	return Value{kind: String, ptr: unsafe.Pointer(unsafe.StringData(s)), n: uint64(len(s))}
}

// ArrayValue returns a JSON array of the given items. The slice is not copied.
func ArrayValue(items ...Value) Value {
	return Value{kind: Array, ptr: unsafe.Pointer(unsafe.SliceData(items)), n: uint64(len(items))}
}

// ObjectValue returns a JSON object with members in the given order. The slice is
// not copied. Duplicate names are refused when the value is written.
func ObjectValue(members ...Member) Value {
	return Value{kind: Object, ptr: unsafe.Pointer(unsafe.SliceData(members)), n: uint64(len(members))}
}

// StringsValue returns a JSON array of strings.
func StringsValue(ss []string) Value {
	items := make([]Value, len(ss))
	for i, s := range ss {
		items[i] = StringValue(s)
	}
	return ArrayValue(items...)
}

// Kind reports the JSON type of v.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is JSON null.
func (v Value) IsNull() bool { return v.kind == Null }

// Bool returns the boolean and whether v is one.
func (v Value) Bool() (bool, bool) { return v.kind == Bool && v.n != 0, v.kind == Bool }

// Float returns the number and whether v is one.
func (v Value) Float() (float64, bool) {
	if v.kind != Number {
		return 0, false
	}
	return math.Float64frombits(v.n), true
}

// num returns the number v holds (0 for any other kind).
func (v Value) num() float64 {
	if v.kind != Number {
		return 0
	}
	return math.Float64frombits(v.n)
}

// MaxSafeInteger is 2^53−1, the largest integer I-JSON allows.
const MaxSafeInteger = 1<<53 - 1

// Int returns the number as an integer, and whether v is a number with an integral
// value within ±(2^53−1).
func (v Value) Int() (int64, bool) {
	f := v.num()
	if v.kind != Number || f != math.Trunc(f) || math.Abs(f) > MaxSafeInteger {
		return 0, false
	}
	return int64(f), true
}

// Any returns v as plain Go values, the ones a JSON Schema validator reads:
// nil, bool, int64 for an integral number within ±(2^53−1) and float64 for any
// other, string, []any and map[string]any (member order is dropped; the reader
// has refused repeated names).
func (v Value) Any() any {
	switch v.kind {
	case Bool:
		return v.n != 0
	case Number:
		if n, ok := v.Int(); ok {
			return n
		}
		return v.num()
	case String:
		return v.str()
	case Array:
		items := v.Items()
		out := make([]any, len(items))
		for i, item := range items {
			out[i] = item.Any()
		}
		return out
	case Object:
		members := v.Members()
		out := make(map[string]any, len(members))
		for _, m := range members {
			out[m.Name] = m.Value.Any()
		}
		return out
	}
	return nil
}

// Str returns the string and whether v is one.
func (v Value) Str() (string, bool) {
	if v.kind != String {
		return "", false
	}
	return v.str(), true
}

// str returns the string v holds; v must be a String.
func (v Value) str() string { return unsafe.String((*byte)(v.ptr), int(v.n)) }

// Items returns the elements of an array (nil for any other kind).
func (v Value) Items() []Value {
	if v.kind != Array {
		return nil
	}
	if v.n == 0 {
		return noItems
	}
	return unsafe.Slice((*Value)(v.ptr), int(v.n))
}

// Members returns the members of an object in document order (nil for any other kind).
func (v Value) Members() []Member {
	if v.kind != Object {
		return nil
	}
	if v.n == 0 {
		return noMembers
	}
	return unsafe.Slice((*Member)(v.ptr), int(v.n))
}

// Len returns the number of items of an array or members of an object, the length
// in bytes of a string, and 0 for any other kind.
func (v Value) Len() int {
	switch v.kind {
	case String, Array, Object:
		return int(v.n)
	}
	return 0
}

// Get returns the value of the member called name and whether it is present.
// It reports false when v is not an object.
func (v Value) Get(name string) (Value, bool) {
	if v.kind != Object {
		return Value{}, false
	}
	members := v.Members()
	for i := range members {
		if members[i].Name == name {
			return members[i].Value, true
		}
	}
	return Value{}, false
}

// Has reports whether v is an object with a member called name.
func (v Value) Has(name string) bool {
	_, ok := v.Get(name)
	return ok
}

// Path follows member names from v and returns the value found, if every step is present.
func (v Value) Path(names ...string) (Value, bool) {
	cur := v
	for _, n := range names {
		next, ok := cur.Get(n)
		if !ok {
			return Value{}, false
		}
		cur = next
	}
	return cur, true
}

// With returns a copy of the object v with the member name set to val: replaced in
// place when present, appended otherwise. v itself is not modified.
func (v Value) With(name string, val Value) Value {
	old := v.Members()
	members := make([]Member, len(old), len(old)+1)
	copy(members, old)
	for i := range members {
		if members[i].Name == name {
			members[i].Value = val
			return ObjectValue(members...)
		}
	}
	return ObjectValue(append(members, Member{name, val})...)
}

// Without returns a copy of the object v without the member name.
func (v Value) Without(name string) Value {
	members := make([]Member, 0, v.Len())
	for _, m := range v.Members() {
		if m.Name != name {
			members = append(members, m)
		}
	}
	return ObjectValue(members...)
}

// Equal reports whether a and b are the same JSON value: same kind, same numbers,
// same strings, same items in order and the same members in any order.
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Null:
		return true
	case Bool:
		return (a.n != 0) == (b.n != 0)
	case Number:
		return a.num() == b.num()
	case String:
		return a.str() == b.str()
	case Array:
		ai, bi := a.Items(), b.Items()
		if len(ai) != len(bi) {
			return false
		}
		for i := range ai {
			if !Equal(ai[i], bi[i]) {
				return false
			}
		}
		return true
	case Object:
		if a.n != b.n {
			return false
		}
		for _, m := range a.Members() {
			bv, ok := b.Get(m.Name)
			if !ok || !Equal(m.Value, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// Clone returns a deep copy of v that shares no memory with it: its own strings
// (a string of a parsed tree keeps the whole input alive), items and members.
func (v Value) Clone() Value {
	switch v.kind {
	case String:
		return StringValue(strings.Clone(v.str()))
	case Array:
		items := v.Items()
		if len(items) == 0 {
			return ArrayValue()
		}
		out := make([]Value, len(items))
		for i, item := range items {
			out[i] = item.Clone()
		}
		return ArrayValue(out...)
	case Object:
		members := v.Members()
		if len(members) == 0 {
			return ObjectValue()
		}
		out := make([]Member, len(members))
		for i, m := range members {
			out[i] = Member{Name: strings.Clone(m.Name), Value: m.Value.Clone()}
		}
		return ObjectValue(out...)
	}
	return v
}
