package bundle

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Two more refusals, for policy files decoded with DecodeStrict.
const (
	RefuseUnknownMember RefusalKind = "unknown-member"
	RefuseWrongType     RefusalKind = "wrong-type"
)

// DecodeStrict decodes a policy file (a keyring, a host-tier table, a profile
// registry, a gate file, a list) into v, a pointer to a struct whose members are
// named by json tags, as strictly as a bundle is read:
//
//   - the text must be I-JSON (ParseIJSON's refusals: duplicate names, lone
//     surrogates, unsafe integers, trailing data, …);
//   - member names match the tags exactly, case included: a member "PublicKey" is
//     not "publicKey", it is unknown;
//   - an unknown member is refused (RefuseUnknownMember), so neither a typo nor a
//     second spelling can add or override anything a reviewer does not see;
//   - a value of the wrong JSON type is refused (RefuseWrongType).
//
// Every refusal is a *SyntaxError with the line and column of the problem.
func DecodeStrict(data []byte, v any) error {
	if _, err := ParseIJSON(data); err != nil {
		return err
	}
	err := json.Unmarshal(data, v,
		json.RejectUnknownMembers(true),
		json.MatchCaseInsensitiveNames(false),
		jsontext.AllowDuplicateNames(false),
		jsontext.AllowInvalidUTF8(false))
	if err == nil {
		return nil
	}
	p := parser{data: data}
	var se *json.SemanticError
	if !errors.As(err, &se) {
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			return p.fail(int(syn.ByteOffset), RefuseNotJSON, "%v", syn.Err)
		}
		return p.fail(0, RefuseNotJSON, "%v", err)
	}
	where := string(se.JSONPointer)
	if where == "" {
		where = "the top level"
	}
	offset := int(se.ByteOffset)
	if errors.Is(se.Err, json.ErrUnknownName) {
		name := se.JSONPointer.LastToken()
		parent := strings.TrimSuffix(string(se.JSONPointer), "/"+escapePointer(name))
		if parent == "" {
			parent = "the top level"
		}
		msg := fmt.Sprintf("unknown member %q at %s", name, parent)
		if known := memberNames(se.GoType); len(known) > 0 {
			msg += fmt.Sprintf(" (names are exact, case included; known here: %s)", strings.Join(known, ", "))
		}
		return p.fail(nameOffset(data, offset, name), RefuseUnknownMember, "%s", msg)
	}
	want := "the expected type"
	if se.GoType != nil {
		want = jsonKindOf(se.GoType)
	}
	got := "a value"
	if se.JSONKind != 0 {
		got = kindWord(se.JSONKind)
	}
	return p.fail(offset, RefuseWrongType, "%s is %s, but must be %s", where, got, want)
}

// nameOffset finds where the member name starts, searching back from the offset
// the decoder reports (which lies after the name).
func nameOffset(data []byte, offset int, name string) int {
	if offset > len(data) {
		offset = len(data)
	}
	quoted, _ := json.Marshal(name)
	if i := strings.LastIndex(string(data[:offset]), string(quoted)); i >= 0 {
		return i
	}
	return offset
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// memberNames lists the JSON member names a struct type takes, sorted.
func memberNames(t reflect.Type) []string {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func jsonKindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKindOf(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "of type " + t.String()
}

func kindWord(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a value"
}
