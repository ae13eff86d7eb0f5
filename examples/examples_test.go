// Package examples holds runnable walk-throughs; this test keeps them true.
package examples

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
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

// The guide's timestamp step (docs/guide.md, "When was it signed?") on the
// committed bundle, against a real RFC 3161 TSA (OpenSSL's, on loopback): the
// token stamps the bundle's signature, OpenSSL's own verifier agrees, and the
// bundle verifies with the token's time as its signing time.
func TestRFC0211Timestamp(t *testing.T) {
	if why := testkit.OpenSSLMissing(); why != "" {
		t.Skip("SKIPPED: " + why)
	}
	tsa, err := testkit.StartTSA(filepath.Join(t.TempDir(), "tsa"), testkit.TSAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tsa.Close()
	data, err := os.ReadFile("rfc0211/spec-repo/evidence/v2-host-bundles/demo-host.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := timestamp.SignatureOf(b, timestamp.HostRole)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := timestamp.LoadTrust(tsa.CACert)
	if err != nil {
		t.Fatal(err)
	}
	st, err := timestamp.Stamp(context.Background(), tsa.URL, sig, trust, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tsa.VerifyWithOpenSSL(st.Reply, sig); err != nil {
		t.Fatalf("openssl ts -verify: %v\n%s", err, out)
	}
	ks, err := keys.LoadPublic("rfc0211/keys")
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.ParseWith(data, verify.Options{HostKeys: ks, Registry: profiles.Default(), TSA: trust},
		verify.Timestamps{Host: &timestamp.File{Path: "demo-host.json.tsr", Reply: st.Reply}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != verify.Verified || v.SigningTime.Source != verify.TimeRFC3161 || v.SigningTime.TSA != "CN=certcut test TSA" {
		t.Fatalf("%s %+v %v", v.Outcome, v.SigningTime, v.Rejections)
	}
}
