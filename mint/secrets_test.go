package mint_test

import (
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/mint"
)

// A secret used as a member name is reported by its marker, never verbatim, both
// for the name itself and for every place under it.
func TestScrubReportNeverRepeatsASecret(t *testing.T) {
	const secret = "hk_live_member_name_secret"
	v, err := bundle.ParseIJSON([]byte(`{"evidence":{"` + secret + `":{"seen":"` + secret + `"},"a/` + secret + `~":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, where := mint.Scrub(v, []string{secret})
	marker := mint.RedactionMarker(secret)
	want := []string{
		"/evidence/" + marker + " (member name)",
		"/evidence/" + marker + "/seen",
		"/evidence/a~1" + marker + "~0 (member name)",
	}
	if !slices.Equal(where, want) {
		t.Errorf("reported %q, want %q", where, want)
	}
	for _, w := range where {
		if strings.Contains(w, secret) {
			t.Errorf("the report repeats the secret: %s", w)
		}
	}
	text, _ := bundle.Canonical(out)
	if strings.Contains(string(text), secret) {
		t.Error("the secret survived the scrub")
	}
	if got := mint.ScrubText("failed: "+secret+"!", []string{secret}); got != "failed: "+marker+"!" {
		t.Errorf("ScrubText: %s", got)
	}
}

// scrubNaive is the scrub by definition: every secret, in the order given,
// replaced everywhere in the text as it stands.
func scrubNaive(text string, secrets []string) string {
	for _, secret := range secrets {
		text = strings.ReplaceAll(text, secret, mint.RedactionMarker(secret))
	}
	return text
}

// The scrubber looks only for the secrets that contain no other (and not at all in
// a text shorter than the shortest secret); it scrubs exactly what replacing every
// secret in turn does, with secrets inside others, repeated, overlapping, at the
// ends of the text and as long as it.
func TestScrubAgreesWithNaive(t *testing.T) {
	sets := [][]string{
		{"abc"},
		{"abcdef", "bcd", "abc"},
		{"xyzzy-secret-value", "secret", "xyzzy-secret-value"},
		{"aaaa", "aa"},
		{"-----BEGIN-----\nQUJDRA\n-----END-----\n", "-----BEGIN-----\nQUJDRA\n-----END-----", "QUJDRA", mint.Canary},
		{"é€", "€"},
		// Long enough for the sampled test (sixteen bytes and more).
		{mint.Canary},
		{"0123456789abcdef", "0123456789abcdef-and-more-of-it"},
		{mint.Canary, "hk_live_0123456789abcdefghij", "a-secret-of-forty-bytes-and-a-bit-longer!"},
	}
	r := rand.New(rand.NewSource(3))
	for range 20 { // random secrets of 16 to 40 bytes, sharing pieces
		alphabet := "abcdefgh-_.01é"
		var set []string
		for range 1 + r.Intn(4) {
			var sb strings.Builder
			for sb.Len() < 16+r.Intn(25) {
				sb.WriteByte(alphabet[r.Intn(len(alphabet))])
			}
			set = append(set, sb.String())
		}
		sets = append(sets, set)
	}
	for _, secrets := range sets {
		var pieces []string
		for _, s := range secrets {
			pieces = append(pieces, s, s[:len(s)/2], s[len(s)/2:])
		}
		pieces = append(pieces, "", " ", "a", "b", "-", "\n", "plain text around it", "openwop-", "openwop.requirement.")
		for range 5000 {
			var sb strings.Builder
			for range r.Intn(7) {
				sb.WriteString(pieces[r.Intn(len(pieces))])
			}
			text := sb.String()
			if got, want := mint.ScrubText(text, secrets), scrubNaive(text, secrets); got != want {
				t.Fatalf("secrets %q, text %q: got %q, want %q", secrets, text, got, want)
			}
		}
	}
}

func TestBindingAt(t *testing.T) {
	for ptr, want := range map[string]bundle.Binding{
		"/results/requirements/3/detail":          bundle.Signed,
		"/results/requirements/3/evidence/x/0":    bundle.Signed,
		"/discovery/document/implementation":      bundle.Signed,
		"/host/relaxations/0/reason":              bundle.Signed,
		"/host/build/id":                          bundle.Signed,
		"/suite/version":                          bundle.Signed,
		"/claimedProfiles/0/certified":            bundle.Derived,
		"/durability/rung":                        bundle.Derived,
		"/claimedProfiles/1/id":                   bundle.Unsigned,
		"/host/name":                              bundle.Unsigned,
		"/discovery/url":                          bundle.Unsigned,
		"/detail/nonPass/2/reason":                bundle.Unsigned,
		"/generatedAt":                            bundle.Unsigned,
		"/results/requirements/0/x (member name)": bundle.Signed,
		"/extra (member name)":                    bundle.Unsigned,
	} {
		if got := mint.BindingAt(ptr); got != want {
			t.Errorf("BindingAt(%s) = %s, want %s", ptr, got, want)
		}
	}
}

// ScrubUnbound refuses a secret in signed content (rows, the discovery document)
// and scrubs one in a member nothing binds.
func TestScrubUnbound(t *testing.T) {
	const secret = "s3cr3t-given-to-sign"
	b := testkit.Unsigned("https://host.example")
	leak := "dumped " + secret
	b.Results.Requirements[1].Detail = &leak
	_, _, err := mint.ScrubUnbound(b.Value(), []string{secret})
	var inSigned *mint.SecretInSignedError
	if !errors.As(err, &inSigned) || !slices.Equal(inSigned.Pointers, []string{"/results/requirements/1/detail"}) || strings.Contains(err.Error(), secret) {
		t.Errorf("secret in a row: %v", err)
	}

	b = testkit.Unsigned("https://host.example")
	b.Host.Name = "host " + secret
	out, where, err := mint.ScrubUnbound(b.Value(), []string{secret})
	if err != nil || !slices.Equal(where, []string{"/host/name"}) {
		t.Fatalf("secret in host.name: %v %v", where, err)
	}
	if name, _ := out.Path("host", "name"); strings.Contains(string(must(bundle.Canonical(name))), secret) {
		t.Error("host.name not scrubbed")
	}
	// Nothing found: the value is returned as it is.
	if _, where, err := mint.ScrubUnbound(testkit.Unsigned("https://host.example").Value(), []string{secret}); err != nil || len(where) != 0 {
		t.Errorf("clean bundle: %v %v", where, err)
	}
}

// A number whose written form an I-JSON reader refuses (1e17 is written
// 100000000000000000) is an input error naming the member, not a bundle.
func TestEncodeRefusesUnsafeNumbers(t *testing.T) {
	s := hostSigner(t)
	in := input(t, s)
	doc := in.Discovery.Value.With("limits", bundle.ObjectValue(bundle.Member{Name: "maxBytes", Value: bundle.NumberValue(1e17)}))
	d, err := discovery.FromValue(doc, in.Discovery.URL)
	if err != nil {
		t.Fatal(err)
	}
	in.Discovery = d
	asm, err := mint.Assemble(in)
	if err != nil {
		t.Fatal(err)
	}
	_, err = mint.Encode(asm.Bundle)
	var ie *mint.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "/discovery/document/limits/maxBytes") || !strings.Contains(err.Error(), "the discovery document") {
		t.Errorf("1e17: %v", err)
	}
	// Inside an array, among numbers that read back.
	doc = in.Discovery.Value.With("limits", bundle.ObjectValue(bundle.Member{Name: "sizes", Value: bundle.ArrayValue(bundle.NumberValue(1.5), bundle.IntValue(bundle.MaxSafeInteger), bundle.NumberValue(-1e17))}))
	in.Discovery, _ = discovery.FromValue(doc, in.Discovery.URL)
	if asm, err = mint.Assemble(in); err == nil {
		_, err = mint.Encode(asm.Bundle)
	}
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "/discovery/document/limits/sizes/2 ") {
		t.Errorf("-1e17 in an array: %v", err)
	}
	// 1e21 is written 1e+21, which reads back: accepted.
	doc = in.Discovery.Value.With("limits", bundle.ObjectValue(bundle.Member{Name: "maxBytes", Value: bundle.NumberValue(1e21)}))
	in.Discovery, _ = discovery.FromValue(doc, in.Discovery.URL)
	if asm, err = mint.Assemble(in); err == nil {
		_, err = mint.Encode(asm.Bundle)
	}
	if err != nil {
		t.Errorf("1e21: %v", err)
	}
}

func TestWriteRejected(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.json")
	path, err := mint.WriteRejected(out, []byte("{}\n"))
	if err != nil || path != out+".rejected.json" {
		t.Fatalf("%s %v", path, err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Error("OUT was written")
	}
	if _, err := mint.WriteRejected(out, []byte("{}\n")); err != nil {
		t.Errorf("an older rejected file is replaced: %v", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Every form of a PEM key is a secret: whole, trimmed, each body line, the body joined.
func TestPEMSecrets(t *testing.T) {
	pemText := "-----BEGIN PRIVATE KEY-----\nAAAA\nBBBB\n-----END PRIVATE KEY-----\n"
	got := mint.PEMSecrets([]byte(pemText))
	for _, want := range []string{pemText, strings.TrimSpace(pemText), "AAAA", "BBBB", "AAAABBBB"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q missing from %q", want, got)
		}
	}
	if mint.PEMSecrets(nil) != nil {
		t.Error("no PEM, no secrets")
	}
}
