package validate

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A member is open only when its schema accepts any object and nothing on the way
// could look inside it.
func TestOpenPathsGuard(t *testing.T) {
	open := `{"type":"object","additionalProperties":true,"description":"x"}`
	for _, tc := range []struct {
		schema string
		want   [][]string
	}{
		{`{"properties":{"d":{"properties":{"doc":` + open + `}}}}`, [][]string{{"d", "doc"}}},
		{`{"properties":{"doc":` + open + `},"allOf":[{"if":{"properties":{"x":{}}},"then":{"required":["doc"]}}]}`, [][]string{{"doc"}}},
		// constrained, or possibly reached some other way: not open
		{`{"properties":{"doc":{"type":"object","additionalProperties":true,"minProperties":1}}}`, nil},
		{`{"properties":{"doc":{"type":"object"}}}`, nil},
		{`{"properties":{"doc":` + open + `},"allOf":[{"properties":{"doc":{"required":["a"]}}}]}`, nil},
		{`{"properties":{"doc":` + open + `},"if":{"properties":{"doc":{"const":{}}}}}`, nil},
		{`{"properties":{"doc":` + open + `},"patternProperties":{"^d":{}}}`, nil},
		{`{"properties":{"d":{"properties":{"doc":` + open + `},"$ref":"#/x"}}}`, nil},
		{`{"properties":{"d":{"properties":{"doc":` + open + `}}},"anyOf":[{"additionalProperties":false}]}`, nil},
		{`{"items":` + open + `}`, nil}, // only member paths, never array items
	} {
		var s any
		if err := json.Unmarshal([]byte(tc.schema), &s); err != nil {
			t.Fatal(err)
		}
		if got := openPaths(s, nil); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: open %v, want %v", tc.schema, got, tc.want)
		}
	}
}
