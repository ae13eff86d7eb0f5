package mint_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/declaration"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// TestMintMaturityBoundSnapshot: re-minting myndhyve.json's discovery document
// and rows (37 family records say stable where the snapshot's declaration says
// experimental) at suite 2.36.0 is refused, maturity-overstated, with nothing
// signed; at its own suite 2.0.11 it is cut, signed, with a warning.
func TestMintMaturityBoundSnapshot(t *testing.T) {
	dir := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop-spec")
	if _, err := os.Stat(filepath.Join(dir, "spec", "v2", "declaration.json")); err != nil {
		t.Skipf("SKIPPED: the OpenWOP spec snapshot is not at %s (clone the workspace with ../shared beside the project)", dir)
	}
	decl, err := declaration.Load(filepath.Join(dir, "spec", "v2", "declaration.json"))
	if err != nil {
		t.Fatal(err)
	}
	caps, err := declaration.LoadCapabilities(filepath.Join(dir, "schemas", "v2", "capabilities.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", "myndhyve.json"))
	if err != nil {
		t.Fatal(err)
	}
	orig, _, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	d, err := discovery.FromValue(*orig.Discovery.Document, orig.Discovery.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := hostSigner(t)
	generated, _ := time.Parse(time.RFC3339Nano, orig.GeneratedAt)
	job := func(suite string) mint.Job {
		sv := orig.Suite
		sv.Version = suite
		return mint.Job{Host: s, UnpublishedKey: true, Maturity: &verify.MaturityPolicy{Declaration: decl, Keys: declaration.KeysOf(caps, decl)},
			Input: mint.Input{Rows: orig.Results.Requirements, Discovery: d, Build: orig.Host.Build, Suite: sv,
				HostName: orig.Host.Name, HostVersion: orig.Host.Version, HostVendor: orig.Host.Vendor, Relaxations: orig.Host.Relaxations,
				EvidenceTier: bundle.TierSelf, Registry: profiles.Default(), GeneratedAt: generated, KeyID: orig.Host.SigningKeyID, KeyPEM: s.PEM}}
	}
	cut, err := mint.Run(job("2.36.0"))
	var refused *mint.RefusedError
	if !errors.As(err, &refused) || len(refused.Refused) != 1 || refused.Refused[0].Kind != verify.KindMaturityOverstated ||
		!strings.HasPrefix(refused.Refused[0].Detail, "37 family record(s)") {
		t.Fatalf("at 2.36.0: %v", err)
	}
	if cut.Report.Signed || cut.Bundle.Signature != nil || cut.Report.Maturity.Outcome() != declaration.MaturityFails {
		t.Fatalf("at 2.36.0 the refused cut must be unsigned: %+v", cut.Report)
	}
	cut, err = mint.Run(job("2.0.11"))
	if err != nil {
		t.Fatalf("at 2.0.11: %v", err)
	}
	if !cut.Report.Signed || cut.Report.Maturity.Outcome() != declaration.MaturityReported ||
		!slices.ContainsFunc(cut.Report.Warnings, func(w string) bool { return strings.HasPrefix(w, "maturity bound: 37 family record(s)") }) {
		t.Fatalf("at 2.0.11: %+v", cut.Report)
	}
}

// TestMintMaturityBound: the test document's replay record says stable; a
// declaration calling replay experimental refuses the cut at a bound suite,
// warns below it (and with a later --maturity-first-suite), and one calling it
// stable lets it through. Without a capabilities schema the declaration's keys
// name the records, and the report says so.
func TestMintMaturityBound(t *testing.T) {
	s := hostSigner(t)
	run := func(suite, technical, first string) (*mint.Cut, error) {
		in := input(t, s)
		doc := testkit.Discovery("https://h.example", keys.PublicKey{Key: testkit.Public("host"), KeyID: testkit.HostKeyID}.Entry())
		var members []bundle.Member
		for _, m := range doc.Members() {
			if m.Name == "replay" {
				m.Value = bundle.ObjectValue(bundle.Member{Name: "status", Value: bundle.StringValue("stable")}, bundle.Member{Name: "since", Value: bundle.StringValue("2.0")})
			}
			members = append(members, m)
		}
		d, err := discovery.FromValue(bundle.ObjectValue(members...), "https://h.example/.well-known/openwop")
		if err != nil {
			t.Fatal(err)
		}
		in.Discovery, in.Suite.Version = d, suite
		decl, err := declaration.Parse([]byte(`{"families":[{"key":"replay","maturity":{"technical":"`+technical+`"}},{"key":"interrupt","maturity":{"technical":"experimental"}}]}`), "decl.json")
		if err != nil {
			t.Fatal(err)
		}
		return mint.Run(mint.Job{Input: in, Host: s, Maturity: &verify.MaturityPolicy{Declaration: decl, Keys: declaration.KeysOf(nil, decl), FirstSuite: first}})
	}
	cut, err := run("2.45.30", "experimental", "")
	var refused *mint.RefusedError
	if !errors.As(err, &refused) || refused.Refused[0].Kind != verify.KindMaturityOverstated || !strings.Contains(refused.Refused[0].Detail, "replay(corpus:experimental)") {
		t.Fatalf("bound: %v", err)
	}
	if !strings.Contains(cut.Report.MaturityFamilyKeys, "no capabilities schema") {
		t.Errorf("family keys: %q", cut.Report.MaturityFamilyKeys)
	}
	for _, c := range [][2]string{{"2.35.1", ""}, {"2.45.30", "2.46.0"}} {
		cut, err = run(c[0], "experimental", c[1])
		if err != nil || !cut.Report.Signed || cut.Report.Maturity.Outcome() != declaration.MaturityReported || len(cut.Report.Warnings) == 0 {
			t.Fatalf("suite %s, first %q: %v %+v", c[0], c[1], err, cut.Report)
		}
	}
	cut, err = run("2.45.30", "stable", "")
	if err != nil || cut.Report.Maturity.Outcome() != declaration.MaturityOK || cut.Report.Maturity.Records != 2 {
		t.Fatalf("declared stable: %v %+v", err, cut.Report.Maturity)
	}
}
