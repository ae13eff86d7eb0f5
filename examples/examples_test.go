// Package examples holds runnable walk-throughs; this test keeps them true.
package examples

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/rows"
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

// The walk-through's mint (docs/mint.md), through the library alone — no
// command line: the rows read and merged by rows.Read, the relaxations (none)
// and the registry as mint's own functions read them, mint.Run — gives the
// committed bundle byte for byte.
func TestRFC0211MintThroughLibrary(t *testing.T) {
	pemText, err := os.ReadFile("rfc0211/keys/demo-host-1.key.pem")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CERTCUT_EXAMPLE_KEY", string(pemText))
	host, err := keys.LoadSigner(context.Background(), keys.EnvPrefix+"CERTCUT_EXAMPLE_KEY")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	reg, err := profiles.LoadOrDefault("")
	if err != nil {
		t.Fatal(err)
	}
	in := mint.Input{
		Suite:        bundle.Suite{Version: "2.45.30", TargetMajor: 2, SpecArtifactsVersion: "2.45.30"},
		Registry:     reg,
		EvidenceTier: bundle.TierSelf,
		KeyID:        "demo-host-1",
		KeyPEM:       host.PEM,
		GeneratedAt:  time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC),
	}
	if in.Build, err = mint.ParseBuild("commit:4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"); err != nil {
		t.Fatal(err)
	}
	if in.Relaxations, err = mint.RelaxationsFromEnv(nil); err != nil {
		t.Fatal(err)
	}
	in.Rows, err = rows.Read(rows.Sources{
		Ledgers:       []string{"rfc0211/run/requirement-ledger.jsonl"},
		LedgerReports: []string{"rfc0211/run/vitest.json"},
	}, rows.Options{IsFloor: reg.IsFloor})
	if err != nil {
		t.Fatal(err)
	}
	if in.Discovery, err = discovery.Load("rfc0211/run/discovery.json", "https://demo-host.example"); err != nil {
		t.Fatal(err)
	}
	cut, err := mint.Run(mint.Job{Input: in, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("rfc0211/spec-repo/evidence/v2-host-bundles/demo-host.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cut.Data, want) {
		t.Errorf("the library's bundle differs from the committed example (%d bytes, want %d)", len(cut.Data), len(want))
	}
	if cut.Verdict.Outcome != verify.Verified || len(cut.Report.Certified) != 2 {
		t.Errorf("self-check %s, certified %v", cut.Verdict.Outcome, cut.Report.Certified)
	}
}
