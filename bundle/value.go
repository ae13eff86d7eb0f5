package bundle

import "math"

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
type Value struct {
	kind    Kind
	boolean bool
	num     float64
	str     string
	items   []Value
	members []Member
}

// Member is one name/value pair of an object.
type Member struct {
	Name  string
	Value Value
}

// NullValue returns JSON null.
func NullValue() Value { return Value{} }

// BoolValue returns a JSON boolean.
func BoolValue(b bool) Value { return Value{kind: Bool, boolean: b} }

// NumberValue returns a JSON number. Non-finite numbers are refused when written.
func NumberValue(f float64) Value { return Value{kind: Number, num: f} }

// IntValue returns a JSON number holding an integer.
func IntValue(i int64) Value { return Value{kind: Number, num: float64(i)} }

// StringValue returns a JSON string.
func StringValue(s string) Value { return Value{kind: String, str: s} }

// ArrayValue returns a JSON array of the given items. The slice is not copied.
func ArrayValue(items ...Value) Value {
	if items == nil {
		items = []Value{}
	}
	return Value{kind: Array, items: items}
}

// ObjectValue returns a JSON object with members in the given order. The slice is
// not copied. Duplicate names are refused when the value is written.
func ObjectValue(members ...Member) Value {
	if members == nil {
		members = []Member{}
	}
	return Value{kind: Object, members: members}
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
func (v Value) Bool() (bool, bool) { return v.boolean, v.kind == Bool }

// Float returns the number and whether v is one.
func (v Value) Float() (float64, bool) { return v.num, v.kind == Number }

// MaxSafeInteger is 2^53−1, the largest integer I-JSON allows.
const MaxSafeInteger = 1<<53 - 1

// Int returns the number as an integer, and whether v is a number with an integral
// value within ±(2^53−1).
func (v Value) Int() (int64, bool) {
	if v.kind != Number || v.num != math.Trunc(v.num) || math.Abs(v.num) > MaxSafeInteger {
		return 0, false
	}
	return int64(v.num), true
}

// Str returns the string and whether v is one.
func (v Value) Str() (string, bool) { return v.str, v.kind == String }

// Items returns the elements of an array (nil for any other kind).
func (v Value) Items() []Value { return v.items }

// Members returns the members of an object in document order (nil for any other kind).
func (v Value) Members() []Member { return v.members }

// Get returns the value of the member called name and whether it is present.
// It reports false when v is not an object.
func (v Value) Get(name string) (Value, bool) {
	for i := range v.members {
		if v.members[i].Name == name {
			return v.members[i].Value, true
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
	members := make([]Member, len(v.members), len(v.members)+1)
	copy(members, v.members)
	for i := range members {
		if members[i].Name == name {
			members[i].Value = val
			return Value{kind: Object, members: members}
		}
	}
	return Value{kind: Object, members: append(members, Member{name, val})}
}

// Without returns a copy of the object v without the member name.
func (v Value) Without(name string) Value {
	members := make([]Member, 0, len(v.members))
	for _, m := range v.members {
		if m.Name != name {
			members = append(members, m)
		}
	}
	return Value{kind: Object, members: members}
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
		return a.boolean == b.boolean
	case Number:
		return a.num == b.num
	case String:
		return a.str == b.str
	case Array:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			if !Equal(a.items[i], b.items[i]) {
				return false
			}
		}
		return true
	case Object:
		if len(a.members) != len(b.members) {
			return false
		}
		for _, m := range a.members {
			bv, ok := b.Get(m.Name)
			if !ok || !Equal(m.Value, bv) {
				return false
			}
		}
		return true
	}
	return false
}
