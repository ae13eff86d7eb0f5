package gate_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
)

// An older cut of a bundle added under a new name with its unsigned host.name
// and host.vendor edited, the newer one deleted: the two are paired by signed
// facts (the signing key and the signed document's implementation.name), so the
// added cut is compared with the one it replaces and its regressions FAIL.
func TestFlipsPairsBySigner(t *testing.T) {
	const bundles = "evidence/v2-host-bundles/"
	f := newFlipsRepo(t, nil)
	rows := testkit.SpecRepoBundles()["good.json"].Results.Requirements
	older := testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, nil, func(b *bundle.Bundle) {
		b.Host.Name, b.Host.Vendor = "Another Host", "Another Vendor Inc."
		b.Results.Requirements = nil
		for _, r := range rows {
			if r.ID != "openwop.requirement.0901.good" {
				b.Results.Requirements = append(b.Results.Requirements, r)
			}
		}
	})
	f.remove(t, bundles+"good.json")
	f.commit(map[string][]byte{bundles + "good-2026-12.json": testkit.Encode(older)})
	rep := f.flips(t, f.opts)
	if rep.Status != gate.Fail || len(rep.Bundles) != 1 {
		t.Fatalf("%s %+v %+v", rep.Status, rep.Bundles, rep.Changes.Criteria)
	}
	b := rep.Bundles[0]
	if b.Change != "renamed" || filepath.Base(b.BaseFile) != "good.json" || b.Status != gate.Fail || b.Diff == nil || len(b.Diff.Regressions) == 0 {
		t.Fatalf("%+v", b)
	}
	c, ok := criterion(rep.Changes, gate.CritRegressions)
	if !ok || !strings.Contains(c.Reason, "row openwop.requirement.0901.good was executed-pass and is gone") {
		t.Fatalf("%+v", rep.Changes.Criteria)
	}

	// Another signer's bundle, naming another host, added beside a deletion is
	// not paired with it.
	f = newFlipsRepo(t, nil)
	f.remove(t, bundles+"good.json")
	f.commit(map[string][]byte{bundles + "tier2-b.json": testkit.Encode(testkit.BuildBundle(testkit.OriginTier2, testkit.KeyTier2, []bundle.Row{testkit.Pass("0902.more")}, func(b *bundle.Bundle) {
		b.Host.Name = "Tier Two"
	}))})
	rep = f.flips(t, f.opts)
	changes := map[string]string{}
	for _, b := range rep.Bundles {
		changes[filepath.Base(b.File)] = b.Change
	}
	if changes["good.json"] != "deleted" || changes["tier2-b.json"] != "added" || rep.Status != gate.Pass {
		t.Fatalf("%s %+v", rep.Status, rep.Bundles)
	}
}

// A bundle the change adds is judged as the Accepted gate judges it: verified
// and bundle.key. A key the keyring retired before generatedAt, or no trusted
// time under --require-timestamp, does not PASS flips.new-bundle.
func TestFlipsNewBundleKeyDates(t *testing.T) {
	const bundles = "evidence/v2-host-bundles/"
	f := newFlipsRepo(t, nil)
	f.commit(map[string][]byte{bundles + "new-retired.json": testkit.Encode(testkit.BuildBundle(testkit.OriginTier1, testkit.KeyRetired, []bundle.Row{testkit.Pass("0911.new")}, nil))})
	rep := f.flips(t, f.opts)
	c, ok := criterion(rep.Changes, gate.CritNewBundle)
	if !ok || c.Status == gate.Pass || !strings.Contains(c.Reason, "bundle.key") || rep.Status == gate.Pass {
		t.Fatalf("%s %+v", rep.Status, rep.Changes.Criteria)
	}

	f = newFlipsRepo(t, nil)
	f.commit(map[string][]byte{bundles + "new-good.json": testkit.Encode(testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, []bundle.Row{testkit.Pass("0911.new")}, nil))})
	if rep := f.flips(t, f.opts); rep.Status != gate.Pass {
		t.Fatalf("without --require-timestamp: %s %+v", rep.Status, rep.Changes.Criteria)
	}
	rep = f.flipsWith(t, gate.Config{RequireTimestamp: true})
	c, ok = criterion(rep.Changes, gate.CritNewBundle)
	if !ok || c.Status != gate.Fail || !strings.Contains(c.Reason, "--require-timestamp: no trusted RFC 3161 time") {
		t.Fatalf("%s %+v", rep.Status, rep.Changes.Criteria)
	}
}

// flipsWith runs Flips over the fixture with cfg's settings (Root, Loader and
// KeyringPath filled in).
func (f *flipsRepo) flipsWith(t *testing.T, cfg gate.Config) *gate.FlipsReport {
	t.Helper()
	cfg.Root, cfg.KeyringPath = f.dir, filepath.Join(f.dir, "keyring.json")
	if cfg.Loader == nil {
		cfg.Loader = &gate.Loader{Options: f.opts}
	}
	rep, err := gate.Flips(context.Background(), cfg, gate.FlipsRequest{Base: f.base})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
