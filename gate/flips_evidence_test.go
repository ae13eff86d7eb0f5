package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
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

// The history binder fooled in two steps: change 1 adds a compact
// re-serialisation of a committed bundle with discovery.url moved to a tier-1
// origin (it flips nothing); change 2, once change 1 is on the base, deletes the
// original and flips an RFC. The copy's payload was committed under another URL,
// so history never binds it; flips flags the added copy and the deletion that
// leaves it behind.
func TestFlipsPayloadCopyTwoSteps(t *testing.T) {
	const bundles = "evidence/v2-host-bundles/"
	rfcText := func(status string) []byte {
		return []byte(strings.ReplaceAll(string(flipRFC("0901", statusRow(status))), "0901.good", "0902.tier2-only"))
	}
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": rfcText("Draft")})
	orig, err := os.ReadFile(filepath.Join(f.dir, bundles+"tier2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, withURL(t, orig, testkit.OriginTier1+"/.well-known/openwop")); err != nil {
		t.Fatal(err)
	}
	// Keys given as PEMs, none pinned with an origin: only history could bind.
	pems := verify.Options{HostKeys: keys.Set{testkit.HostPublic(), testkit.KeyTier2.Public()}, Registry: profiles.Default()}

	// Change 1.
	f.commit(map[string][]byte{bundles + "steward.json": compact.Bytes()})
	rep := f.flipsWith(t, gate.Config{Loader: &gate.Loader{Options: pems}})
	c, ok := criterion(rep.Changes, gate.CritPayloadCopy)
	if !ok || c.Status != gate.Fail || rep.Status == gate.Pass || !strings.Contains(c.Reason, "steward.json repeats the signed payload of "+filepath.Join(f.dir, bundles+"tier2.json")) {
		t.Fatalf("change 1: %s %+v", rep.Status, rep.Changes.Criteria)
	}

	// Change 1 merged; change 2.
	f.base = f.git("rev-parse", "HEAD")
	f.remove(t, bundles+"tier2.json")
	f.commit(map[string][]byte{"RFCS/0901-sample.md": rfcText("Accepted")})
	rep = f.flipsWith(t, gate.Config{Loader: &gate.Loader{Options: pems}})
	if len(rep.Reports) != 1 {
		t.Fatalf("not gated: %+v", rep.Transitions)
	}
	tier := tierCriterion(t, rep.Reports[0], "steward.json")
	if tier.Status == gate.Pass || strings.Contains(tier.Reason, "bound by git history") || !strings.Contains(tier.Reason, "is committed under another discovery.url") {
		t.Fatalf("%s %s", tier.Status, tier.Reason)
	}
	c, ok = criterion(rep.Changes, gate.CritPayloadCopy)
	if !ok || c.Status != gate.Fail || !strings.Contains(c.Reason, "still carries its signed payload") || rep.Status == gate.Pass {
		t.Fatalf("change 2: %s %+v", rep.Status, rep.Changes.Criteria)
	}
}
