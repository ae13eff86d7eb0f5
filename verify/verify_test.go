package verify_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// corpusKey loads keys/<keyId>.pub.pem for a corpus bundle.
func corpusKey(t *testing.T, dir string, b *bundle.Bundle) keys.PublicKey {
	t.Helper()
	k, err := keys.LoadPublicPEM(filepath.Join(dir, "keys", b.Signature.KeyID+keys.PEMSuffix))
	if err != nil {
		t.Fatalf("no key for %s: %v", b.Signature.KeyID, err)
	}
	return k
}

// TestCorpusVerifies is the interop test: every real bundle verifies byte-exactly
// under the key its own discovery document publishes, given as a PEM file.
func TestCorpusVerifies(t *testing.T) {
	dir := testkit.CorpusDir(t)
	for _, sub := range []string{"v2-host-bundles", "rfc-witnesses"} {
		files, _ := filepath.Glob(filepath.Join(dir, "evidence", sub, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no bundles under evidence/%s", sub)
		}
		for _, f := range files {
			t.Run(sub+"/"+filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				b, problems, err := bundle.Parse(data)
				if err != nil {
					t.Fatal(err)
				}
				key := corpusKey(t, dir, b)
				v := verify.Bundle(b, problems, verify.Options{HostKeys: keys.Set{key}, Registry: profiles.Default()})
				if len(v.Rejections) > 0 {
					t.Fatalf("rejected: %+v", v.Rejections)
				}
				if !v.SignatureVerified {
					t.Error("signature not verified")
				}
				if v.WitnessRecomputed != b.WitnessSha256 {
					t.Errorf("witness %s recomputed as %s", b.WitnessSha256, v.WitnessRecomputed)
				}
				if v.DiscoveryRecomputed != b.Discovery.Sha256 {
					t.Errorf("discovery %s recomputed as %s", b.Discovery.Sha256, v.DiscoveryRecomputed)
				}
				// Certified flags re-derived from the floor rows agree with every claim,
				// and so does every stored witnessCount; only floor scenarios that joined
				// after the cut are noted.
				for _, n := range v.Notes {
					if !strings.Contains(n, "the bundle carries no floor row for 1 of its 14 floor scenarios (v2-sse-last-event-id-cursor)") {
						t.Errorf("note %q", n)
					}
				}
				if v.Summary.TargetMajor == 2 && !slices.Equal(v.CertifiedProfiles, certifiedClaims(b)) {
					t.Errorf("certified %v, claimed %v", v.CertifiedProfiles, certifiedClaims(b))
				}
				if v.SelfPublished.Outcome != verify.AttributionVerifies || v.SelfPublished.PublicKey != key.Base64URL() {
					t.Errorf("self-published attribution %+v; the PEM key is %s", v.SelfPublished, key.Base64URL())
				}
				switch {
				case b.Suite.TargetMajor == 2:
					if v.Outcome != verify.Verified {
						t.Errorf("outcome %s (%v), want VERIFIED", v.Outcome, v.Unverified)
					}
				default: // major-1 witnesses: derivability needs the v1 catalog
					if v.Outcome != verify.Verified && !(v.Outcome == verify.Coherent && len(v.Unverified) == 1 && strings.Contains(v.Unverified[0], "derivability not checked")) {
						t.Errorf("outcome %s (%v), want VERIFIED or COHERENT for derivability only", v.Outcome, v.Unverified)
					}
				}
			})
		}
	}
}

// certifiedClaims lists the profiles a bundle marks certified ([] with none).
func certifiedClaims(b *bundle.Bundle) []string {
	out := []string{}
	for _, p := range b.ClaimedProfiles {
		if p.Certified {
			out = append(out, p.ID)
		}
	}
	return out
}

