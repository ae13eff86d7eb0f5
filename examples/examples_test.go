// Package examples holds runnable walk-throughs; this test keeps them true.
package examples

import (
	"os"
	"testing"

	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// The README's first command verifies this bundle; it must stay VERIFIED.
func TestRFC0211BundleVerifies(t *testing.T) {
	ks, err := keys.LoadPublic("rfc0211/keys")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("rfc0211/spec-repo/evidence/v2-host-bundles/demo-host.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.Parse(data, verify.Options{HostKeys: ks, Registry: profiles.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != verify.Verified {
		t.Fatalf("%s: %v %v", v.Outcome, v.Rejections, v.Unverified)
	}
}
