package validate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/schemas/validate"
)

// both checks doc with the JSON Schema validator and with bundle.CheckSchema, the
// schema's checks in Go that verify runs, fails the test when they differ in any
// problem (pointer or message), and returns the validator's.
func both(t testing.TB, doc bundle.Value) []bundle.Problem {
	t.Helper()
	want := validate.Bundle().WithoutShortcut().Validate(doc)
	got := bundle.CheckSchema(doc)
	if !reflect.DeepEqual(got, want) {
		raw, _ := bundle.Canonical(doc)
		if len(raw) > 2000 {
			raw = append(raw[:2000], "…"...)
		}
		t.Errorf("bundle.CheckSchema and the validator differ on %s\nvalidator:   %q\nCheckSchema: %q", raw, want, got)
	}
	return want
}

// replacements are the values every member and item is replaced with in turn:
// each JSON type, each boundary the schema draws (minimum 0 and 1, integer or not,
// the safe-integer edge, enum and const members, each pattern's edges, formats),
// and values long enough to be shown shortened.
var replacements = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `2`, `3`, `-1`, `1.5`, `-0.5`, `1e300`, `-1e300`, `9.007199254740993e15`, `4.0`, `1000000`,
	`""`, `"x"`, `"3"`, `"é"`, `"\u0000"`, `"a\n"`,
	`"independent"`, `"self"`, `"steward"`, `"ed25519"`, `"executed-pass"`, `"skipped"`, `"commit"`, `"colocated-companion"`,
	`"session"`, `"durable-single-instance"`, `"@openwop/openwop-conformance"`,
	`"openwop.requirement.x"`, `"openwop.it.v2-eos-clock.x"`, `"openwop.it.v2-eos-clock-skew.x"`, `"openwop.family.X"`, `"openwop.floor."`,
	`"openwop-core"`, `"openwop-"`, `"openwop-A"`, `"a"`, `"aB.c_d-e"`, `"A"`,
	`"` + strings.Repeat("a", 64) + `"`, `"` + strings.Repeat("a", 65) + `"`, `"` + strings.Repeat("0", 64) + `"`, `"` + strings.Repeat("F", 64) + `"`,
	`"` + strings.Repeat("A", 86) + `"`, `"` + strings.Repeat("A", 85) + `"`, `"` + strings.Repeat("k", 128) + `"`, `"` + strings.Repeat("k", 129) + `"`,
	`"` + strings.Repeat("é", 70) + `"`,
	`"2026-09-25T15:06:19.558Z"`, `"2026-09-25t15:06:19+02:00"`, `"2026-13-25T15:06:19Z"`, `"2026-09-25T23:59:60Z"`, `"2026-09-25T15:59:60Z"`, `"2026-09-25 15:06:19Z"`,
	`"https://host.example/.well-known/openwop"`, `"relative/path"`, `"http://[::1]:80/"`, `"http://::1/"`, `"http://[fe80::1%25en0]/"`, `"%zz"`,
	`[]`, `[1]`, `["a"]`, `[null,null]`, `[{},{}]`, `["witnessSha256","host.build","suite.version","discovery.sha256"]`,
	`[` + strings.Repeat(`"abcdefghij",`, 9) + `"z"]`,
	`{}`, `{"a":1}`, `{"evidenceTier":"independent"}`, `{"class":"a","boundMs":1,"observedMs":2}`, `{"name":"a","ms":1}`,
	`{"` + strings.Repeat("k", 90) + `":1}`,
}

