// Package schemas holds certcut's JSON Schemas (Draft 2020-12) and validates
// documents against them.
//
// The schemas are generated from the Go types — bundle.Bundle and keys.SigningKey,
// completed by their JSONSchemaExtend methods — by schemas/gen, and committed:
// schemas/bundle-v3.schema.json and schemas/signing-key.schema.json. A test in
// schemas/gen fails when the committed files drift from the types; `go generate
// ./...` rewrites them. They agree with the public OpenWOP schema facts (spec §1,
// §4.1); TestAgreesWithOpenWOP compares the bundle schema with OpenWOP's own.
//
// Validation uses github.com/santhosh-tekuri/jsonschema/v6 with an ECMA-262 regexp
// engine (github.com/dlclark/regexp2), because the requirement id pattern needs a
// negative lookahead that Go's regexp lacks, and asserts formats (date-time, uri)
// as the reference emitter's Ajv with ajv-formats does.
package schemas

//go:generate go run ./gen

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/certcut/certcut/bundle"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

// Entry names one schema: the word `bundle schema` takes, its file and its title.
type Entry struct {
	Name  string `json:"name"`
	File  string `json:"file"`
	Title string `json:"title"`
}

// List returns the schemas in the generator's order.
func List() []Entry { return append([]Entry(nil), entries...) }

// Names returns the names `bundle schema` accepts.
func Names() []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name
	}
	return out
}

// UnknownError is returned for a schema name that does not exist.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("no schema called %q; the schemas are %s", e.Name, strings.Join(Names(), ", "))
}

// Get returns the schema file called name ("bundle", "key", …), as committed.
func Get(name string) ([]byte, error) {
	for _, e := range entries {
		if e.Name == name {
			return files.ReadFile(e.File)
		}
	}
	return nil, &UnknownError{Name: name}
}

// Validator checks documents against one compiled schema. It is safe for
// concurrent use.
type Validator struct {
	name   string
	schema *jsonschema.Schema
}

// Compile compiles the schema called name.
func Compile(name string) (*Validator, error) {
	data, err := Get(name)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseRegexpEngine(ecmaRegexp)
	url := "certcut:///schemas/" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return &Validator{name: name, schema: s}, nil
}

var bundleValidator = sync.OnceValue(func() *Validator {
	v, err := Compile("bundle")
	if err != nil {
		panic("schemas: the embedded bundle schema does not compile: " + err.Error())
	}
	return v
})

// Bundle returns the validator of the bundle v3 schema, compiled once.
func Bundle() *Validator { return bundleValidator() }

// Validate checks doc and returns one problem per failed leaf assertion, each
// named by the JSON pointer of the member concerned, sorted by pointer (array
// indexes in numeric order) and then message, so the output is stable. A missing
// required member and a member a closed object does not allow are named by their
// own pointer ("/signature", "/extra"), not their parent's. None means valid.
func (v *Validator) Validate(doc bundle.Value) []bundle.Problem {
	err := v.schema.Validate(toAny(doc))
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []bundle.Problem{{Pointer: "", Message: err.Error()}}
	}
	var out []bundle.Problem
	collect(verr, &out)
	sortProblems(out)
	return dedupe(out)
}

// toAny converts a parsed document to the values the validator reads: nil, bool,
// float64, string, []any and map[string]any. Member order is irrelevant to a
// schema, and the reader has already refused duplicate names.
func toAny(v bundle.Value) any {
	switch v.Kind() {
	case bundle.Bool:
		b, _ := v.Bool()
		return b
	case bundle.Number:
		f, _ := v.Float()
		return f
	case bundle.String:
		s, _ := v.Str()
		return s
	case bundle.Array:
		items := v.Items()
		out := make([]any, len(items))
		for i, item := range items {
			out[i] = toAny(item)
		}
		return out
	case bundle.Object:
		members := v.Members()
		out := make(map[string]any, len(members))
		for _, m := range members {
			out[m.Name] = toAny(m.Value)
		}
		return out
	}
	return nil
}