// The certified lists a reviewer can check by hand against claimedProfiles.
func TestCorpusCertifiedLists(t *testing.T) {
	dir := testkit.CorpusDir(t)
	for file, want := range map[string][]string{
		"openwop-host-v2-reference.json": {"openwop-discovery-core", "openwop-core-standard", "openwop-conformance-seams-v2"},
		"myndhyve.json":                  {"openwop-discovery-core"}, // core-standard is claimed uncertified
		"openwop-workflow-engine.json":   {},                         // blocked 3: nothing certified
	} {
		v := verifyFile(t, filepath.Join(dir, "evidence", "v2-host-bundles", file), nil)
		if !slices.Equal(v.CertifiedProfiles, want) {
			t.Errorf("%s: certified %v, want %v", file, v.CertifiedProfiles, want)
		}
	}
}

func verifyFile(t *testing.T, path string, opts *verify.Options) *verify.Verdict {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := verify.Options{Registry: profiles.Default()}
	if opts != nil {
		o = *opts
	}
	v, err := verify.Parse(data, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mutation changes a parsed bundle document.
type mutation func(t *testing.T, root bundle.Value) bundle.Value

// set replaces the value at a slash path ("results/requirements/3/result").
// Array indexes are numbers; a negative index counts from the end.
func set(path string, val bundle.Value) mutation {
	return func(t *testing.T, root bundle.Value) bundle.Value {
		return setAt(t, root, strings.Split(path, "/"), val)
	}
}

func setAt(t *testing.T, cur bundle.Value, path []string, val bundle.Value) bundle.Value {
	if len(path) == 0 {
		return val
	}
	if cur.Kind() == bundle.Array {
		i, err := strconv.Atoi(path[0])
		if err != nil {
			t.Fatalf("bad index %q", path[0])
		}
		items := slices.Clone(cur.Items())
		if i < 0 {
			i += len(items)
		}
		items[i] = setAt(t, items[i], path[1:], val)
		return bundle.ArrayValue(items...)
	}
	child, _ := cur.Get(path[0])
	return cur.With(path[0], setAt(t, child, path[1:], val))
}

func get(t *testing.T, root bundle.Value, path string) bundle.Value {
	cur := root
	for _, p := range strings.Split(path, "/") {
		if cur.Kind() == bundle.Array {
			i, _ := strconv.Atoi(p)
			if i < 0 {
				i += len(cur.Items())
			}
			cur = cur.Items()[i]
			continue
		}
		var ok bool
		if cur, ok = cur.Get(p); !ok {
			t.Fatalf("no %s in the bundle", path)
		}
	}
	return cur
}

func remove(path string) mutation {
	return func(t *testing.T, root bundle.Value) bundle.Value {
		parts := strings.Split(path, "/")
		if len(parts) == 1 {
			return root.Without(path)
		}
		parent := strings.Join(parts[:len(parts)-1], "/")
		return set(parent, get(t, root, parent).Without(parts[len(parts)-1]))(t, root)
	}
}

func appendTo(path string, item func(t *testing.T, root bundle.Value) bundle.Value) mutation {
	return func(t *testing.T, root bundle.Value) bundle.Value {
		var items []bundle.Value
		parent, name := root, path
		if i := strings.LastIndex(path, "/"); i >= 0 {
			parent, name = get(t, root, path[:i]), path[i+1:]
		}
		if parent.Has(name) {
			items = slices.Clone(get(t, root, path).Items())
		}
		return set(path, bundle.ArrayValue(append(items, item(t, root))...))(t, root)
	}
}

// rowIndex finds the index of the row with the given id.
func rowIndex(t *testing.T, root bundle.Value, id string) string {
	for i, r := range get(t, root, "results/requirements").Items() {
		if v, _ := r.Get("id"); v.Kind() == bundle.String {
			if s, _ := v.Str(); s == id {
				return strconv.Itoa(i)
			}
		}
	}
	t.Fatalf("no row %s", id)
	return ""
}

func onRow(id, member string, val bundle.Value) mutation {
	return func(t *testing.T, root bundle.Value) bundle.Value {
		return set("results/requirements/"+rowIndex(t, root, id)+"/"+member, val)(t, root)
	}
}

func flipSig(t *testing.T, root bundle.Value) bundle.Value {
	sig, _ := get(t, root, "signature/sig").Str()
	c := byte('A')
	if sig[10] == 'A' {
		c = 'B'
	}
	return set("signature/sig", bundle.StringValue(sig[:10]+string(c)+sig[11:]))(t, root)
}

func str(s string) bundle.Value { return bundle.StringValue(s) }
func num(n int64) bundle.Value  { return bundle.IntValue(n) }

const (
	a2aRow    = "openwop.requirement.0211.a2a-error-data-shape"
	egressRow = "openwop.requirement.0171.webhook-egress-refused"
)

func relaxation(obligation string) func(*testing.T, bundle.Value) bundle.Value {
	return func(*testing.T, bundle.Value) bundle.Value {
		return bundle.Relaxation{Obligation: obligation, Durability: "session", Reason: "loopback lane"}.Value()
	}
}

// tamperCases are mutations any coherent, certified v2 bundle detects, with the exact
// rejection kinds the rules of spec §3 give, in order. They assume the bundle has a
// non-pass row (so detail exists), the A2A and egress rows as executed-pass, and
// openwop-core-standard certified (second claimed profile).
var tamperCases = []struct {
	name string
	mut  mutation
	want []verify.Kind
}{
	{"row result pass to fail", onRow(a2aRow, "result", str(bundle.ExecutedFail)),
		[]verify.Kind{"reason-missing", "totals-mismatch", "totals-mismatch", "witness-digest"}},
	{"row result pass to fail with a reason", func(t *testing.T, r bundle.Value) bundle.Value {
		return onRow(a2aRow, "detail", str("503 from the host"))(t, onRow(a2aRow, "result", str(bundle.ExecutedFail))(t, r))
	}, []verify.Kind{"totals-mismatch", "totals-mismatch", "witness-digest"}},
	{"a total", set("results/totals/executedPass", num(9999)), []verify.Kind{"totals-mismatch"}},
	{"a row's assertions", onRow(a2aRow, "assertions", num(77)), []verify.Kind{"witness-digest", "assertion-count"}},
	{"assertions removed from a pass", func(t *testing.T, r bundle.Value) bundle.Value {
		i := rowIndex(t, r, a2aRow)
		return set("results/requirements/"+i, get(t, r, "results/requirements/"+i).Without("assertions"))(t, r)
	}, []verify.Kind{"vacuous-pass", "witness-digest", "assertion-count"}},
	{"assertionCount", set("assertionCount", num(1)), []verify.Kind{"assertion-count"}},
	{"suite.version", set("suite/version", str("9.9.9")), []verify.Kind{"signature-invalid"}},
	{"host.build id", set("host/build/id", str("feedfacefeedface")), []verify.Kind{"signature-invalid"}},
	// schema: "" is not one of the three build kinds (the enum of host.build.kind).
	{"host.build kind emptied", set("host/build/kind", str("")), []verify.Kind{"schema", "build-missing", "signature-invalid"}},
	{"discovery document", set("discovery/document/preferredVersion", str("9.0")), []verify.Kind{"discovery-digest"}},
	{"discovery.sha256", set("discovery/sha256", str(strings.Repeat("0", 64))), []verify.Kind{"signature-invalid", "discovery-digest"}},
	{"relaxation added", appendTo("host/relaxations", relaxation("webhooks.egress-guard")),
		[]verify.Kind{"witness-digest", "relaxed-profile-certified"}},
	{"duplicated row", appendTo("results/requirements", func(t *testing.T, r bundle.Value) bundle.Value {
		return get(t, r, "results/requirements/"+rowIndex(t, r, a2aRow))
	}), []verify.Kind{"duplicate-requirement", "totals-mismatch", "witness-digest", "assertion-count"}},
	// schema: signature.over is a const array in the schema, too.
	{"signature.over reordered", set("signature/over", bundle.StringsValue([]string{"host.build", "witnessSha256", "suite.version", "discovery.sha256"})),
		[]verify.Kind{"schema", "signature-over"}},
	{"signature.over shortened", set("signature/over", bundle.StringsValue(bundle.SignatureOver[:3])), []verify.Kind{"schema", "signature-over"}},
	// schema: signature.alg is const "ed25519".
	{"alg", set("signature/alg", str("ed448")), []verify.Kind{"schema", "signature-missing"}},
	{"signature removed", remove("signature"), []verify.Kind{"schema", "signature-missing"}},
	{"signature bytes", flipSig, []verify.Kind{"signature-invalid"}},
	// schema: sig must be 86 base64url characters.
	{"signature truncated", set("signature/sig", str("AAAA")), []verify.Kind{"schema", "signature-invalid"}},
	{"witnessSha256 replaced", set("witnessSha256", str(strings.Repeat("a", 64))), []verify.Kind{"witness-digest", "signature-invalid"}},
	{"bundleVersion as a number", set("bundleVersion", num(3)), []verify.Kind{"not-v3"}},
	{"bundleVersion 2", set("bundleVersion", str("2")), []verify.Kind{"not-v3"}},
	{"egress guard observed open", func(t *testing.T, r bundle.Value) bundle.Value {
		return onRow(egressRow, "detail", str("delivered to 10.0.0.1"))(t, onRow(egressRow, "result", str(bundle.ExecutedFail))(t, r))
	}, []verify.Kind{"totals-mismatch", "totals-mismatch", "witness-digest", "undeclared-relaxation-observed"}},
	{"rung raised", set("durability/rung", str(bundle.RungDurableMultiInstance)), []verify.Kind{"rung-not-derivable"}},
	// schema: durability.rung is an enum of three.
	{"rung unknown", set("durability/rung", str("bulletproof")), []verify.Kind{"schema", "rung-not-derivable"}},
	// schema: the allOf conditional requires verifierSignature when a profile is independent.
	{"independent tier without verifier signature", set("claimedProfiles/0/evidenceTier", str(bundle.TierIndependent)),
		[]verify.Kind{"schema", "independent-unsigned"}},
	{"claim a profile the document does not derive", appendTo("claimedProfiles", func(*testing.T, bundle.Value) bundle.Value {
		return bundle.ObjectValue(
			bundle.Member{Name: "id", Value: str("openwop-made-up")},
			bundle.Member{Name: "evidenceTier", Value: str("self")},
			bundle.Member{Name: "witnessCount", Value: num(1)},
			bundle.Member{Name: "certified", Value: bundle.BoolValue(true)},
		)
	}), []verify.Kind{"profile-not-derivable"}},
	{"assertions of the wrong type", onRow(a2aRow, "assertions", str("4")),
		[]verify.Kind{"schema", "vacuous-pass", "witness-digest", "assertion-count"}},
}

func checkTamper(t *testing.T, data []byte, key keys.PublicKey) {
	t.Helper()
	base, err := bundle.ParseIJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.Options{HostKeys: keys.Set{key}, Registry: profiles.Default()}
	if v := verify.Bundle(mustDecode(t, base), nil, opts); v.Outcome != verify.Verified {
		t.Fatalf("untampered bundle is %s: %+v %v", v.Outcome, v.Rejections, v.Unverified)
	}
	for _, tc := range tamperCases {
		t.Run(tc.name, func(t *testing.T) {
			mutated := tc.mut(t, base)
			b, problems := bundle.Decode(mutated)
			v := verify.Bundle(b, problems, opts)
			if got := v.Kinds(); !slices.Equal(got, tc.want) {
				t.Errorf("kinds %v, want %v\n%+v", got, tc.want, v.Rejections)
			}
			if v.Outcome != verify.Rejected || v.ExitCode() != 1 {
				t.Errorf("outcome %s, want REJECTED", v.Outcome)
			}
			// Also through the bytes: what the reader makes of the written file.
			out, err := bundle.Indent(mutated)
			if err != nil {
				t.Fatal(err)
			}
			v2, err := verify.Parse(out, opts)
			if err != nil || !slices.Equal(v2.Kinds(), tc.want) {
				t.Errorf("through bytes: %v, %v", err, v2.Kinds())
			}
		})
	}
}

func mustDecode(t *testing.T, v bundle.Value) *bundle.Bundle {
	b, problems := bundle.Decode(v)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	return b
}

func TestTamperFresh(t *testing.T) {
	checkTamper(t, testkit.Encode(testkit.Signed("https://host.example")), testkit.HostPublic())
}

func TestTamperReal(t *testing.T) {
	dir := testkit.CorpusDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", "openwop-host-v2-reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := bundle.Parse(data)
	checkTamper(t, data, corpusKey(t, dir, b))
}

func TestWrongKey(t *testing.T) {
	data := testkit.Encode(testkit.Signed("https://host.example"))
	other := keys.PublicKey{Key: testkit.Public("someone else"), KeyID: testkit.HostKeyID, Source: keys.SourcePEMFile}
	v, _ := verify.Parse(data, verify.Options{HostKeys: keys.Set{other}, Registry: profiles.Default()})
	if !slices.Equal(v.Kinds(), []verify.Kind{"signature-invalid"}) {
		t.Fatalf("kinds %v", v.Kinds())
	}
	if v.SelfPublished.Outcome != verify.AttributionVerifies {
		t.Errorf("self-published %s; the bundle's own key still verifies", v.SelfPublished.Outcome)
	}
	if len(v.Notes) == 0 || !strings.Contains(strings.Join(v.Notes, "\n"), "is not the key the bundle's own discovery document publishes") {
		t.Errorf("notes %v do not point out the key mismatch", v.Notes)
	}
}

func TestNoKeyIsCoherent(t *testing.T) {
	data := testkit.Encode(testkit.Signed("https://host.example"))
	v, _ := verify.Parse(data, verify.Options{Registry: profiles.Default()})
	if v.Outcome != verify.Coherent || v.ExitCode() != 2 {
		t.Fatalf("outcome %s", v.Outcome)
	}
	if len(v.Unverified) != 1 || !strings.Contains(v.Unverified[0], "self-published, not trusted") {
		t.Errorf("reasons %v", v.Unverified)
	}
	// Several keys, none with the bundle's id: nothing is chosen.
	set := keys.Set{
		{Key: testkit.Public("a"), KeyID: "a", Source: keys.SourcePEMFile},
		{Key: testkit.Public("b"), KeyID: "b", Source: keys.SourcePEMFile},
	}
	v, _ = verify.Parse(data, verify.Options{HostKeys: set, Registry: profiles.Default()})
	if v.Outcome != verify.Coherent || !strings.Contains(v.Unverified[0], "none of the 2 supplied host keys") {
		t.Errorf("outcome %s %v", v.Outcome, v.Unverified)
	}
	// Without a registry, derivability is unchecked.
	v, _ = verify.Parse(data, verify.Options{HostKeys: keys.Set{testkit.HostPublic()}})
	if v.Outcome != verify.Coherent || v.DerivabilityChecked {
		t.Errorf("outcome %s, derivability %v", v.Outcome, v.DerivabilityChecked)
	}
}

// The four failures of key attribution stay apart, and a retired key still verifies
// with a note.
func TestAttributionOutcomes(t *testing.T) {
	host := keys.PublicKey{Key: testkit.Public("host"), KeyID: testkit.HostKeyID}
	other := keys.PublicKey{Key: testkit.Public("other"), KeyID: testkit.HostKeyID}
	retired := host.Entry()
	retired.RetiredAt = "2026-10-01T00:00:00Z"
	for _, tc := range []struct {
		name string
		doc  *bundle.Value
		want verify.AttributionOutcome
		note string
	}{
		{"no document", nil, verify.AttributionNoDocument, ""},
		{"no signingKeys", ptr(testkit.Discovery("https://h.example")), verify.AttributionNoSigningKeys, ""},
		{"key not published", ptr(testkit.Discovery("https://h.example", keys.PublicKey{Key: testkit.Public("x"), KeyID: "other-key"}.Entry())), verify.AttributionKeyNotPublished, ""},
		{"does not verify", ptr(testkit.Discovery("https://h.example", other.Entry())), verify.AttributionDoesNotVerify, ""},
		{"verifies", ptr(testkit.Discovery("https://h.example", host.Entry())), verify.AttributionVerifies, ""},
		{"retired before generation", ptr(testkit.Discovery("https://h.example", retired)), verify.AttributionVerifies, "before this bundle was generated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testkit.Unsigned("https://h.example")
			b.Discovery.Document = tc.doc
			if err := b.Seal(); err != nil {
				t.Fatal(err)
			}
			testkit.Sign(b, "host", testkit.HostKeyID)
			v, err := verify.Parse(testkit.Encode(b), verify.Options{Registry: profiles.Default()})
			if err != nil {
				t.Fatal(err)
			}
			if v.SelfPublished.Outcome != tc.want {
				t.Errorf("outcome %s (%s), want %s", v.SelfPublished.Outcome, v.SelfPublished.Detail, tc.want)
			}
			if len(v.Rejections) > 0 || v.Outcome != verify.Coherent {
				t.Errorf("verdict %s %v: attribution alone never rejects", v.Outcome, v.Rejections)
			}
			if tc.note != "" && !strings.Contains(strings.Join(v.Notes, "\n"), tc.note) {
				t.Errorf("notes %v lack %q", v.Notes, tc.note)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// Profile-scoped rejections withdraw one profile; bundle-wide ones withdraw all.
func TestCertifiedListScoping(t *testing.T) {
	opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}

	relaxed := testkit.Unsigned("https://h.example")
	relaxed.Host.Relaxations = []bundle.Relaxation{{Obligation: "webhooks.egress-guard", Durability: "session", Reason: "loopback"}}
	relaxed.ClaimedProfiles[1].Certified = false // the honest emitter marks it uncertified
	v := sealVerify(t, relaxed, opts)
	if v.Outcome != verify.Verified || !slices.Equal(v.CertifiedProfiles, []string{"openwop-discovery-core"}) {
		t.Errorf("relaxed webhooks: %s %v %v", v.Outcome, v.CertifiedProfiles, v.Rejections)
	}

	scoped := testkit.Unsigned("https://h.example")
	scoped.Host.Relaxations = relaxed.Host.Relaxations // but still marked certified
	v = sealVerify(t, scoped, opts)
	if !slices.Equal(v.Kinds(), []verify.Kind{"relaxed-profile-certified"}) || v.Rejections[0].Profile != "openwop-core-standard" ||
		!slices.Equal(v.CertifiedProfiles, []string{"openwop-discovery-core"}) {
		t.Errorf("profile-scoped: %v %v", v.Rejections, v.CertifiedProfiles)
	}

	blocked := testkit.Unsigned("https://h.example")
	blocked.Results.Requirements = append(blocked.Results.Requirements,
		testkit.NonPassRow("openwop.requirement.0999.unreached", "x.test.ts", bundle.Blocked, "host returned 502"))
	v = sealVerify(t, blocked, opts)
	if !slices.Equal(v.Kinds(), []verify.Kind{"blocked-certified"}) || len(v.CertifiedProfiles) != 0 {
		t.Errorf("bundle-wide: %v %v", v.Rejections, v.CertifiedProfiles)
	}
}

func sealVerify(t *testing.T, b *bundle.Bundle, opts verify.Options) *verify.Verdict {
	t.Helper()
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	v, err := verify.Parse(testkit.Encode(b), opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestIndependentTier(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	b.ClaimedProfiles[0].EvidenceTier = bundle.TierIndependent
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	signer, _ := keys.NewSigner(testkit.Key("verifier"))
	if err := keys.CountersignBundle(b, signer, testkit.HostKeyID); err == nil {
		t.Fatal("countersigned with the host's key id")
	}
	if err := keys.CountersignBundle(b, signer, "verifier-1"); err != nil {
		t.Fatal(err)
	}
	data := testkit.Encode(b)
	verifierKey := keys.PublicKey{Key: testkit.Public("verifier"), KeyID: "verifier-1", Source: keys.SourcePEMFile}
	host := keys.Set{testkit.HostPublic()}
	reg := profiles.Default()
	for _, tc := range []struct {
		name     string
		verifier keys.Set
		lone     bool
		want     []verify.Kind
		outcome  verify.Outcome
	}{
		{"verified", keys.Set{verifierKey}, false, []verify.Kind{}, verify.Verified},
		{"no verifier key", nil, false, []verify.Kind{"independent-unverifiable"}, verify.Rejected},
		// The lone-key rule (reference parity) tries the one key whatever its id.
		{"wrong verifier key, lone-key rule", keys.Set{testkit.HostPublic()}, true, []verify.Kind{"verifier-signature-invalid"}, verify.Rejected},
		// Without it, a key of another id is never tried.
		{"wrong verifier key, by id only", keys.Set{testkit.HostPublic()}, false, []verify.Kind{"independent-unverifiable"}, verify.Rejected},
	} {
		v, _ := verify.Parse(data, verify.Options{HostKeys: host, VerifierKeys: tc.verifier, Registry: reg, UnsafeLoneKeyAnyKeyID: tc.lone})
		if !slices.Equal(v.Kinds(), tc.want) || v.Outcome != tc.outcome {
			t.Errorf("%s: %s %v", tc.name, v.Outcome, v.Rejections)
		}
	}
	// A verifier signature under the host's own key id.
	self, _ := bundle.ParseIJSON(data)
	self = set("verifierSignature/keyId", str(testkit.HostKeyID))(t, self)
	b2, _ := bundle.Decode(self)
	v := verify.Bundle(b2, nil, verify.Options{HostKeys: host, VerifierKeys: keys.Set{verifierKey}, Registry: reg})
	if !slices.Equal(v.Kinds(), []verify.Kind{"independent-self-signed"}) {
		t.Errorf("self-signed: %v", v.Rejections)
	}
}

func TestOptedOutButAdvertised(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	b.Results.Requirements = append(b.Results.Requirements,
		testkit.NonPassRow("openwop.profile.family.webhooks", "v2-profile-opt-out.test.ts", bundle.Skipped, "operator opted out (OPENWOP_OPTED_OUT_PROFILES=family.webhooks)"),
		testkit.NonPassRow("openwop.profile.family.sandbox", "v2-profile-opt-out.test.ts", bundle.Skipped, "operator opted out (OPENWOP_OPTED_OUT_PROFILES=family.sandbox)"),
	)
	v := sealVerify(t, b, verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()})
	if !slices.Equal(v.Kinds(), []verify.Kind{"opted-out-but-advertised"}) || !strings.Contains(v.Rejections[0].Detail, "webhooks") {
		t.Errorf("%v", v.Rejections)
	}
	if !slices.Equal(v.OptedOut, []string{"family.sandbox", "family.webhooks"}) {
		t.Errorf("optedOut %v", v.OptedOut)
	}
}

func TestNotABundle(t *testing.T) {
	for _, in := range []string{`[]`, `"x"`, `{}`, `{"bundleVersion":"2","scenarioManifestSha256":"x"}`} {
		v, err := verify.Parse([]byte(in), verify.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !slices.Equal(v.Kinds(), []verify.Kind{"not-v3"}) {
			t.Errorf("%s: %v", in, v.Rejections)
		}
	}
	v, _ := verify.Parse([]byte(`{"bundleVersion":"2","scenarioManifestSha256":"x"}`), verify.Options{})
	if !strings.Contains(v.Rejections[0].Detail, "bundle v2") {
		t.Errorf("v2 bundle not named as such: %s", v.Rejections[0].Detail)
	}
}

func TestTrimJS(t *testing.T) {
	for in, want := range map[string]string{
		" \t\n\v\f\r\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff": "",
		"\u0085":     "\u0085", // NEL is not JS white space
		" reason\n ": "reason",
		"\u200b":     "\u200b", // zero-width space is not Zs
	} {
		if got := verify.TrimJS(in); got != want {
			t.Errorf("TrimJS(%q) = %q, want %q", in, got, want)
		}
	}
}

// Schema validation is one more rule: each failure is a schema rejection that
// names its JSON pointer, in pointer order, ahead of the reference rules.
func TestSchemaRejections(t *testing.T) {
	base, err := bundle.ParseIJSON(testkit.Encode(testkit.Signed("https://host.example")))
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}
	for _, tc := range []struct {
		name     string
		mut      mutation
		kinds    []verify.Kind
		pointers []string
	}{
		{"extra root member", set("extra", bundle.BoolValue(true)), []verify.Kind{"schema"}, []string{"/extra"}},
		{"bad enum value", set("claimedProfiles/0/evidenceTier", str("platinum")), []verify.Kind{"schema"}, []string{"/claimedProfiles/0/evidenceTier"}},
		{"coherence-file row id", onRow(a2aRow, "id", str("openwop.it.v2-eos-clock.ticks")),
			[]verify.Kind{"schema", "witness-digest"}, []string{"/results/requirements/0/id"}},
		{"two at once, in pointer order", func(t *testing.T, r bundle.Value) bundle.Value {
			return set("aaa", num(1))(t, set("host/extra", num(1))(t, r))
		}, []verify.Kind{"schema", "schema"}, []string{"/aaa", "/host/extra"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := bundle.Indent(tc.mut(t, base))
			if err != nil {
				t.Fatal(err)
			}
			v, err := verify.Parse(out, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.Kinds(), tc.kinds) || v.Outcome != verify.Rejected {
				t.Fatalf("%s %v, want %v", v.Outcome, v.Rejections, tc.kinds)
			}
			for i, p := range tc.pointers {
				r := v.Rejections[i]
				if r.Pointer != p || !strings.HasPrefix(r.Detail, p+": ") {
					t.Errorf("rejection %d: pointer %q detail %q, want pointer %s", i, r.Pointer, r.Detail, p)
				}
			}
			if len(v.CertifiedProfiles) != 0 {
				t.Errorf("a schema rejection is bundle-wide; certified %v", v.CertifiedProfiles)
			}
		})
	}
}

// A JSON file that is recognisably not a bundle is refused by the file reader
// (*NotABundleError naming its kind and the command that reads it), not judged;
// one with a bundleVersion is read and judged.
func TestReadBundleNotABundle(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		doc, looks, reads string
	}{
		{`{"keyringVersion":1,"keys":[]}`, "a keyring", "'bundle verify --keyring F BUNDLE' reads it"},
		{`{"hosts":[]}`, "a host-tier table", "--tiers F"},
		{`{"signingKeys":[]}`, "a discovery document", "--from-discovery F"},
		{`{"rfc":"RFCS/0211.md"}`, "a gate file", "--gate-file F"},
		{`{"payloadType":"x","payload":"","signatures":[]}`, "a DSSE envelope", "'bundle verify-attestation F'"},
		{`{}`, "a JSON object with no bundleVersion", "bundleVersion says its format"},
		{`[1]`, "a JSON array", "bundleVersion says its format"},
	} {
		f := filepath.Join(dir, "F")
		if err := os.WriteFile(f, []byte(tc.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := verify.ReadBundle(f, nil)
		var nb *verify.NotABundleError
		if !errors.As(err, &nb) {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		msg := strings.ReplaceAll(nb.Error(), f, "F")
		if !strings.Contains(msg, "it is "+tc.looks) || !strings.Contains(msg, tc.reads) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q", tc.doc, msg)
		}
	}
	f := filepath.Join(dir, "v2.json")
	if err := os.WriteFile(f, []byte(`{"bundleVersion":"2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := verify.ReadBundle(f, nil); err != nil {
		t.Errorf("a v2 bundle is a bundle (REJECTED not-v3 when judged): %v", err)
	}
}
