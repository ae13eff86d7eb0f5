package render

import (
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

// TestRuleMetaFromRegistry: SARIF's rule metadata of every registered rule is
// the registry's: full description its title and source, help and helpUri its
// section of docs/gate.md.
func TestRuleMetaFromRegistry(t *testing.T) {
	for _, r := range gate.Rules() {
		m := RuleMeta(string(r.ID), r.Title)
		if m.Short != r.Title || !strings.Contains(m.Full, r.Source) || !strings.HasSuffix(m.HelpURI, "docs/gate.md#"+r.Anchor) ||
			!strings.Contains(m.Help, "docs/gate.md#"+r.Anchor) {
			t.Errorf("%s: %+v", r.ID, m)
		}
	}
	if m := RuleMeta("not.registered", "t"); m.Full == "" || m.Help == "" || !strings.HasSuffix(m.HelpURI, "docs/gate.md") {
		t.Errorf("unregistered: %+v", m)
	}
}
