package validate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/schemas"
	"github.com/certcut/certcut/schemas/validate"
)

func fresh(t *testing.T) bundle.Value {
	t.Helper()
	v, err := bundle.ParseIJSON(testkit.Encode(testkit.Signed("https://host.example")))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setAt replaces the value at a slash path; a nil val deletes the member.
func setAt(t *testing.T, cur bundle.Value, path string, val *bundle.Value) bundle.Value {
	t.Helper()
	parts := strings.Split(path, "/")
	head := parts[0]
	rest := strings.Join(parts[1:], "/")
	if cur.Kind() == bundle.Array {
		i, err := strconv.Atoi(head)
		if err != nil {
			t.Fatalf("bad index %q", head)
		}
		items := slices.Clone(cur.Items())
		if len(parts) == 1 {
			items[i] = *val
		} else {
			items[i] = setAt(t, items[i], rest, val)
		}
		return bundle.ArrayValue(items...)
	}
	if len(parts) == 1 {
		if val == nil {
			return cur.Without(head)
		}
		return cur.With(head, *val)
	}
	child, ok := cur.Get(head)
	if !ok {
		t.Fatalf("no member %s", head)
	}
	return cur.With(head, setAt(t, child, rest, val))
}

func set(t *testing.T, root bundle.Value, path, jsonText string) bundle.Value {
	t.Helper()
	v, err := bundle.ParseIJSON([]byte(jsonText))
	if err != nil {
		t.Fatal(err)
	}
	return setAt(t, root, path, &v)
}

func del(t *testing.T, root bundle.Value, path string) bundle.Value {
	return setAt(t, root, path, nil)
}

func TestEveryEmbeddedSchemaCompiles(t *testing.T) {
	if got := schemas.Names(); !slices.Equal(got, []string{"bundle", "key", "keyring", "gate"}) {
		t.Errorf("names %v", got)
	}
	for _, e := range schemas.List() {
		if _, err := validate.Compile(e.Name); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
		if e.Title == "" {
			t.Errorf("%s has no title", e.Name)
		}
	}
	if _, err := schemas.Get("keyring-typo"); err == nil || !strings.Contains(err.Error(), "the schemas are bundle, key") {
		t.Errorf("unknown name: %v", err)
	}
}

func TestFreshBundleValidates(t *testing.T) {
	if ps := validate.Bundle().Validate(fresh(t)); len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
}

// Every real corpus bundle is valid under the generated schema.
func TestCorpusValidates(t *testing.T) {
	dir := testkit.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	if len(files) == 0 {
		t.Fatal("no corpus bundles")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := bundle.ParseIJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			if ps := validate.Bundle().Validate(v); len(ps) > 0 {
				t.Fatalf("problems: %v", ps)
			}
		})
	}
}

const coherenceID = "openwop.it.v2-eos-clock.ticks-monotonically"

