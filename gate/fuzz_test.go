package gate_test

import (
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
)

// FuzzPolicyFiles: no input makes the corpus-ledger, harness-trust-anchor or
// gate-file readers panic, and what a JSON reader accepts is I-JSON.
func FuzzPolicyFiles(f *testing.F) {
	for _, seed := range []string{
		`{"$comment":"c","generated":"2026-11-01","suiteVersion":"2.45.30","scenarios":2,"requirements":{"openwop.it.a":[{"result":"executed-pass","scenario":null}]}}`,
		`{"$schema":"s","version":1,"updated":"u","rows":[{"requirementId":"openwop.requirement.0210.x","scenario":"a.test.ts","anchor":"oidc-test-issuer","rfc":"0216"}]}`,
		`{"rfc":"RFCS/0211.md","require":["0211.a",".b"],"minTier":1,"live":true}`,
		`{"rfc":"a","Rfc":"b"}`,
		`{"rows":[{"requirementId":"openwop.requirement.x","RequirementId":"y"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ijsonErr := bundle.ParseIJSON(data)
		if _, err := gate.ParseLedger(data, "ledger.json"); err == nil && ijsonErr != nil {
			t.Fatalf("ledger accepted a text that is not I-JSON: %v", ijsonErr)
		}
		if _, err := gate.ParseAnchors(data, "anchors.json"); err == nil && ijsonErr != nil {
			t.Fatalf("anchors accepted a text that is not I-JSON: %v", ijsonErr)
		}
		if _, err := gate.ParseFile(data, "gate.json"); err == nil && ijsonErr != nil {
			t.Fatalf("gate file accepted a text that is not I-JSON: %v", ijsonErr)
		}
		gate.ParseFile(data, "gate.yaml") // must not panic
	})
}
