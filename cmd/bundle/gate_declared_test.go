package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
)

// declaredSnapshot copies ../shared/corpus/openwop-spec and pins the MyndHyve
// and openwop-app keys with their origins, offline (or skips).
func declaredSnapshot(t *testing.T) (dir, ring string) {
	t.Helper()
	src := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop-spec")
	if _, err := os.Stat(filepath.Join(src, "spec", "v2", "declaration.json")); err != nil {
		t.Skipf("SKIPPED: the OpenWOP spec snapshot is not at %s", src)
	}
	dir = testkit.CopyTree(t, src, "spec")
	ring = filepath.Join(dir, "keyring.json")
	bundles := filepath.Join(dir, "evidence", "v2-host-bundles")
	for _, args := range [][]string{
		{"--from-bundle", filepath.Join(bundles, "myndhyve-2.45.25.json"), "--origin", "https://api.myndhyve.ai"},
		{"--from-bundle", filepath.Join(bundles, "myndhyve.json"), "--origin", "https://api.myndhyve.ai"},
		{"--from-bundle", filepath.Join(bundles, "openwop-workflow-engine-image-digest.json"), "--origin", "https://app.openwop.dev", "--origin", "https://api.openwop.dev"},
	} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"keys", "trust", "--keyring", ring}, args...), nil, &out, &errOut); code != 0 {
			t.Fatalf("keys trust %v: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
	return dir, ring
}

// TestGateAuditDeclared: bundle gate audit over the snapshot lists every
// committed bundle's maturity line as upstream prints it, the extension README
// findings (two FAIL, twelve GRADUABLE warnings) and the anchor checks; with
// myndhyve.json relabelled to suite 2.36.0 its line FAILS with 37 overstated.
func TestGateAuditDeclared(t *testing.T) {
	dir, ring := declaredSnapshot(t)
	audit := func(extra ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"gate", "audit", "--keyring", ring}, append(extra, filepath.Join(dir, "RFCS"))...), nil, &out, &errOut)
		return code, out.String()
	}
	code, out := audit()
	for _, want := range []string{
		`(?m)^declared: FAIL$`,
		`(?m)^  PASS    bundle\.maturity myndhyve\.json — suite 2\.0\.11, 40 family record\(s\), 37 overstated — REPORTED `,
		`(?m)^  PASS    bundle\.maturity myndhyve-2\.45\.25\.json — suite 2\.45\.25, 41 family record\(s\), 0 overstated — ok `,
		`(?m)^  FAIL    spec\.ext-status ext/grpc-transport: Draft — FAIL: Status is Draft, but grpc-transport is not a declared extension family`,
		`(?m)^  FAIL    spec\.ext-status ext/provider-idempotency: Draft — FAIL`,
		`(?m)^  WARNING spec\.ext-status\.graduable ext/chat: Draft — GRADUABLE: `,
		`(?m)^  BLOCKED spec\.anchors\.sources `,
		`(?m)^  PASS    spec\.anchors\.rfc-tables `,
		`(?m)^  BLOCKED bundle\.suite-identity myndhyve\.json — no reviewed base`,
		`(?m)^  PASS    bundle\.suite-advisory myndhyve\.json — suite 2\.0\.11 is in no range of the advisory list built-in$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	if n := strings.Count(out, "WARNING spec.ext-status.graduable"); n != 12 || code != 1 {
		t.Errorf("exit %d, %d GRADUABLE", code, n)
	}
	file := filepath.Join(dir, "evidence", "v2-host-bundles", "myndhyve.json")
	data, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(data), `"version": "2.0.11"`, `"version": "2.36.0"`, 1)), 0o644)
	_, out = audit()
	if !regexp.MustCompile(`(?m)^  FAIL    bundle\.maturity myndhyve\.json — suite 2\.36\.0, 40 family record\(s\), 37 overstated — FAILS `).MatchString(out) {
		t.Errorf("relabelled:\n%s", out)
	}
	// The bound's first suite is a flag; a declaration that is not one is exit 3.
	_, out = audit("--maturity-first-suite", "2.37.0")
	if !strings.Contains(out, "37 overstated — REPORTED") {
		t.Errorf("--maturity-first-suite 2.37.0:\n%s", out)
	}
	bad := filepath.Join(t.TempDir(), "decl.json")
	os.WriteFile(bad, []byte(`{"families":[{"key":"a"},{"key":"a"}]}`), 0o644)
	if code, _ := audit("--declaration", bad); code != 3 {
		t.Errorf("malformed --declaration: exit %d", code)
	}
}
