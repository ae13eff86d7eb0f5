package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

func anchorStatus(t *testing.T, r *gate.Repo) map[string]gate.Criterion {
	t.Helper()
	out := map[string]gate.Criterion{}
	for _, c := range r.Declared(t.Context()).Criteria {
		if strings.HasPrefix(string(c.ID), "spec.anchors.") {
			out[string(c.ID)] = c
		}
	}
	return out
}

// TestAnchorsSnapshot: the real list is closed (ids, enum, the RFC 0216 table,
// floors); the scenario sources are absent from the snapshot, so that check is
// BLOCKED with the reason.
func TestAnchorsSnapshot(t *testing.T) {
	dir, opts := specSnapshot(t)
	got := anchorStatus(t, openSnapshot(t, dir, opts, gate.Config{}))
	for id, want := range map[string]gate.Status{gate.CritAnchorsIDs: gate.Pass, gate.CritAnchorsTables: gate.Pass, gate.CritAnchorsFloor: gate.Pass, gate.CritAnchorsSources: gate.Blocked} {
		if got[id].Status != want {
			t.Errorf("%s: %s %s", id, got[id].Status, got[id].Reason)
		}
	}
	if !strings.Contains(got[gate.CritAnchorsSources].Reason, "conformance/requirements.json absent") {
		t.Errorf("%s", got[gate.CritAnchorsSources].Reason)
	}
}

// The real list with an id added (no RFC table names it), an id with an empty
// segment, an anchor outside the enum, and an anchor scenario put on a floor.
func TestAnchorsEdited(t *testing.T) {
	dir, opts := specSnapshot(t)
	list := filepath.Join(dir, "spec", "v2", "harness-trust-anchors.json")
	editFile(t, list, `"rows": [`, `"rows": [
    {"requirementId": "openwop.requirement.0216.not-in-a-table", "scenario": "v2-lane-exp-only-bound.test.ts", "anchor": "oidc-test-issuer", "rfc": "0216"},
    {"requirementId": "openwop.requirement.0216..empty", "scenario": "v2-lane-exp-only-bound.test.ts", "anchor": "a-new-anchor", "rfc": "0216"},`)
	editFile(t, filepath.Join(dir, "spec", "v2", "profiles.json"), `"v2-capabilities-root-closed"`, `"v2-lane-exp-only-bound.test.ts", "v2-capabilities-root-closed"`)
	got := anchorStatus(t, openSnapshot(t, dir, opts, gate.Config{}))
	ids := got[gate.CritAnchorsIDs]
	if ids.Status != gate.Fail || len(ids.Findings) != 2 || !strings.Contains(ids.Findings[0].Message, "empty segment") || !strings.Contains(ids.Findings[1].Message, `"a-new-anchor" is not in`) {
		t.Errorf("ids: %s %+v", ids.Status, ids.Findings)
	}
	if c := got[gate.CritAnchorsTables]; c.Status != gate.Fail || !strings.Contains(c.Reason, "openwop.requirement.0216.not-in-a-table is listed, but no Active or Accepted RFC") {
		t.Errorf("tables: %s %s", c.Status, c.Reason)
	}
	if c := got[gate.CritAnchorsFloor]; c.Status != gate.Fail || !strings.Contains(c.Reason, "is a floor scenario of openwop-discovery-core") {
		t.Errorf("floor: %s %s", c.Status, c.Reason)
	}
	// A table row whose RFC is no longer Active or Accepted drops out: the
	// listed ids are then not named by any table.
	rfc := filepath.Join(dir, "RFCS", "0216-colocated-companion-bundles.md")
	if _, err := os.Stat(rfc); err != nil {
		m, _ := filepath.Glob(filepath.Join(dir, "RFCS", "0216-*.md"))
		rfc = m[0]
	}
	editFile(t, rfc, "`Accepted`", "`Draft`")
	if c := anchorStatus(t, openSnapshot(t, dir, opts, gate.Config{}))[gate.CritAnchorsTables]; c.Status != gate.Fail || len(c.Findings) != 9 {
		t.Errorf("tables after 0216 → Draft: %s %d findings", c.Status, len(c.Findings))
	}
}

// With scenario sources: PASS when each scenario exists, is named by its id
// (openwop.scenario.<stem>, or a requirements.json record) and calls
// harnessClaimed(; FAIL when one does not.
func TestAnchorsSources(t *testing.T) {
	dir, opts := specSnapshot(t)
	scen := filepath.Join(dir, "conformance", "src", "scenarios")
	os.MkdirAll(scen, 0o755)
	for _, f := range []string{"v2-lane-exp-only-bound.test.ts", "v2-oidc-id-token-audience.test.ts"} {
		os.WriteFile(filepath.Join(scen, f), []byte("if (!harnessClaimed('oidc-test-issuer')) skip();\n"), 0o644)
	}
	reqs := `{"records":[
 {"file":"v2-lane-exp-only-bound.test.ts","explicitId":"openwop.requirement.0210.exp-only-control-accepted"},
 {"file":"v2-lane-exp-only-bound.test.ts","explicitId":"openwop.requirement.0210.exp-only-lifetime-bound"},
 {"file":"v2-lane-exp-only-bound.test.ts","explicitId":"openwop.requirement.0210.exp-only-remaining-bound"},
 {"file":"v2-lane-exp-only-bound.test.ts","explicitId":"openwop.requirement.0210.credential-lifetime-code"},
 {"file":"v2-oidc-id-token-audience.test.ts","explicitId":"openwop.requirement.0200.id-token-aud"}]}`
	os.WriteFile(filepath.Join(dir, "conformance", "requirements.json"), []byte(reqs), 0o644)
	if c := anchorStatus(t, openSnapshot(t, dir, opts, gate.Config{}))[gate.CritAnchorsSources]; c.Status != gate.Pass {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	os.WriteFile(filepath.Join(scen, "v2-oidc-id-token-audience.test.ts"), []byte("test();\n"), 0o644)
	if c := anchorStatus(t, openSnapshot(t, dir, opts, gate.Config{}))[gate.CritAnchorsSources]; c.Status != gate.Fail || !strings.Contains(c.Reason, "does not call harnessClaimed(") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
}
