package jsonkind

import "testing"

func TestSniff(t *testing.T) {
	for doc, want := range map[string]Kind{
		`{"bundleVersion":"3"}`:                            Bundle,
		`{"bundleVersion":"2","results":{}}`:               Bundle,
		`{"protocolVersions":["2.0"],"signingKeys":[]}`:    Discovery,
		`{"implementation":{"name":"x"}}`:                  Discovery,
		`{"payloadType":"x","payload":"","signatures":[]}`: Envelope,
		`{"keyringVersion":1,"keys":[]}`:                   Keyring,
		`{"hosts":[]}`:                                     Tiers,
		`{"profiles":[]}`:                                  Registry,
		`{"rfc":"RFCS/0211.md","minTier":1}`:               GateFile,
		`{"_type":"https://in-toto.io/Statement/v1","predicateType":"x","subject":[]}`: Statement,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`:   Schema,
		`{"anything":1}`: Other,
		`[1,2]`:          "a JSON array",
		`"text"`:         "a JSON string",
		`not json`:       "",
	} {
		if got := Sniff([]byte(doc)); got != want {
			t.Errorf("Sniff(%s) = %q, want %q", doc, got, want)
		}
	}
}
