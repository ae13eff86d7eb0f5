package verify_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/declaration"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// specSnapshot returns ../shared/corpus/openwop-spec and the maturity policy of
// its declaration and capabilities schema, or skips.
func specSnapshot(t *testing.T) (string, *verify.MaturityPolicy) {
	t.Helper()
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
	return dir, &verify.MaturityPolicy{Declaration: decl, Keys: declaration.KeysOf(caps, decl)}
}

func readSnapshotBundle(t *testing.T, dir, file string) (*bundle.Bundle, []byte) {
	t.Helper()
	data, err := bundle.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", file))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return b, data
}

// relabel sets suite.version and signs the bundle again with the test host key,
// so that the relabelled suite is a signed fact under a key the test trusts.
func relabel(t *testing.T, b *bundle.Bundle, suite string) []byte {
	t.Helper()
	b.Suite.Version = suite
	b.Host.SigningKeyID = testkit.HostKeyID
	testkit.Sign(b, "host", testkit.HostKeyID)
	return testkit.Encode(b)
}

func notesWith(v *verify.Verdict, s string) bool {
	return slices.ContainsFunc(v.Notes, func(n string) bool { return strings.Contains(n, s) })
}

// TestMaturityBoundInVerify: myndhyve.json (suite 2.0.11, 37 overstated family
// records) stays VERIFIED with the bound REPORTED in a note; relabelled to 2.36.0
// and signed again, it is REJECTED maturity-overstated with 37 records — and
// VERIFIED without --declaration; relabelled but not signed again, the bound
// rests on an unverified suite.version, so it is only a note beside
// signature-invalid.
func TestMaturityBoundInVerify(t *testing.T) {
	dir, pol := specSnapshot(t)
	b, data := readSnapshotBundle(t, dir, "myndhyve.json")
	key, err := keys.LoadPublicPEM(filepath.Join(dir, "keys", b.Signature.KeyID+keys.PEMSuffix))
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.Parse(data, verify.Options{HostKeys: keys.Set{key}, Maturity: pol, Registry: profiles.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != verify.Verified || v.Maturity == nil || v.Maturity.Outcome() != declaration.MaturityReported || len(v.Maturity.Overstated) != 37 ||
		!notesWith(v, "40 family record(s), 37 overstated — REPORTED") {
		t.Fatalf("as committed: %s %v %+v", v.Outcome, v.Notes, v.Rejections)
	}

	bound := relabel(t, b, "2.36.0")
	v, _ = verify.Parse(bound, verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Maturity: pol, Registry: profiles.Default()})
	if v.Outcome != verify.Rejected || len(v.Rejections) != 1 || v.Rejections[0].Kind != verify.KindMaturityOverstated ||
		!strings.HasPrefix(v.Rejections[0].Detail, "37 family record(s)") || !strings.Contains(v.Rejections[0].Detail, "packs(corpus:experimental)") {
		t.Fatalf("relabelled 2.36.0: %s %+v", v.Outcome, v.Rejections)
	}
	v, _ = verify.Parse(bound, verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()})
	if v.Outcome != verify.Verified || v.Maturity != nil {
		t.Fatalf("relabelled 2.36.0 without a declaration: %s %+v", v.Outcome, v.Rejections)
	}
	// First suite 2.37.0: 2.36.0 is below it, reported.
	v, _ = verify.Parse(bound, verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Maturity: &verify.MaturityPolicy{Declaration: pol.Declaration, Keys: pol.Keys, FirstSuite: "2.37.0"}, Registry: profiles.Default()})
	if v.Outcome != verify.Verified || !notesWith(v, "37 overstated — REPORTED") {
		t.Fatalf("first suite 2.37.0: %s %v", v.Outcome, v.Notes)
	}

	// Relabelled without signing again: the signature no longer verifies, and the
	// bound is a note, not a rejection.
	b2, _ := readSnapshotBundle(t, dir, "myndhyve.json")
	b2.Suite.Version = "2.36.0"
	b2.Raw = b2.Value()
	v, _ = verify.Parse(testkit.Encode(b2), verify.Options{HostKeys: keys.Set{key}, Maturity: pol, Registry: profiles.Default()})
	if v.HasRejection(verify.KindMaturityOverstated) || !v.HasRejection(verify.KindSignatureInvalid) || !notesWith(v, "not a maturity-overstated rejection") {
		t.Fatalf("relabelled, unsigned: %+v %v", v.Rejections, v.Notes)
	}
}

// TestSuiteAdvisoryNote: a bundle of a suite on the advisory list is noted, not
// rejected; a replaced list decides.
func TestSuiteAdvisoryNote(t *testing.T) {
	b := testkit.Unsigned("https://host.example")
	b.Suite.Version = "2.45.4"
	data := testkit.Encode(testkit.Sign(b, "host", testkit.HostKeyID))
	opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Advisories: declaration.BuiltinAdvisories(), Registry: profiles.Default()}
	v, _ := verify.Parse(data, opts)
	if v.Outcome != verify.Verified || v.SuiteAdvisory == nil || v.SuiteAdvisory.From != "2.45.3" || !notesWith(v, "suite 2.45.4 is in the advisory range 2.45.3–2.45.6") {
		t.Fatalf("%s %+v %v", v.Outcome, v.Rejections, v.Notes)
	}
	other, err := declaration.ParseAdvisories([]byte(`{"advisories":[{"from":"2.40.0","to":"2.40.9","problem":"p","source":"s"}]}`), "other.json")
	if err != nil {
		t.Fatal(err)
	}
	opts.Advisories = other
	if v, _ := verify.Parse(data, opts); v.SuiteAdvisory != nil || notesWith(v, "advisory") {
		t.Fatalf("replaced list: %v", v.Notes)
	}
}
