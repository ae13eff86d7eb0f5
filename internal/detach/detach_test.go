package detach

import (
	"encoding/json"
	"testing"
	"unsafe"
)

type inner struct {
	Name string
	Tags []string
	Any  any
	hide string
}

type outer struct {
	A     string
	P     *inner
	In    inner
	M     map[string]json.RawMessage
	Arr   [2]string
	Nums  []int
	Raw   json.RawMessage
	Cycle *outer
}

func shares(a, b string) bool {
	pa, pb := uintptr(unsafe.Pointer(unsafe.StringData(a))), uintptr(unsafe.Pointer(unsafe.StringData(b)))
	return pa >= pb && pa < pb+uintptr(len(b))
}

// Every reachable exported string gets its own memory; values are unchanged;
// unexported fields and byte slices are left alone; cycles end.
func TestStrings(t *testing.T) {
	input := "alpha beta gamma delta epsilon zeta"
	sub := func(i, j int) string { return input[i:j] }
	o := &outer{
		A:   sub(0, 5),
		P:   &inner{Name: sub(6, 10), Tags: []string{sub(11, 16)}, Any: sub(17, 22), hide: sub(23, 30)},
		In:  inner{Name: sub(31, 35), Any: &inner{Name: sub(0, 3)}},
		M:   map[string]json.RawMessage{sub(6, 8): json.RawMessage(`1`)},
		Arr: [2]string{sub(0, 1), sub(1, 2)},
	}
	o.Cycle = o
	Strings(o)
	for _, s := range []string{o.A, o.P.Name, o.P.Tags[0], o.P.Any.(string), o.In.Name, o.In.Any.(*inner).Name, o.Arr[0], o.Arr[1]} {
		if shares(s, input) {
			t.Errorf("%q still points into the input", s)
		}
	}
	for k := range o.M {
		if shares(k, input) || k != "be" {
			t.Errorf("map key %q", k)
		}
	}
	if !shares(o.P.hide, input) {
		t.Error("an unexported field was changed")
	}
	if o.A != "alpha" || o.P.Tags[0] != "gamma" || o.In.Name != "zeta" || string(o.M["be"]) != "1" {
		t.Errorf("values changed: %+v", o)
	}
}
