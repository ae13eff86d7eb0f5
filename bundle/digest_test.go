package bundle_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
)

func mustParse(t *testing.T, s string) bundle.Value {
	t.Helper()
	v, err := bundle.ParseIJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The witness preimage, written out by hand from spec §2.2 for each shape.
func TestWitnessPreimage(t *testing.T) {
	const rows = `"requirements":[
		{"id":"openwop.b","scenario":"s.test.ts","result":"executed-pass","assertions":1,"extra":true},
		{"id":"openwop.a","scenario":"s.test.ts","result":"skipped","detail":null},
		{"id":"openwop.a","scenario":"t.test.ts","result":"inapplicable","detail":"later twin keeps its place","evidence":{"recovery":{"class":"c","boundMs":1,"observedMs":0}}}]`
	const sortedRows = `[{"detail":null,"id":"openwop.a","result":"skipped","scenario":"s.test.ts"},` +
		`{"detail":"later twin keeps its place","evidence":{"recovery":{"boundMs":1,"class":"c","observedMs":0}},"id":"openwop.a","result":"inapplicable","scenario":"t.test.ts"},` +
		`{"assertions":1,"id":"openwop.b","result":"executed-pass","scenario":"s.test.ts"}]`
	const relax = `[{"obligation":"webhooks.egress-guard","durability":"session","reason":"loopback"}]`
	const relaxCanon = `[{"durability":"session","obligation":"webhooks.egress-guard","reason":"loopback"}]`
	for _, tc := range []struct {
		name, host, want string
	}{
		{"bare rows", `{}`, sortedRows},
		{"empty relaxations stay out", `{"relaxations":[]}`, sortedRows},
		{"relaxations", `{"relaxations":` + relax + `}`, `{"relaxations":` + relaxCanon + `,"rows":` + sortedRows + `}`},
		{"deployment", `{"deployment":"colocated-companion"}`, `{"deployment":"colocated-companion","rows":` + sortedRows + `}`},
		{"both", `{"deployment":"colocated-companion","relaxations":` + relax + `}`,
			`{"deployment":"colocated-companion","relaxations":` + relaxCanon + `,"rows":` + sortedRows + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := mustParse(t, `{"host":`+tc.host+`,"results":{`+rows+`}}`)
			got, err := bundle.Canonical(bundle.WitnessPreimage(root))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestAttestationBytes(t *testing.T) {
	root := mustParse(t, `{"suite":{"version":"2.45.30","name":"x"},"host":{"build":{"kind":"commit","id":"abc"},"name":"h"},
		"discovery":{"sha256":"dd","url":"u"},"witnessSha256":"ww","signature":{}}`)
	got, err := bundle.Attestation(root)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"discovery.sha256":"dd","host.build":{"id":"abc","kind":"commit"},"suite.version":"2.45.30","witnessSha256":"ww"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Digests of a value built in the test, against SHA-256 of the canonical text
// written out by hand.
func TestDiscoveryDigestGolden(t *testing.T) {
	doc := mustParse(t, `{"preferredVersion":"2.0","limits":{"ratio":0.5,"big":1e21},"protocolVersions":["2.0"],"note":"\u2028"}`)
	got, err := bundle.DiscoveryDigest(doc)
	if err != nil {
		t.Fatal(err)
	}
	// sha256 of the canonical text below, computed outside Go (Python hashlib).
	const want = "466a0136eaec2680abba29f64556d38c14aef26dcf17758c44f202619ca3c63a"
	canon, _ := bundle.Canonical(doc)
	if string(canon) != `{"limits":{"big":1e+21,"ratio":0.5},"note":"`+"\u2028"+`","preferredVersion":"2.0","protocolVersions":["2.0"]}` {
		t.Fatalf("canonical form %s", canon)
	}
	if got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
}

// Every corpus bundle is byte-identical to what the reader and the 2-space writer
// make of it: member order, number text and string escaping all match the reference
// emitter.
func TestCorpusRoundTrip(t *testing.T) {
	dir := testkit.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	if len(files) == 0 {
		t.Fatal("no bundles in the corpus")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := bundle.ParseIJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, err := bundle.Indent(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, data) {
			t.Errorf("%s: re-written bytes differ", filepath.Base(f))
		}
	}
}

func TestSealedBundleRoundTrips(t *testing.T) {
	b := testkit.Signed("https://host.example")
	data := testkit.Encode(b)
	parsed, problems, err := bundle.Parse(data)
	if err != nil || len(problems) > 0 {
		t.Fatalf("%v %v", err, problems)
	}
	again, _ := bundle.Indent(parsed.Value())
	if !bytes.Equal(again, data) {
		t.Error("typed view does not encode back to the same bytes")
	}
	if w, _ := bundle.WitnessDigest(parsed.Raw); w != b.WitnessSha256 {
		t.Errorf("witness %s, sealed %s", w, b.WitnessSha256)
	}
}

// hashOf is the digest computed the plain way: the whole canonical text, then
// SHA-256.
func hashOf(t *testing.T, v bundle.Value) string {
	t.Helper()
	b, err := bundle.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// WitnessDigest streams the preimage's canonical form into the hash without
// building it, and CanonicalSHA256 streams through a small buffer: both give the
// digest of the whole text, on every corpus bundle and on shapes at the edges
// (rows that are not objects, ids that are not strings or repeat, texts longer
// than the buffer, wrappers).
func TestWitnessDigestStreams(t *testing.T) {
	long := strings.Repeat("é\u2028x", 20_000)
	docs := []string{
		`{}`,
		`{"results":{"requirements":"x"}}`,
		`{"results":{"requirements":[]}}`,
		`{"host":{"relaxations":[]},"results":{"requirements":[1,"a",null,{"id":3},{"id":"b","detail":"` + long + `"},{"id":"a","x":1,"scenario":"s"},{"id":"a","result":"r"}]}}`,
		`{"host":{"deployment":null},"results":{"requirements":[{"id":"\ud83d\ude00"},{"id":"\uffff"}]}}`,
		`{"host":{"relaxations":[{"a":"` + long + `"}],"deployment":"colocated-companion"},"results":{"requirements":[{"id":"z","evidence":{"b":1,"a":[` + strings.Repeat(`"`+strings.Repeat("ab\\n", 30)+`",`, 400) + `0]}}]}}`,
		`{"host":"x","results":{"requirements":[{"id":"a","assertions":1e21,"detail":"\u0001"}]}}`,
	}
	// Many rows under few ids: the sort must keep rows of one id in their order.
	var repeated []string
	for i := range 300 {
		repeated = append(repeated, fmt.Sprintf(`{"id":"r%d","scenario":"s%d"}`, (i*7)%11, i))
	}
	docs = append(docs, `{"results":{"requirements":[`+strings.Join(repeated, ",")+`]}}`)
	files, _ := filepath.Glob(filepath.Join(testkit.CorpusDir(t), "evidence", "*", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	for i, d := range docs {
		root := mustParse(t, d)
		got, err := bundle.WitnessDigest(root)
		if err != nil {
			t.Fatal(err)
		}
		if want := hashOf(t, bundle.WitnessPreimage(root)); got != want {
			t.Errorf("document %d: WitnessDigest %s, the preimage hashes to %s", i, got, want)
		}
		if got, _ := bundle.CanonicalSHA256(root); got != hashOf(t, root) {
			t.Errorf("document %d: CanonicalSHA256 differs from the hash of Canonical", i)
		}
	}
}

// Bundle.Attestation, from the four members, is Attestation of the whole document
// the bundle writes, for bundles with and without each optional part.
func TestBundleAttestation(t *testing.T) {
	bundles := []*bundle.Bundle{testkit.Signed("https://host.example"), testkit.Unsigned("https://host.example"), {}}
	for _, b := range testkit.SpecRepoBundles() {
		bundles = append(bundles, b)
	}
	for i, b := range bundles {
		want, err := bundle.Attestation(b.Value())
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Attestation()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("bundle %d: %s, want %s (%v)", i, got, want, err)
		}
	}
}

// Clone copies a parsed tree into memory of its own: equal, sharing no string
// with the input copy the reader made.
func TestValueClone(t *testing.T) {
	v, err := bundle.ParseIJSON([]byte(`{"a":["x",{"b":"yy","c":[]}],"d":{},"e":1.5,"f":true,"g":null,"h":"\u00e9\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	c := v.Clone()
	if !bundle.Equal(v, c) {
		t.Fatal("the clone differs")
	}
	want, _ := bundle.Canonical(v)
	got, _ := bundle.Canonical(c)
	if string(got) != string(want) {
		t.Fatalf("canonical %s, want %s", got, want)
	}
	a, _ := v.Path("a")
	ca, _ := c.Path("a")
	if &a.Items()[0] == &ca.Items()[0] {
		t.Error("the clone shares the items")
	}
	s, _ := a.Items()[0].Str()
	cs, _ := ca.Items()[0].Str()
	if unsafe.StringData(s) == unsafe.StringData(cs) {
		t.Error("the clone shares a string")
	}
}

// The tree's strings share the reader's own copy of the input, never the
// caller's bytes: changing them after the parse changes nothing in the tree.
func TestParseKeepsNoReferenceToInput(t *testing.T) {
	data := []byte(`{"id":"openwop.requirement.x","list":["abc","d\u00e9f"]}`)
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := bundle.Canonical(v)
	for i := range data {
		data[i] = 'z'
	}
	if after, _ := bundle.Canonical(v); string(after) != string(before) {
		t.Errorf("the tree changed with the input: %s, was %s", after, before)
	}
}
