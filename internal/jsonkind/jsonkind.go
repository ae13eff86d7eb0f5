// Package jsonkind tells which of the documents certcut reads a JSON document
// looks like, so that a command given the wrong one can say so plainly ("not a
// keyring: it is a discovery document") instead of listing the members it does
// not know. It guesses from the top-level member names only and decides
// nothing: the readers still judge the document.
package jsonkind

import (
	"strings"

	"github.com/certcut/certcut/bundle"
)

// Kind is what a document looks like.
type Kind string

// The kinds.
const (
	Bundle    Kind = "a certification bundle"
	Discovery Kind = "a discovery document (/.well-known/openwop)"
	Envelope  Kind = "a DSSE envelope (an attestation)"
	Keyring   Kind = "a keyring"
	Registry  Kind = "a profile registry"
	Tiers     Kind = "a host-tier table"
	Schema    Kind = "a JSON Schema"
	Statement Kind = "an in-toto statement (an attestation's payload)"
	GateFile  Kind = "a gate file"
	Other     Kind = "a JSON object of another kind"
)

// Of guesses the kind of a parsed document. A document that is not an object
// is Other's word for its type ("a JSON array").
func Of(v bundle.Value) Kind {
	if v.Kind() != bundle.Object {
		return Kind("a JSON " + v.Kind().String())
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := v.Get(n); ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("bundleVersion"):
		return Bundle
	case has("payloadType") && has("signatures"):
		return Envelope
	case has("_type") && has("predicateType"):
		return Statement
	case has("keyringVersion"):
		return Keyring
	case has("signingKeys", "protocolVersions", "implementation", "preferredVersion"):
		return Discovery
	case has("hosts"):
		return Tiers
	case has("profiles"):
		return Registry
	case has("rfc", "require", "requireCorpus", "minTier"):
		return GateFile
	}
	if s, ok := v.Get("$schema"); ok {
		if text, _ := s.Str(); strings.Contains(text, "json-schema.org") && has("properties", "type", "$defs") {
			return Schema
		}
	}
	return Other
}

// Sniff parses data and guesses its kind; "" when it is not JSON.
func Sniff(data []byte) Kind {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return ""
	}
	return Of(v)
}
