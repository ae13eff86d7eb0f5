package gate_test

import (
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

// Every policy file the gate reads is read as strictly as a bundle: a second
// spelling of a member, a repeated member or an unknown one is refused with its
// place, so nothing a reviewer does not see can move a gate.
func TestPolicyFilesStrict(t *testing.T) {
	type parse func([]byte, string) error
	ledger := func(d []byte, n string) error { _, err := gate.ParseLedger(d, n); return err }
	anchors := func(d []byte, n string) error { _, err := gate.ParseAnchors(d, n); return err }
	gateFile := func(d []byte, n string) error { _, err := gate.ParseFile(d, n); return err }
	for _, c := range []struct {
		name       string
		parse      parse
		file, text string
		want       string
	}{
		{"ledger result spelled twice", ledger, "ledger.json", `{"requirements":{"openwop.it.a":[{"result":"blocked","Result":"executed-pass"}]}}`, `unknown member "Result" at /requirements/openwop.it.a/0`},
		{"ledger id listed twice", ledger, "ledger.json", `{"requirements":{"openwop.it.a":[{"result":"blocked"}],"openwop.it.a":[{"result":"executed-pass"}]}}`, `duplicate member name "openwop.it.a"`},
		{"ledger unknown result", ledger, "ledger.json", `{"requirements":{"openwop.it.a":[{"result":"passed"}]}}`, `result "passed" is not one of`},
		{"anchors case variant", anchors, "anchors.json", `{"rows":[{"requirementId":"openwop.requirement.0210.a","RequirementId":"openwop.requirement.0211.b","scenario":"s","anchor":"a","rfc":"0216"}]}`, `unknown member "RequirementId" at /rows/0`},
		{"anchors prefix, not an id", anchors, "anchors.json", `{"rows":[{"requirementId":"openwop.requirement.*","scenario":"s","anchor":"a","rfc":"0216"}]}`, `is not an exact id`},
		{"anchors id twice", anchors, "anchors.json", `{"rows":[{"requirementId":"openwop.requirement.a","scenario":"s","anchor":"a","rfc":"1"},{"requirementId":"openwop.requirement.a","scenario":"s","anchor":"a","rfc":"1"}]}`, `is already listed (rows[0])`},
		{"gate file JSON case variant", gateFile, "g.json", `{"rfc":"RFCS/0211.md","minTier":3,` + "\n" + `"MinTier":1}`, `line 2, column 1: unknown member "MinTier"`},
		{"gate file JSON duplicate", gateFile, "g.json", `{"minTier":3,"minTier":1}`, `duplicate member name "minTier"`},
		{"gate file YAML case variant", gateFile, "g.yaml", "rfc: a.md\nMinTier: 1\n", `field MinTier not found`},
		{"gate file YAML duplicate", gateFile, "g.yaml", "rfc: a.md\nminTier: 3\nminTier: 1\n", `already defined`},
		{"gate file YAML second document", gateFile, "g.yaml", "rfc: a.md\n---\nrfc: b.md\n", `more than one YAML document`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.parse([]byte(c.text), c.file)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
				t.Fatalf("error %v; want it to name %s and say %q", err, c.file, c.want)
			}
		})
	}
}
