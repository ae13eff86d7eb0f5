package attest_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

var update = flag.Bool("update", false, "rewrite the golden envelopes of examples/rfc0211/attestations")

// The RFC 0211 walk-through's files, relative to this package.
const (
	example      = "../examples/rfc0211"
	exampleRepo  = example + "/spec-repo"
	exampleRFC   = exampleRepo + "/RFCS/0211-a2a-error-details-are-errorinfo.md"
	exampleFile  = exampleRepo + "/evidence/v2-host-bundles/demo-host.json"
	attestorKey  = example + "/attestor/demo-attestor-1.key.pem"
	attestorPub  = example + "/attestor/demo-attestor-1.pub.pem"
	attestorID   = "demo-attestor-1"
	goldenDir    = example + "/attestations"
	goldenTime   = "2026-11-20T10:00:00Z"
	goldenVerson = "(devel)"
)

func goldenOptions(t *testing.T) attest.Options {
	t.Helper()
	at, err := time.Parse(time.RFC3339, goldenTime)
	if err != nil {
		t.Fatal(err)
	}
	base, err := attest.ParseURIBase(goldenURIBase)
	if err != nil {
		t.Fatal(err)
	}
	return attest.Options{Version: goldenVerson, Time: at, URIBase: base}
}

// goldenURIBase names the example's files where they are published, as
// `--resource-uri-base` does.
const goldenURIBase = "git+https://github.com/certcut/certcut@main#examples/rfc0211/spec-repo/"

// exampleSigner loads the demo attestor's key. A checkout leaves it 0644, which
// LoadSigner refuses, so it is read from a private copy.
func exampleSigner(t *testing.T) *keys.Signer {
	t.Helper()
	data, err := os.ReadFile(attestorKey)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := keys.ParsePrivatePEM(data)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := keys.NewSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := keys.LoadPublicPEM(attestorPub)
	if err != nil {
		t.Fatal(err)
	}
	return &keys.Signer{Signer: sv, Public: pub.Key, Ref: attestorKey}
}

// exampleVerify trusts the demo host's key the way the guide does: pinned in a
// keyring with its origin.
func exampleVerify(t *testing.T) verify.Options {
	t.Helper()
	ks, err := keys.LoadPublic(example + "/keys")
	if err != nil {
		t.Fatal(err)
	}
	kr := keys.NewKeyring()
	host := keys.KeyringHost{Name: "demo-host", Origin: "https://demo-host.example"}
	if _, err := kr.TrustKey(ks[0], host, "examples/rfc0211/run/discovery.json", time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return verify.Options{Keyring: kr, Registry: profiles.Default()}
}

// exampleGate runs the Accepted gate of RFC 0211 over the example repository.
func exampleGate(t *testing.T, bundlesDir string) *gate.Report {
	t.Helper()
	x, err := rfc.ReadFile(exampleRFC)
	if err != nil {
		t.Fatal(err)
	}
	r, err := gate.Open(t.Context(), gate.Config{Root: exampleRepo, BundlesDir: bundlesDir, MinTier: 1, KeyringPath: "keyring.json",
		Loader: &gate.Loader{Options: exampleVerify(t)}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Accepted(context.Background(), gate.AcceptedRequest{RFC: x})
}

// goldenEnvelopes returns the walk-through's envelopes, made now.
func goldenEnvelopes(t *testing.T) map[string][]byte {
	t.Helper()
	o := goldenOptions(t)
	data, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	signer := exampleSigner(t)
	out := map[string][]byte{}
	for name, predicate := range map[string]string{"demo-host.vsa.json": attest.PredicateVSA, "demo-host.bundle.json": attest.PredicateBundle} {
		a, err := attest.Bundle(attest.BundleRequest{Options: o, Data: data, Name: "evidence/v2-host-bundles/demo-host.json",
			Verify: exampleVerify(t), Predicate: predicate})
		if err != nil {
			t.Fatal(err)
		}
		if out[name], err = attest.Sign(a.Statement, signer, attestorID); err != nil {
			t.Fatal(err)
		}
	}
	rep := exampleGate(t, "")
	if rep.Status != gate.Pass {
		t.Fatalf("the example's gate is %s, want PASS", rep.Status)
	}
	a, err := attest.Gate(attest.GateRequest{Options: o, Report: rep, Root: exampleRepo})
	if err != nil {
		t.Fatal(err)
	}
	if out["rfc0211-accepted.vsa.json"], err = attest.Sign(a.Statement, signer, attestorID); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoldenRFC0211 keeps examples/rfc0211/attestations true: the envelopes of the
// walk-through, made with a fixed time and version, byte for byte (go test
// ./attest -run Golden -update rewrites them).
func TestGoldenRFC0211(t *testing.T) {
	for name, got := range goldenEnvelopes(t) {
		path := filepath.Join(goldenDir, name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./attest -run Golden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what attest makes now:\n got %s\nwant %s", path, got, want)
		}
		res, err := attest.Verify(want, attest.Policy{Keys: mustPublic(t, attestorPub)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != verify.Verified {
			t.Errorf("%s: %s %v %v", name, res.Outcome, res.Problems, res.Unverified)
		}
	}
}

func mustPublic(t *testing.T, path string) keys.Set {
	t.Helper()
	ks, err := keys.LoadPublic(path)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}