func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(t *testing.T, r bundle.Value) bundle.Value
		want []bundle.Problem // Message is matched as a substring
	}{
		{"extra root member", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "extra", `true`) },
			[]bundle.Problem{{Pointer: "/extra", Message: "member not allowed: the object is closed"}}},
		{"extra nested member", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "host/build/digest", `"x"`) },
			[]bundle.Problem{{Pointer: "/host/build/digest", Message: "member not allowed"}}},
		{"bad result enum", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "results/requirements/2/result", `"passed"`)
		}, []bundle.Problem{{Pointer: "/results/requirements/2/result", Message: `"passed" is not allowed: value must be one of "executed-pass", "executed-fail", "skipped", "inapplicable", "blocked"`}}},
		{"bad build kind", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "host/build/kind", `"tarball"`) },
			[]bundle.Problem{{Pointer: "/host/build/kind", Message: `"tarball" is not allowed`}}},
		{"coherence-file row id", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "results/requirements/0/id", strconv.Quote(coherenceID))
		}, []bundle.Problem{{Pointer: "/results/requirements/0/id", Message: strconv.Quote(coherenceID) + " does not match the pattern of this member"}}},
		{"unknown id area", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "results/requirements/0/id", `"openwop.gap.0197.1"`)
		}, []bundle.Problem{{Pointer: "/results/requirements/0/id", Message: "does not match"}}},
		{"signature removed", func(t *testing.T, r bundle.Value) bundle.Value { return del(t, r, "signature") },
			[]bundle.Problem{{Pointer: "/signature", Message: "required member is missing", Missing: true}}},
		{"signature too short", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "signature/sig", `"AAAA"`) },
			[]bundle.Problem{{Pointer: "/signature/sig", Message: `"AAAA" does not match the pattern ^[A-Za-z0-9_-]{86}$`}}},
		{"signature.over reordered", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "signature/over", `["host.build","witnessSha256","suite.version","discovery.sha256"]`)
		}, []bundle.Problem{{Pointer: "/signature/over", Message: `must be exactly ["witnessSha256","host.build","suite.version","discovery.sha256"]`}}},
		{"alg", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "signature/alg", `"ed448"`) },
			[]bundle.Problem{{Pointer: "/signature/alg", Message: `must be exactly "ed25519"`}}},
		{"bundleVersion a number", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "bundleVersion", `3`) },
			[]bundle.Problem{{Pointer: "/bundleVersion", Message: `must be exactly "3"`}}},
		{"independent without verifier signature", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "claimedProfiles/0/evidenceTier", `"independent"`)
		}, []bundle.Problem{{Pointer: "/verifierSignature", Message: "required member is missing (schema conditional /allOf/1/then/required)", Missing: true}}},
		{"skipped without detail", func(t *testing.T, r bundle.Value) bundle.Value {
			return del(t, set(t, r, "results/totals/skipped", `1`), "detail")
		}, []bundle.Problem{{Pointer: "/detail", Message: "required member is missing (schema conditional /allOf/0/then/required)", Missing: true}}},
		{"verifier signature with over", func(t *testing.T, r bundle.Value) bundle.Value {
			sig, _ := r.Get("signature")
			return setAt(t, r, "verifierSignature", &sig)
		}, []bundle.Problem{{Pointer: "/verifierSignature/over", Message: "member not allowed"}}},
		{"assertionCount 0", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "assertionCount", `0`) },
			[]bundle.Problem{{Pointer: "/assertionCount", Message: "minimum"}}},
		{"assertions a string", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "results/requirements/1/assertions", `"4"`)
		}, []bundle.Problem{{Pointer: "/results/requirements/1/assertions", Message: "must be integer, is string"}}},
		{"assertions a fraction", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "results/requirements/1/assertions", `4.5`)
		}, []bundle.Problem{{Pointer: "/results/requirements/1/assertions", Message: "must be integer, is number"}}},
		{"generatedAt not a date-time", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "generatedAt", `"yesterday"`) },
			[]bundle.Problem{{Pointer: "/generatedAt", Message: `"yesterday" is not a valid date-time`}}},
		{"empty evidence", func(t *testing.T, r bundle.Value) bundle.Value {
			return set(t, r, "results/requirements/0/evidence", `{}`)
		}, []bundle.Problem{{Pointer: "/results/requirements/0/evidence", Message: "minProperties"}}},
		{"no rows", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "results/requirements", `[]`) },
			[]bundle.Problem{{Pointer: "/results/requirements", Message: "minItems"}}},
		{"profile claimed twice", func(t *testing.T, r bundle.Value) bundle.Value {
			p, _ := r.Path("claimedProfiles")
			return setAt(t, r, "claimedProfiles", ptr(bundle.ArrayValue(p.Items()[0], p.Items()[0])))
		}, []bundle.Problem{{Pointer: "/claimedProfiles", Message: "items at 0 and 1 are equal"}}},
		{"deployment unknown", func(t *testing.T, r bundle.Value) bundle.Value { return set(t, r, "host/deployment", `"sidecar"`) },
			[]bundle.Problem{{Pointer: "/host/deployment", Message: `"sidecar" is not allowed: value must be "colocated-companion"`}}},
		{"two problems, sorted with indexes as numbers", func(t *testing.T, r bundle.Value) bundle.Value {
			r = set(t, r, "results/requirements/10/result", `"x"`)
			return set(t, r, "results/requirements/2/result", `"y"`)
		}, []bundle.Problem{
			{Pointer: "/results/requirements/2/result", Message: `"y" is not allowed`},
			{Pointer: "/results/requirements/10/result", Message: `"x" is not allowed`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := both(t, tc.mut(t, fresh(t)))
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				if got[i].Pointer != w.Pointer || !strings.Contains(got[i].Message, w.Message) {
					t.Errorf("problem %d: %q: %q, want %q: …%q…", i, got[i].Pointer, got[i].Message, w.Pointer, w.Message)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// The lookahead refuses only ids minted from a coherence file: a file whose name
// merely starts like one is a host scenario.
func TestRowIDLookahead(t *testing.T) {
	for id, valid := range map[string]bool{
		"openwop.it.v2-eos-clock.x":                         false,
		"openwop.it.spec-corpus-validity.a":                 false,
		"openwop.it.v2-eos-clock-skew.x":                    true,
		"openwop.it.v2-a2a-client-error-details.shape":      true,
		"openwop.requirement.0211.a2a-error-data-shape":     true,
		"openwop.scenario.v2-eos-clock":                     true, // only the it. area is refused
		"openwop.floor.v2-era-key":                          true,
		"openwop.profile.family.webhooks":                   true,
		"openwop.family.webhooks":                           true,
		"openwop.Requirement.0211.x":                        false,
		"openwop.requirement.-bad":                          false,
		"xopenwop.requirement.0211.x":                       false,
		"openwop.it.rfc-lifecycle-coherence.counts-match~2": false,
	} {
		r := set(t, fresh(t), "results/requirements/0/id", strconv.Quote(id))
		ps := both(t, r)
		if (len(ps) == 0) != valid {
			t.Errorf("%s: problems %v, want valid=%v", id, ps, valid)
		}
	}
}

// Validation does not depend on member order or run: the output is stable.
func TestProblemsStable(t *testing.T) {
	r := fresh(t)
	for _, p := range []string{"results/requirements/3/result", "results/requirements/1/result", "host/build/kind", "signature/alg"} {
		r = set(t, r, p, `"nope"`)
	}
	r = set(t, r, "zzz", `1`)
	r = set(t, r, "aaa", `1`)
	first := both(t, r)
	for range 20 {
		if got := both(t, r); !reflect.DeepEqual(got, first) {
			t.Fatalf("unstable:\n%v\n%v", first, got)
		}
	}
	var ptrs []string
	for _, p := range first {
		ptrs = append(ptrs, p.Pointer)
	}
	want := []string{"/aaa", "/host/build/kind", "/results/requirements/1/result", "/results/requirements/3/result", "/signature/alg", "/zzz"}
	if !slices.Equal(ptrs, want) {
		t.Errorf("pointers %v, want %v", ptrs, want)
	}
}

// Every problem the decoder finds (a wrong type, a missing member, an unknown
// result) is also a schema failure at the same pointer or one enclosing it (a
// number in signature.over fails the const of the whole array), so the verifier can take
// the validator as the one source of schema rejections without losing any.
func TestDecoderProblemsAreSchemaProblems(t *testing.T) {
	base := fresh(t)
	wrong := map[bundle.Kind]string{
		bundle.String: `7`, bundle.Number: `"7"`, bundle.Bool: `"true"`,
		bundle.Array: `{"a":1}`, bundle.Object: `[1]`, bundle.Null: `"x"`,
	}
	checked := 0
	var walk func(v bundle.Value, path string)
	walk = func(v bundle.Value, path string) {
		if path == "discovery/document" {
			return // open: anything goes inside
		}
		if path != "" {
			for _, mut := range []func() bundle.Value{
				func() bundle.Value { return set(t, base, path, wrong[v.Kind()]) },
				func() bundle.Value {
					if i := strings.LastIndex(path, "/"); i >= 0 {
						if _, err := strconv.Atoi(path[i+1:]); err == nil {
							return base // array items are not members
						}
					}
					return del(t, base, path)
				},
			} {
				doc := mut()
				_, decoded := bundle.Decode(doc)
				validated := validate.Bundle().Validate(doc)
				for _, p := range decoded {
					if !slices.ContainsFunc(validated, func(q bundle.Problem) bool {
						return q.Pointer == p.Pointer || strings.HasPrefix(p.Pointer, q.Pointer+"/")
					}) {
						t.Errorf("%s: the decoder reports %v, the schema does not (it reports %v)", path, p, validated)
					}
				}
				checked++
			}
		}
		switch v.Kind() {
		case bundle.Object:
			for _, m := range v.Members() {
				walk(m.Value, strings.TrimPrefix(path+"/"+m.Name, "/"))
			}
		case bundle.Array:
			for i, item := range v.Items() {
				walk(item, path+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(base, "")
	if checked < 100 {
		t.Errorf("only %d mutations checked", checked)
	}
}

// The generated bundle schema states the public OpenWOP schema's facts: after
// dropping prose (description, title, $comment, $id) and inlining OpenWOP's
// ids.schema.json keyId, the two are equal but for host.deployment, which the
// newer public revision adds (RFC 0216, suite 2.40.2) and the stored one lacks.
func TestAgreesWithOpenWOP(t *testing.T) {
	dir := testkit.CorpusDir(t)
	theirs := readJSON(t, filepath.Join(dir, "schemas", "v2", "certification-bundle.schema.json"))
	ids := readJSON(t, filepath.Join(dir, "schemas", "v2", "ids.schema.json"))
	keyID := ids.(map[string]any)["$defs"].(map[string]any)["keyId"]
	data, err := schemas.Get("bundle")
	if err != nil {
		t.Fatal(err)
	}
	var ours any
	if err := json.Unmarshal(data, &ours); err != nil {
		t.Fatal(err)
	}
	host := ours.(map[string]any)["properties"].(map[string]any)["host"].(map[string]any)["properties"].(map[string]any)
	if _, ok := host["deployment"]; !ok {
		t.Fatal("our schema lacks host.deployment")
	}
	delete(host, "deployment")

	normOurs := normalize(ours, nil)
	normTheirs := normalize(theirs, func(ref string) any {
		if ref == "ids.schema.json#/$defs/keyId" {
			return normalize(keyID, nil)
		}
		t.Fatalf("unexpected $ref %s", ref)
		return nil
	})
	if !reflect.DeepEqual(normOurs, normTheirs) {
		a, _ := json.MarshalIndent(normOurs, "", " ")
		b, _ := json.MarshalIndent(normTheirs, "", " ")
		t.Errorf("the generated schema and OpenWOP's differ:\nours:   %s\ntheirs: %s", firstDiff(string(a), string(b)), firstDiff(string(b), string(a)))
	}
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// normalize drops prose and annotations nobody validates with, and replaces a
// {"$ref": r} member set by resolve(r), merged with the remaining keywords.
func normalize(v any, resolve func(string) any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch {
			case k == "description" || k == "title" || k == "$comment" || k == "$id" || k == "$schema" || strings.HasPrefix(k, "x-"):
			case k == "$ref" && resolve != nil:
				for rk, rv := range resolve(x.(string)).(map[string]any) {
					out[rk] = rv
				}
			default:
				out[k] = normalize(x, resolve)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x, resolve)
		}
		return out
	}
	return v
}

func firstDiff(a, b string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			lo := max(0, i-200)
			return a[lo:min(len(a), i+100)]
		}
	}
	return "(one is a prefix of the other)"
}

// The open-member shortcut applies to discovery.document only, and never changes
// a result: every corpus bundle, and documents broken in and around the open
// member, validate the same with and without it.
func TestOpenShortcutChangesNothing(t *testing.T) {
	v := validate.Bundle()
	if got := v.OpenPaths(); !reflect.DeepEqual(got, [][]string{{"discovery", "document"}}) {
		t.Fatalf("open paths %v", got)
	}
	full := v.WithoutShortcut()
	docs := map[string]bundle.Value{}
	f := fresh(t)
	docs["fresh"] = f
	docs["document a string"] = set(t, f, "discovery/document", `"x"`)
	docs["document null"] = set(t, f, "discovery/document", `null`)
	docs["document an array"] = set(t, f, "discovery/document", `[1]`)
	docs["document with odd members"] = set(t, f, "discovery/document/x", `{"deep":[1,{"a":null}]}`)
	docs["no document"] = del(t, f, "discovery/document")
	docs["discovery a string"] = set(t, f, "discovery", `"x"`)
	docs["discovery missing"] = del(t, f, "discovery")
	docs["root an array"] = bundle.ArrayValue()
	files, _ := filepath.Glob(filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop", "evidence", "*", "*.json"))
	for _, file := range files { // the corpus, when it is there
		data, _ := os.ReadFile(file)
		d, err := bundle.ParseIJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(file)] = d
	}
	for name, d := range docs {
		a, b := v.Validate(d), full.Validate(d)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: with the shortcut %v, without %v", name, a, b)
		}
	}
}