func parse(t testing.TB, text string) bundle.Value {
	t.Helper()
	v, err := bundle.ParseIJSON([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// mutations calls f with every document made from root by one change at one
// place: each replacement at each member and item, each member removed, an
// unknown member added to each object, each array emptied and its first item
// doubled. Paths under skip are left alone (the discovery document, most of a
// bundle, is open: one change inside it is checked, not thousands).
func mutations(t testing.TB, root bundle.Value, values []bundle.Value, f func(what string, doc bundle.Value)) {
	var walk func(v bundle.Value, path string, rebuild func(bundle.Value) bundle.Value)
	walk = func(v bundle.Value, path string, rebuild func(bundle.Value) bundle.Value) {
		if path != "" {
			for i, r := range values {
				f(fmt.Sprintf("%s = %s", path, replacements[i]), rebuild(r))
			}
		}
		switch v.Kind() {
		case bundle.Object:
			f(path+" + extra", rebuild(v.With("extra", bundle.IntValue(1))))
			if path == "/discovery/document" {
				return
			}
			for _, m := range v.Members() {
				f(path+"/"+m.Name+" removed", rebuild(v.Without(m.Name)))
				name := m.Name
				walk(m.Value, path+"/"+name, func(nv bundle.Value) bundle.Value { return rebuild(v.With(name, nv)) })
			}
		case bundle.Array:
			items := v.Items()
			f(path+" emptied", rebuild(bundle.ArrayValue()))
			if len(items) > 0 {
				f(path+" first doubled", rebuild(bundle.ArrayValue(append([]bundle.Value{items[0]}, items...)...)))
			}
			for i := range items {
				i := i
				walk(items[i], path+"/"+strconv.Itoa(i), func(nv bundle.Value) bundle.Value {
					c := slices.Clone(items)
					c[i] = nv
					return rebuild(bundle.ArrayValue(c...))
				})
			}
		}
	}
	walk(root, "", func(v bundle.Value) bundle.Value { return v })
}

// TestCheckSchemaAgrees is the proof that verify's schema checks are the schema's:
// bundle.CheckSchema and the JSON Schema validator report the same problems,
// pointer and message, on every corpus bundle, on the testkit's bundles, and on
// every one-change mutation of a signed testkit bundle and of the reference
// corpus bundle's shape (its first rows), plus the conditionals' combinations.
func TestCheckSchemaAgrees(t *testing.T) {
	values := make([]bundle.Value, len(replacements))
	for i, r := range replacements {
		values[i] = parse(t, r)
	}
	n := 0
	check := func(what string, doc bundle.Value) {
		t.Helper()
		n++
		if ps := both(t, doc); t.Failed() {
			t.Fatalf("after %d documents, at %s (validator: %v)", n, what, ps)
		}
	}
	mutations(t, fresh(t), values, check)
	for _, b := range testkit.SpecRepoBundles() {
		check("spec-repo bundle", parse(t, string(testkit.Encode(b))))
	}

	// Conditionals: every combination of the three totals and the tiers.
	for _, fail := range []string{`0`, `1`, `"1"`, `null`} {
		for _, skip := range []string{`0`, `2`} {
			for _, tier := range []string{`"self"`, `"independent"`, `5`} {
				doc := set(t, del(t, fresh(t), "detail"), "results/totals/executedFail", fail)
				doc = set(t, doc, "results/totals/skipped", skip)
				doc = set(t, doc, "claimedProfiles/0/evidenceTier", tier)
				check("conditionals", doc)
				check("conditionals without totals", del(t, doc, "results/totals"))
				check("conditionals without claims", del(t, doc, "claimedProfiles"))
			}
		}
	}

	dir := testkit.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := bundle.ParseIJSON(data)
		if err != nil || doc.Kind() != bundle.Object || !doc.Has("bundleVersion") {
			continue // host-tiers.json
		}
		check(filepath.Base(f), doc)
		if filepath.Base(f) != "openwop-host-v2-reference.json" {
			continue
		}
		// The reference bundle, cut to its first rows so that the mutations stay
		// few, mutated everywhere but inside the discovery document.
		rows, _ := doc.Path("results", "requirements")
		res, _ := doc.Get("results")
		small := doc.With("results", res.With("requirements", bundle.ArrayValue(rows.Items()[:4]...)))
		mutations(t, small, values, check)
	}
	t.Logf("%d documents judged alike", n)
}

// FuzzCheckSchema feeds any JSON text to both; the seeds are the testkit bundle
// and a few of its mutations, which the fuzzer changes byte by byte.
func FuzzCheckSchema(f *testing.F) {
	base := testkit.Encode(testkit.Signed("https://host.example"))
	f.Add(base)
	f.Add([]byte(strings.Replace(string(base), `"self"`, `"independent"`, 1)))
	f.Add([]byte(strings.Replace(string(base), `"executed-pass"`, `"passed"`, 1)))
	f.Add([]byte(`{"bundleVersion":"3","results":{"totals":{"skipped":1}},"claimedProfiles":[1,1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := bundle.ParseIJSON(data)
		if err != nil {
			return
		}
		both(t, doc)
	})
}

// TestPatternsAgreeWithECMA: the schema's patterns written as Go functions
// (bundle.IsKeyID and the rest) match exactly the strings the ECMA-262 engine
// matches, on each pattern's edges and the corpus row ids.
func TestPatternsAgreeWithECMA(t *testing.T) {
	cases := []string{"", "a", "A", "0", "-", ".", "~", "_", "é", "a\n", "\na", "a b", "a/b", "a.b~c_d-e",
		strings.Repeat("k", 63), strings.Repeat("k", 64), strings.Repeat("k", 65), strings.Repeat("k", 128), strings.Repeat("k", 129),
		strings.Repeat("A", 85), strings.Repeat("A", 86), strings.Repeat("A", 87), strings.Repeat("_", 86), strings.Repeat("+", 86),
		strings.Repeat("0", 64), strings.Repeat("f", 64), strings.Repeat("F", 64), strings.Repeat("g", 64), strings.Repeat("0", 63),
		"openwop-", "openwop-a", "openwop-core-standard", "openwop-A", "openwop-a_b", "openwop-a\n", "xopenwop-a",
		"openwop.", "openwop.requirement.", "openwop.requirement.a", "openwop.requirement.0", "openwop.requirement.-", "openwop.requirement.A",
		"openwop.it.v2-eos-clock.x", "openwop.it.v2-eos-clock", "openwop.it.v2-eos-clock.", "openwop.it.v2-eos-clockx.a", "openwop.it.x",
		"openwop.it.it.x", "openwop.family.a", "openwop.profile.family.x", "openwop.floor.é", "openwop.scenario.z\n", "openwop.gap.1",
		"openwop.it.workload-identity-profile.a", "openwop.it.artifact-schema-compile-bounded.z", "openwop.it.semantic-digest-v2.0",
		"a" + strings.Repeat(".", 63), "z-", "aB9.-_", "a~"}
	dir := testkit.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		doc, err := bundle.ParseIJSON(data)
		if err != nil {
			continue
		}
		rows, _ := doc.Path("results", "requirements")
		for _, r := range rows.Items() {
			id, _ := r.Get("id")
			s, _ := id.Str()
			cases = append(cases, s, strings.Replace(s, "openwop.requirement.", "openwop.it.", 1))
		}
	}
	for _, p := range []struct {
		pattern string
		match   func(string) bool
	}{
		{bundle.KeyIDPattern, bundle.IsKeyID},
		{bundle.RecoveryNamePattern, bundle.IsRecoveryName},
		{bundle.RequirementIDPattern, bundle.IsRequirementID},
	} {
		re, err := validate.ECMARegexp(p.pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range cases {
			if got, want := p.match(s), re.MatchString(s); got != want {
				t.Errorf("%.40s… on %q: Go says %v, ECMA-262 says %v", p.pattern, s, got, want)
			}
		}
	}
}

// uniqueItems over long arrays, where CheckSchema compares canonical forms
// through a map: the same first pair as the validator, wherever the twins are,
// and whatever their member order.
func TestCheckSchemaUniqueItemsLong(t *testing.T) {
	base := fresh(t)
	profile := func(i int) string {
		return fmt.Sprintf(`{"id":"openwop-p%d","evidenceTier":"self","witnessCount":%d,"certified":false}`, i, i%3)
	}
	for _, n := range []int{21, 40, 300} {
		for _, twin := range [][2]int{{0, 1}, {0, n - 1}, {5, 20}, {n - 2, n - 1}, {-1, -1}} {
			items := make([]string, n)
			for i := range items {
				items[i] = profile(i)
			}
			if twin[0] >= 0 {
				// the same value, members in another order
				items[twin[1]] = fmt.Sprintf(`{"certified":false,"witnessCount":%d,"evidenceTier":"self","id":"openwop-p%d"}`, twin[0]%3, twin[0])
			}
			both(t, set(t, base, "claimedProfiles", "["+strings.Join(items, ",")+"]"))
		}
	}
	// numbers equal as values, written differently
	both(t, set(t, base, "claimedProfiles", `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,1.0e0]`))
	both(t, set(t, base, "claimedProfiles", `[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,-0]`))
}
