// Package schemas holds certcut's JSON Schemas (Draft 2020-12) and validates
// documents against them.
//
// The schemas are generated from the Go types — bundle.Bundle and keys.SigningKey,
// completed by their JSONSchemaExtend methods — by internal/schemagen, and committed:
// schemas/bundle-v3.schema.json and schemas/signing-key.schema.json. A test in
// internal/schemagen fails when the committed files drift from the types; `go generate
// ./...` rewrites them. They agree with the public OpenWOP schema facts (spec §1,
// §4.1); TestAgreesWithOpenWOP compares the bundle schema with OpenWOP's own.
//
// Verifying a bundle does not run a schema validator: bundle.CheckSchema makes the
// bundle schema's checks in Go, with the same problems. The validator, a general
// Draft 2020-12 one, is package schemas/validate: the tests hold the two equal,
// and keep the keyring and gate files valid under their schemas. This package
// only holds the files, so that a command that prints a schema does not link a
// schema compiler.
package schemas

//go:generate go run ../internal/schemagen

import (
	"embed"
	"fmt"
	"strings"
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
