// Package detach gives values decoded from a parsed bundle their own memory.
//
// The strict reader's strings share one copy of the input (bundle.ParseIJSON), so
// a verdict or a typed bundle kept after the parse tree is dropped would keep the
// whole file alive through any one of its strings. Strings copies every string
// reachable from a pointer, in place, so that what a long run keeps per bundle is
// what it needs.
package detach

import (
	"reflect"
	"strings"
)

// Strings replaces, in place, every string reachable from ptr (a non-nil pointer)
// through exported struct fields, pointers, slices, arrays, maps and interfaces
// with a copy of it. Unexported fields are left alone (a bundle.Value is copied
// with its Clone method instead); so are byte slices, which own their memory.
func Strings(ptr any) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	walk(v.Elem(), map[uintptr]bool{})
}

func walk(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() && v.Len() > 0 {
			v.SetString(strings.Clone(v.String()))
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		walk(v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			walk(e, seen)
			return
		}
		if v.CanSet() && hasStrings(e.Type()) {
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			walk(c, seen)
			v.Set(c)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				walk(v.Field(i), seen)
			}
		}
	case reflect.Slice:
		if v.IsNil() || !hasStrings(v.Type().Elem()) {
			return
		}
		for i := range v.Len() {
			walk(v.Index(i), seen)
		}
	case reflect.Array:
		if hasStrings(v.Type().Elem()) {
			for i := range v.Len() {
				walk(v.Index(i), seen)
			}
		}
	case reflect.Map:
		if v.IsNil() || (!hasStrings(v.Type().Key()) && !hasStrings(v.Type().Elem())) {
			return
		}
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var all []kv
		for iter.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(iter.Key())
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			walk(k, seen)
			walk(e, seen)
			all = append(all, kv{k, e})
		}
		v.Clear()
		for _, p := range all {
			v.SetMapIndex(p.k, p.v)
		}
	}
}

// hasStrings reports whether a value of type t can reach a string.
func hasStrings(t reflect.Type) bool {
	return reach(t, map[reflect.Type]bool{})
}

func reach(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return reach(t.Elem(), seen)
	case reflect.Map:
		return reach(t.Key(), seen) || reach(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() && reach(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
