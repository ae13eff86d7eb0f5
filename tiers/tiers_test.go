package tiers_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/tiers"
)

func TestParse(t *testing.T) {
	f, err := tiers.Parse([]byte(`{"$comment":"x","hosts":[{"name":"a","origins":["HTTPS://A.example:443"],"tier":2,"source":"GOVERNANCE.md"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Lookup("https://a.example/.well-known/openwop")
	if err != nil || !m.Listed || m.Tier != 2 || m.Host != "a" || m.String() != "tier 2 (a)" {
		t.Errorf("lookup %+v %v", m, err)
	}
	m, _ = f.Lookup("https://b.example/.well-known/openwop")
	if m.Listed || m.Origin != "https://b.example" || !strings.Contains(m.String(), "never qualifies") {
		t.Errorf("unlisted %+v", m)
	}
	// Read as strictly as a bundle: a second spelling of a member cannot override
	// the one a reviewer reads, and an unknown member is refused, with its place.
	for bad, want := range map[string]string{
		`{"hosts":[{"name":"a","origins":["https://a.example"],"tier":3,"Tier":1}]}`: `line 1, column 64: unknown member "Tier" at /hosts/0`,
		`{"hosts":[{"name":"a","origins":["https://a.example"],"tier":3,"tier":1}]}`: `duplicate member name "tier"`,
		`{"hosts":[],"later":1}`: `unknown member "later" at the top level`,
		`{"hosts":[{"name":"a","origins":["https://a.example"],"tier":"1"}]}`:                                                     `/hosts/0/tier is a string, but must be an integer`,
		`{"hosts":[{"name":"a","origins":["https://a.example"],"tier":1},{"name":"b","origins":["https://A.example"],"tier":3}]}`: `origin https://a.example is already listed for a`,
	} {
		if _, err := tiers.Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", bad, err, want)
		}
	}
	for _, bad := range []string{`[]`, `{}`, `{"hosts":[{"name":"a","origins":[],"tier":1}]}`, `{"hosts":[{"name":"a","origins":["x"],"tier":1}]}`, `{"hosts":[{"name":"a","origins":["https://a"],"tier":0}]}`} {
		if _, err := tiers.Parse([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// The corpus file places the three hosts of spec §8.4; api.openwop.dev is not listed.
func TestCorpusTiers(t *testing.T) {
	f, err := tiers.Load(filepath.Join(testkit.CorpusDir(t), "evidence", "host-tiers.json"))
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]string{
		"https://api.myndhyve.ai/.well-known/openwop": "tier 2 (myndhyve)",
		"https://app.openwop.dev/.well-known/openwop": "tier 1 (openwop-app)",
		"http://127.0.0.1:3838/.well-known/openwop":   "tier 1 (openwop-host-v2-reference)",
		"https://api.openwop.dev/.well-known/openwop": "not listed in host-tiers.json: unknown, never qualifies",
		"http://127.0.0.1:18099/.well-known/openwop":  "not listed in host-tiers.json: unknown, never qualifies",
	} {
		m, err := f.Lookup(url)
		if err != nil || m.String() != want {
			t.Errorf("%s: %s %v, want %s", url, m, err, want)
		}
	}
}
