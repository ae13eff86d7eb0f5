package mint_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/rows"
	"github.com/certcut/certcut/verify"
)

var fixedTime = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func hostSigner(t testing.TB) *keys.Signer {
	t.Helper()
	dir := t.TempDir()
	pemText, err := keys.MarshalPrivatePEM(testkit.Key("host"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "host.key.pem")
	if err := os.WriteFile(p, pemText, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := keys.LoadSigner(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func input(t testing.TB, s *keys.Signer) mint.Input {
	t.Helper()
	doc := testkit.Discovery("https://h.example", keys.PublicKey{Key: testkit.Public("host"), KeyID: testkit.HostKeyID}.Entry())
	d, err := discovery.FromValue(doc, "https://h.example/.well-known/openwop")
	if err != nil {
		t.Fatal(err)
	}
	return mint.Input{
		Rows:         testkit.Rows(),
		Discovery:    d,
		Build:        bundle.Build{Kind: bundle.BuildCommit, ID: "0123456789abcdef0123456789abcdef01234567"},
		Suite:        bundle.Suite{Version: "2.45.30", TargetMajor: 2},
		EvidenceTier: bundle.TierSelf,
		Registry:     profiles.Default(),
		GeneratedAt:  fixedTime,
		KeyID:        testkit.HostKeyID,
		KeyPEM:       s.PEM,
	}
}

// mintBytes assembles, signs and self-checks, returning the file bytes.
func mintBytes(t testing.TB, in mint.Input, s *keys.Signer) ([]byte, *mint.Assembled, *verify.Verdict, error) {
	t.Helper()
	asm, err := mint.Assemble(in)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := mint.Sign(asm, s, in.KeyID, nil, ""); err != nil {
		t.Fatal(err)
	}
	data, err := mint.Encode(asm.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	v, err := mint.SelfCheck(data, keys.Set{s.Key(in.KeyID)}, nil, in.Registry, mint.Tolerated)
	return data, asm, v, err
}

func TestMintVerifiesAndIsDeterministic(t *testing.T) {
	s := hostSigner(t)
	data, asm, v, err := mintBytes(t, input(t, s), s)
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != verify.Verified {
		t.Fatalf("self-check %s: %v %v", v.Outcome, v.Rejections, v.Unverified)
	}
	again, _, _, err := mintBytes(t, input(t, s), s)
	if err != nil || !bytes.Equal(data, again) {
		t.Fatal("the same inputs gave different bytes")
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.HasPrefix(data, []byte("{\n  \"bundleVersion\": \"3\",\n  \"generatedAt\": \"2026-11-01T12:00:00.000Z\",\n  \"suite\": {\n    \"name\": \"@openwop/openwop-conformance\"")) {
		t.Errorf("layout: %.200s", data)
	}
	b := asm.Bundle
	if b.Host.Name != "test-host" || b.Host.Vendor != "certcut tests" || b.Host.SigningKeyID != testkit.HostKeyID {
		t.Errorf("host from implementation: %+v", b.Host)
	}
	if b.Suite.SpecArtifactsVersion != "repo-layout" || b.Suite.Name != bundle.SuiteName {
		t.Errorf("suite %+v", b.Suite)
	}
	if b.Durability == nil || b.Durability.Rung != bundle.RungDurableSingleInstance {
		t.Error("the derivable rung was not claimed")
	}
	if len(asm.Redacted) != 0 {
		t.Errorf("redacted %v from clean input", asm.Redacted)
	}
	// The test rows carry only part of core-standard's floor: claimed, not certified.
	got := map[string]bool{}
	for _, p := range b.ClaimedProfiles {
		got[p.ID] = p.Certified
	}
	if !got["openwop-discovery-core"] || got["openwop-core-standard"] {
		t.Errorf("claimed %v", got)
	}
}

func TestMintScrubsSecrets(t *testing.T) {
	s := hostSigner(t)
	in := input(t, s)
	const apiKey = "hk_live_8f2a9c1d7e3b"
	const given = "s3cr3t-value-given-on-the-command-line"
	rows := slices.Clone(in.Rows)
	leak := "request failed: Authorization: Bearer " + apiKey + " and " + mint.Canary
	rows[len(rows)-1].Detail = &leak
	key := "seen " + given
	rows[0].Detail = &key
	in.Rows = rows
	in.Env = []string{"OPENWOP_API_KEY=" + apiKey, "OPENWOP_BASE_URL=https://h.example", "OPENWOP_BUNDLE_SIGNING_KEY_ID=" + testkit.HostKeyID, "HOME=/root"}
	in.Secrets = []string{given}
	data, asm, v, err := mintBytes(t, in, s)
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != verify.Verified {
		t.Fatalf("self-check %s: %v", v.Outcome, v.Rejections)
	}
	for _, secret := range []string{apiKey, mint.Canary, given} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("secret %q is in the bundle", secret)
		}
		if !bytes.Contains(data, []byte(mint.RedactionMarker(secret))) {
			t.Errorf("marker for %q missing", secret)
		}
	}
	// The published key id and a non-secret variable are left alone.
	if !bytes.Contains(data, []byte(`"signingKeyId": "`+testkit.HostKeyID+`"`)) || !bytes.Contains(data, []byte("https://h.example")) {
		t.Error("scrubbed what is not secret")
	}
	if len(asm.Redacted) != 2 || !strings.HasPrefix(asm.Redacted[0], "/results/requirements/") {
		t.Errorf("redacted at %v", asm.Redacted)
	}
	if m := mint.RedactionMarker("x"); m != "«redacted:2d711642b726»" {
		t.Errorf("marker %s", m)
	}
	// The key's PEM never enters evidence.
	pemRow := slices.Clone(input(t, s).Rows)
	body := strings.Split(string(s.PEM), "\n")[1]
	leakPEM := "dumped key " + body
	pemRow[0].Detail = &leakPEM
	in2 := input(t, s)
	in2.Rows = pemRow
	data, _, _, err = mintBytes(t, in2, s)
	if err != nil || bytes.Contains(data, []byte(body)) {
		t.Errorf("the key PEM body leaked (%v)", err)
	}
}

func TestMintSelfCheckRefuses(t *testing.T) {
	s := hostSigner(t)
	in := input(t, s)
	rows := slices.Clone(in.Rows)
	zero := int64(0)
	rows[0].Assertions = &zero // executed-pass asserting nothing: vacuous
	in.Rows = rows
	data, _, v, err := mintBytes(t, in, s)
	var refused *mint.RefusedError
	if !errors.As(err, &refused) || !v.HasRejection(verify.KindVacuousPass) || len(data) == 0 {
		t.Fatalf("got %v", err)
	}
	// Unsigned output tolerates only the missing signatures.
	asm, err := mint.Assemble(input(t, s))
	if err != nil {
		t.Fatal(err)
	}
	unsigned, _ := mint.Encode(asm.Bundle)
	if _, err := mint.SelfCheck(unsigned, nil, nil, profiles.Default(), mint.ToleratedUnsigned); err != nil {
		t.Errorf("unsigned bundle refused: %v", err)
	}
	if _, err := mint.SelfCheck(unsigned, nil, nil, profiles.Default(), mint.Tolerated); err == nil {
		t.Error("an unsigned bundle passed the signed self-check")
	}
}

func TestMintInputs(t *testing.T) {
	s := hostSigner(t)
	in := input(t, s)
	in.OptOuts = []string{"family.sandbox"}
	in.ColocatedCompanion = true
	in.Relaxations = []bundle.Relaxation{{Obligation: "webhooks.egress-guard", Durability: "deployment", Reason: "loopback receiver"}}
	_, asm, v, err := mintBytes(t, in, s)
	if err != nil {
		t.Fatal(err)
	}
	b := asm.Bundle
	if b.Host.Deployment != bundle.DeploymentColocatedCompanion || len(b.Host.Relaxations) != 1 {
		t.Errorf("host %+v", b.Host)
	}
	if !slices.Equal(v.OptedOut, []string{"family.sandbox"}) {
		t.Errorf("opted out %v", v.OptedOut)
	}
	for _, p := range b.ClaimedProfiles {
		if p.ID == "openwop-core-standard" && p.Certified {
			t.Error("a relaxed profile is certified")
		}
	}

	bad := []struct {
		name string
		edit func(*mint.Input)
		want string
	}{
		{"opt out of derived", func(in *mint.Input) { in.OptOuts = []string{"openwop-core-standard"} }, "derives it"},
		{"opt out of advertised family", func(in *mint.Input) { in.OptOuts = []string{"family.webhooks"} }, "advertises the webhooks family"},
		{"major 1", func(in *mint.Input) { in.Suite.TargetMajor = 1 }, "major-2 bundles only"},
		{"no suite", func(in *mint.Input) { in.Suite.Version = "" }, "suite version is required"},
		{"no build", func(in *mint.Input) { in.Build = bundle.Build{} }, "build is required"},
		{"bad tier", func(in *mint.Input) { in.EvidenceTier = "gold" }, "evidence tier"},
		{"bad relaxation", func(in *mint.Input) {
			in.Relaxations = []bundle.Relaxation{{Obligation: "x.y", Durability: "forever", Reason: "r"}}
		}, "durability"},
		{"bad key id", func(in *mint.Input) { in.KeyID = "has space" }, "does not match"},
		{"no host name", func(in *mint.Input) {
			d, _ := discovery.FromValue(bundle.ObjectValue(), "https://h.example/.well-known/openwop")
			in.Discovery = d
		}, "--host-name"},
	}
	for _, tc := range bad {
		in := input(t, s)
		tc.edit(&in)
		_, err := mint.Assemble(in)
		var ue *mint.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a usage error with %q", tc.name, err, tc.want)
		}
	}
	in = input(t, s)
	var noAssertions []bundle.Row
	for _, r := range in.Rows {
		if r.Result != bundle.ExecutedPass {
			noAssertions = append(noAssertions, r)
		}
	}
	in.Rows = noAssertions
	var ie *mint.InputError
	if _, err := mint.Assemble(in); !errors.As(err, &ie) {
		t.Errorf("rows asserting nothing: %v", err)
	}
}

// Every major-2 corpus bundle, minted again from its own rows, discovery document,
// build, suite, relaxations and deployment with a test key, has the original's
// witnessSha256 and discovery.sha256; and the minted bundle verifies.
func TestCorpusRemint(t *testing.T) {
	dir := testkit.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	s := hostSigner(t)
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		orig, _, err := bundle.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if orig.Suite.TargetMajor != 2 {
			t.Logf("%s: major %d, not minted (certcut mints major 2)", filepath.Base(f), orig.Suite.TargetMajor)
			continue
		}
		d, err := discovery.FromValue(*orig.Discovery.Document, orig.Discovery.URL)
		if err != nil {
			t.Fatal(err)
		}
		generated, _ := time.Parse(time.RFC3339Nano, orig.GeneratedAt)
		in := mint.Input{
			Rows: orig.Results.Requirements, Discovery: d, Build: orig.Host.Build, Suite: orig.Suite,
			HostName: orig.Host.Name, HostVersion: orig.Host.Version, HostVendor: orig.Host.Vendor,
			Relaxations: orig.Host.Relaxations, ColocatedCompanion: orig.Host.Deployment != "",
			EvidenceTier: bundle.TierSelf, Registry: profiles.Default(), GeneratedAt: generated,
			KeyID: orig.Host.SigningKeyID, KeyPEM: s.PEM,
		}
		out, asm, v, err := mintBytes(t, in, s)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		b := asm.Bundle
		if b.WitnessSha256 != orig.WitnessSha256 {
			t.Errorf("%s: witnessSha256 %s, original %s", filepath.Base(f), b.WitnessSha256, orig.WitnessSha256)
		}
		if b.Discovery.Sha256 != orig.Discovery.Sha256 {
			t.Errorf("%s: discovery.sha256 %s, original %s", filepath.Base(f), b.Discovery.Sha256, orig.Discovery.Sha256)
		}
		if b.AssertionCount != orig.AssertionCount || b.Results.Totals != orig.Results.Totals || b.GeneratedAt != orig.GeneratedAt {
			t.Errorf("%s: assertionCount/totals/generatedAt differ", filepath.Base(f))
		}
		if (b.Durability == nil) != (orig.Durability == nil) {
			t.Errorf("%s: durability %v, original %v", filepath.Base(f), b.Durability, orig.Durability)
		}
		if v.Outcome != verify.Verified {
			t.Errorf("%s: re-minted bundle is %s: %v", filepath.Base(f), v.Outcome, v.Rejections)
		}
		if len(out) == 0 {
			t.Error("no bytes")
		}
		n++
	}
	if n == 0 {
		t.Fatal("no major-2 bundle in the corpus")
	}
	t.Logf("re-minted %d corpus bundles with identical witness and discovery digests", n)
}

// The reference host's bundle: re-minted under the registry revision of its suite
// (core-standard's floor without v2-sse-last-event-id-cursor, which joined in
// 2.42.7), the claimedProfiles come out exactly as the original's.
func TestCorpusReferenceClaims(t *testing.T) {
	dir := testkit.CorpusDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", "openwop-host-v2-reference.json"))
	if err != nil {
		t.Skipf("SKIPPED: reference bundle absent: %v", err)
	}
	orig, _, _ := bundle.Parse(data)
	reg, err := profiles.Load(filepath.Join(dir, "spec", "v2", "profiles.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range reg.Profiles {
		reg.Profiles[i].FloorScenarios = slices.DeleteFunc(slices.Clone(reg.Profiles[i].FloorScenarios), func(s string) bool { return s == "v2-sse-last-event-id-cursor" })
	}
	d, _ := discovery.FromValue(*orig.Discovery.Document, orig.Discovery.URL)
	s := hostSigner(t)
	asm, err := mint.Assemble(mint.Input{
		Rows: orig.Results.Requirements, Discovery: d, Build: orig.Host.Build, Suite: orig.Suite,
		EvidenceTier: bundle.TierSelf, Registry: reg, GeneratedAt: fixedTime, KeyID: orig.Host.SigningKeyID, KeyPEM: s.PEM,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asm.Bundle.ClaimedProfiles, orig.ClaimedProfiles) {
		t.Errorf("claimedProfiles %+v, original %+v", asm.Bundle.ClaimedProfiles, orig.ClaimedProfiles)
	}
	if asm.Bundle.Host.Name != orig.Host.Name || asm.Bundle.Host.Version != orig.Host.Version || asm.Bundle.Host.Vendor != orig.Host.Vendor {
		t.Errorf("host from implementation %+v, original %+v", asm.Bundle.Host, orig.Host)
	}
}

// BenchmarkMintCorpusSized mints the largest corpus ledger (assemble, seal, scrub,
// sign, encode, self-check) from rows in memory.
func BenchmarkMintCorpusSized(b *testing.B) {
	dir := testkit.CorpusDir(b)
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", "openwop-workflow-engine-2.45.30-7643ddb8e.json"))
	if err != nil {
		b.Skip(err)
	}
	orig, _, _ := bundle.Parse(data)
	d, _ := discovery.FromValue(*orig.Discovery.Document, orig.Discovery.URL)
	s := hostSigner(b)
	in := mint.Input{
		Rows: orig.Results.Requirements, Discovery: d, Build: orig.Host.Build, Suite: orig.Suite,
		EvidenceTier: bundle.TierSelf, Registry: profiles.Default(), GeneratedAt: fixedTime, KeyID: orig.Host.SigningKeyID, KeyPEM: s.PEM,
		Env: os.Environ(),
	}
	b.ReportMetric(float64(len(orig.Results.Requirements)), "rows")
	for b.Loop() {
		if _, _, _, err := mintBytes(b, in, s); err != nil {
			b.Fatal(err)
		}
	}
}

// The reference host's ledger path: the corpus bundle's rows written back as the
// suite's requirement-ledger.jsonl, with a vitest report naming the file of every
// row whose id names none, re-mint to the original witnessSha256.
func TestCorpusRemintFromLedger(t *testing.T) {
	dir := testkit.CorpusDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", "openwop-workflow-engine-2.45.30-7643ddb8e.json"))
	if err != nil {
		t.Skipf("SKIPPED: bundle absent: %v", err)
	}
	orig, _, _ := bundle.Parse(data)
	var ledger, report strings.Builder
	report.WriteString(`{"testResults":[`)
	first := true
	for _, r := range orig.Results.Requirements {
		line := bundle.ObjectValue(bundle.Member{Name: "requirementId", Value: bundle.StringValue(r.ID)}, bundle.Member{Name: "disposition", Value: bundle.StringValue(r.Result)})
		if r.Detail != nil {
			line = line.With("detail", bundle.StringValue(*r.Detail))
		}
		if r.Assertions != nil {
			line = line.With("assertionCount", bundle.IntValue(*r.Assertions))
		}
		text, _ := bundle.Canonical(line)
		ledger.Write(text)
		ledger.WriteByte('\n')
		if _, ok := rows.StemFromID(r.ID); !ok {
			if !first {
				report.WriteByte(',')
			}
			first = false
			fmt.Fprintf(&report, `{"name":"/s/%s","assertionResults":[{"fullName":"x","status":"passed","meta":{"requirementId":%q}}]}`, r.Scenario, r.ID)
		}
	}
	report.WriteString("]}")
	_, index, err := rows.ReadVitest([]byte(report.String()), "report.json", rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rows.ReadLedger([]byte(ledger.String()), "ledger.jsonl", index)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := rows.Merge(got)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := discovery.FromValue(*orig.Discovery.Document, orig.Discovery.URL)
	s := hostSigner(t)
	asm, err := mint.Assemble(mint.Input{
		Rows: merged, Discovery: d, Build: orig.Host.Build, Suite: orig.Suite,
		EvidenceTier: bundle.TierSelf, Registry: profiles.Default(), GeneratedAt: fixedTime, KeyID: orig.Host.SigningKeyID, KeyPEM: s.PEM,
	})
	if err != nil {
		t.Fatal(err)
	}
	if asm.Bundle.WitnessSha256 != orig.WitnessSha256 || asm.Bundle.Discovery.Sha256 != orig.Discovery.Sha256 {
		t.Errorf("witness %s / discovery %s, original %s / %s", asm.Bundle.WitnessSha256, asm.Bundle.Discovery.Sha256, orig.WitnessSha256, orig.Discovery.Sha256)
	}
}

// A skipped floor row witnesses nothing: mint does not claim the profile certified
// (the reference emitter would), so its own self-check, which re-derives the
// certified flag from the floor rows (certified-not-witnessed), never refuses it.
func TestMintSkippedFloorRowDoesNotCertify(t *testing.T) {
	s := hostSigner(t)
	in := input(t, s)
	in.Rows = slices.Clone(in.Rows)
	for i, r := range in.Rows {
		if r.ID == profiles.FloorRowID("v2-version-header-honored") {
			in.Rows[i] = testkit.NonPassRow(r.ID, r.Scenario, bundle.Skipped, "operator skipped it")
		}
	}
	_, asm, v, err := mintBytes(t, in, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range asm.Bundle.ClaimedProfiles {
		if p.ID == "openwop-discovery-core" && (p.Certified || p.WitnessCount != 2) {
			t.Errorf("discovery-core claimed %+v with a skipped floor row", p)
		}
	}
	if v.Outcome != verify.Verified || v.HasRejection(verify.KindCertifiedNotWitnessed) || slices.Contains(v.CertifiedProfiles, "openwop-discovery-core") {
		t.Errorf("self-check %s %v, certified %v", v.Outcome, v.Rejections, v.CertifiedProfiles)
	}
	var denial string
	for _, a := range asm.Profiles {
		if a.ID == "openwop-discovery-core" {
			denial = strings.Join(a.Denials, "; ")
		}
	}
	if !strings.Contains(denial, "openwop.floor.v2-version-header-honored is skipped") {
		t.Errorf("denials %q", denial)
	}
}

// mint500 is the input of the mint-versus-verify benchmarks: the first 500 rows of
// a corpus bundle, with its discovery document and build, as a suite run hands
// them to bundle mint: rows.json and discovery.json files, read the way the
// command reads them (as bench/gen writes them for bench/run.sh). The input holds
// no more than a mint does, not the 940 KB bundle it is cut from, whose parse tree
// would otherwise stay live through every iteration and make each collection
// cost what a mint never pays.
func mint500(b *testing.B) (mint.Input, *keys.Signer) {
	dir := testkit.CorpusDir(b)
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", "openwop-workflow-engine-2.45.30-7643ddb8e.json"))
	if err != nil {
		b.Skip(err)
	}
	orig, _, _ := bundle.Parse(data)
	tmp := b.TempDir()
	items := make([]bundle.Value, 500)
	for i := range items {
		items[i] = orig.Results.Requirements[i].Raw
	}
	rowsFile, docFile := filepath.Join(tmp, "rows.json"), filepath.Join(tmp, "discovery.json")
	for file, v := range map[string]bundle.Value{rowsFile: bundle.ArrayValue(items...), docFile: *orig.Discovery.Document} {
		text, err := bundle.Indent(v)
		if err == nil {
			err = os.WriteFile(file, text, 0o600)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	rs, err := rows.Read(rows.Sources{Native: []string{rowsFile}}, rows.Options{})
	if err != nil {
		b.Fatal(err)
	}
	d, err := discovery.Load(docFile, orig.Discovery.URL)
	if err != nil {
		b.Fatal(err)
	}
	s := hostSigner(b)
	clone := strings.Clone
	return mint.Input{
		Rows: rs, Discovery: d,
		Build:        bundle.Build{Kind: clone(orig.Host.Build.Kind), ID: clone(orig.Host.Build.ID)},
		Suite:        bundle.Suite{Name: clone(orig.Suite.Name), Version: clone(orig.Suite.Version), TargetMajor: orig.Suite.TargetMajor, SpecArtifactsVersion: clone(orig.Suite.SpecArtifactsVersion), StampSha256: clone(orig.Suite.StampSha256)},
		EvidenceTier: bundle.TierSelf, Registry: profiles.Default(), GeneratedAt: fixedTime, KeyID: clone(orig.Host.SigningKeyID), KeyPEM: s.PEM,
		Env: os.Environ(),
	}, s
}

// BenchmarkMint500: minting 500 rows, everything mint does (assemble, seal, scrub,
// sign, encode, self-check). Compare with BenchmarkVerifyMinted500: the goal is at
// most 1.5× (docs/performance.md).
func BenchmarkMint500(b *testing.B) {
	in, s := mint500(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := mintBytes(b, in, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyMinted500: verifying what BenchmarkMint500 produces.
func BenchmarkVerifyMinted500(b *testing.B) {
	in, s := mint500(b)
	data, _, _, err := mintBytes(b, in, s)
	if err != nil {
		b.Fatal(err)
	}
	opts := verify.Options{HostKeys: keys.Set{s.Key(in.KeyID)}, Registry: in.Registry}
	b.ReportAllocs()
	for b.Loop() {
		if v, err := verify.Parse(data, opts); err != nil || v.Outcome != verify.Verified {
			b.Fatal(err, v.Rejections)
		}
	}
}

// BenchmarkMintVersusVerify500 pairs the two at each iteration: it mints 500
// rows, then verifies what it minted, timing each, and reports the ratio of the
// totals (mint/verify; the goal is at most 1.5) besides each one's time per
// iteration. Taken a few milliseconds apart, the two see the same load, so the
// ratio holds steady on a busy machine, where two benchmarks a second apart drift.
//
// The collector runs between the timed windows, never in them: neither command
// collects at this size (bundle mint runs at GOGC=400, bundle verify allocates
// under the first 4 MiB goal), while a benchmark at GOGC=100 collects every few
// iterations, each collection landing in whichever window allocated past the
// goal, which measures the collector's pacing in a tiny heap rather than the
// work. The processes themselves, collector included, are compared by
// bench/run.sh.
func BenchmarkMintVersusVerify500(b *testing.B) {
	in, s := mint500(b)
	opts := verify.Options{HostKeys: keys.Set{s.Key(in.KeyID)}, Registry: in.Registry}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var minting, verifying time.Duration
	for i := 0; b.Loop(); i++ {
		if i%16 == 0 {
			runtime.GC()
		}
		start := time.Now()
		data, _, _, err := mintBytes(b, in, s)
		minted := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		v, err := verify.Parse(data, opts)
		verifying += time.Since(minted)
		minting += minted.Sub(start)
		if err != nil || v.Outcome != verify.Verified {
			b.Fatal(err, v.Rejections)
		}
	}
	b.ReportMetric(float64(minting)/float64(verifying), "mint/verify")
	b.ReportMetric(float64(minting.Nanoseconds())/float64(b.N), "mint-ns/op")
	b.ReportMetric(float64(verifying.Nanoseconds())/float64(b.N), "verify-ns/op")
}

// Assemble takes discovery.sha256 from the captured document (the capture computed
// it), always: the document is never scrubbed, so a secret it holds changes
// nothing. One left empty is computed, and a wrong one makes a bundle the
// self-check refuses, so it is never written.
func TestMintTakesTheCapturedDiscoveryDigest(t *testing.T) {
	s := hostSigner(t)
	want := input(t, s).Discovery.Sha256
	for name, tc := range map[string]struct {
		sha256  string
		secret  string
		refused bool
	}{
		"captured":                         {sha256: want},
		"empty":                            {sha256: ""},
		"wrong":                            {sha256: strings.Repeat("0", 64), refused: true},
		"captured, secret in the document": {sha256: want, secret: "certcut tests"},
		"wrong, secret in the document":    {sha256: strings.Repeat("0", 64), secret: "certcut tests", refused: true},
	} {
		in := input(t, s)
		in.Discovery = &discovery.Document{URL: in.Discovery.URL, Value: in.Discovery.Value, Sha256: tc.sha256}
		if tc.secret != "" {
			in.Secrets = []string{tc.secret}
		}
		data, asm, v, err := mintBytes(t, in, s)
		var refused *mint.RefusedError
		switch {
		case tc.refused:
			if !errors.As(err, &refused) || !v.HasRejection(verify.KindDiscoveryDigest) {
				t.Errorf("%s: %v", name, err)
			}
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case asm.Bundle.Discovery.Sha256 != want:
			t.Errorf("%s: discovery.sha256 %s, want %s", name, asm.Bundle.Discovery.Sha256, want)
		case tc.secret != "" && (!bytes.Contains(data, []byte(tc.secret)) || len(asm.Redacted) != 0 || len(asm.LeftAlone) != 1):
			t.Errorf("%s: a value of the document was scrubbed (redacted %v, left alone %v)", name, asm.Redacted, asm.LeftAlone)
		}
	}
}
