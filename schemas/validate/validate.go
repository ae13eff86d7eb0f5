// Package validate validates documents against certcut's JSON Schemas (package
// schemas) with a general Draft 2020-12 validator:
// github.com/santhosh-tekuri/jsonschema/v6 with an ECMA-262 regexp engine
// (github.com/dlclark/regexp2), because the requirement id pattern needs a
// negative lookahead that Go's regexp lacks, asserting formats (date-time, uri) as
// the reference emitter's Ajv with ajv-formats does.
//
// No command links it: the validator's package initialisation alone compiles five
// metaschemas, milliseconds every process would pay. bundle.CheckSchema makes the
// bundle schema's checks in Go; this package is the reference the tests hold it to
// (TestCheckSchemaAgrees, FuzzCheckSchema), and validates the keyring and gate
// files in their tests.
package validate

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validator checks documents against one compiled schema. It is safe for
// concurrent use.
type Validator struct {
	name   string
	schema *jsonschema.Schema
	// open lists member paths whose schema accepts any object and that nothing
	// else in the schema looks into (discovery.document): their content cannot
	// fail, so Validate does not convert it. See openPaths.
	open [][]string
}

// Compile compiles the schema called name.
func Compile(name string) (*Validator, error) {
	data, err := schemas.Get(name)
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
	return &Validator{name: name, schema: s, open: openPaths(doc, nil)}, nil
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
	for _, path := range v.open {
		doc = emptied(doc, path)
	}
	err := v.schema.Validate(doc.Any()) // member order is irrelevant to a schema
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

// openPaths finds the members, reached through "properties" alone, whose schema
// accepts every object — only "type": "object" and "additionalProperties": true,
// besides annotations — and that no other part of the schema on the way looks
// into. The content of such a member cannot fail validation, so Validate hands
// the validator an empty object in its place: the captured discovery document is
// most of a large bundle, and converting it would only cost time. A schema that
// constrains the document, or might, is not open here, so the shortcut never
// changes a result (TestOpenShortcutChangesNothing).
func openPaths(schema any, at []string) [][]string {
	obj, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	if len(at) > 0 && acceptsAnyObject(obj) {
		return [][]string{at}
	}
	props, _ := obj["properties"].(map[string]any)
	var out [][]string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if onlyThroughProperties(obj, name) {
			out = append(out, openPaths(props[name], append(slices.Clone(at), name))...)
		}
	}
	return out
}

// onlyThroughProperties reports whether nothing in the schema obj but
// properties[name] applies a subschema to the member name.
func onlyThroughProperties(obj map[string]any, name string) bool {
	for k, v := range obj {
		switch k {
		case "$schema", "$id", "$comment", "title", "description", "type", "required", "properties", "additionalProperties":
			// additionalProperties never applies to a member listed in properties
		case "allOf", "anyOf", "oneOf":
			subs, _ := v.([]any)
			for _, sub := range subs {
				if mentions(sub, name) {
					return false
				}
			}
		case "if", "then", "else", "not":
			if mentions(v, name) {
				return false
			}
		default:
			return false // patternProperties, $ref, …: could reach the member
		}
	}
	return true
}

// mentions reports whether the schema s, applied to an object, could apply a
// subschema to its member name (conservatively: anything it cannot rule out).
func mentions(s any, name string) bool {
	obj, ok := s.(map[string]any)
	if !ok {
		return false // true and false judge the whole object, not a member
	}
	for k, v := range obj {
		switch k {
		case "properties":
			if props, _ := v.(map[string]any); props != nil {
				if _, ok := props[name]; ok {
					return true
				}
			}
		case "allOf", "anyOf", "oneOf":
			subs, _ := v.([]any)
			for _, sub := range subs {
				if mentions(sub, name) {
					return true
				}
			}
		case "if", "then", "else", "not":
			if mentions(v, name) {
				return true
			}
		case "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
			"dependentSchemas", "$ref", "$dynamicRef":
			return true
		}
	}
	return false
}

func acceptsAnyObject(obj map[string]any) bool {
	if obj["type"] != "object" || obj["additionalProperties"] != true {
		return false
	}
	for k := range obj {
		switch k {
		case "type", "additionalProperties", "description", "title", "$comment":
		default:
			return false
		}
	}
	return true
}

// emptied returns doc with the object at path replaced by an empty object; doc is
// unchanged when the path is absent or does not end at an object.
func emptied(doc bundle.Value, path []string) bundle.Value {
	if doc.Kind() != bundle.Object {
		return doc
	}
	child, ok := doc.Get(path[0])
	if !ok {
		return doc
	}
	if len(path) == 1 {
		if child.Kind() != bundle.Object {
			return doc
		}
		return doc.With(path[0], bundle.ObjectValue())
	}
	return doc.With(path[0], emptied(child, path[1:]))
}
