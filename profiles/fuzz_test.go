package profiles_test

import (
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/profiles"
)

// FuzzParse: no input makes the registry reader panic; what it accepts is I-JSON
// with distinct, non-empty profile ids, and answers RelaxedBy and Derived without
// failing.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"profiles":[{"id":"openwop-x","predicate":{"families":["webhooks"]},"floorScenarios":["a"]}]}`))
	f.Add([]byte(`{"$comment":"c","generatedFrom":"g","profiles":[{"id":"p","summary":"s","note":"n","predicate":{},"floorScenarios":[],"requirementIds":["r"]}]}`))
	f.Add([]byte(`{"profiles":[{"id":"p","predicate":{},"floorScenarios":[],"Id":"q"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := profiles.Parse(data, "fuzz")
		if err != nil {
			return
		}
		if _, err := bundle.ParseIJSON(data); err != nil {
			t.Fatalf("accepted a text that is not I-JSON: %v", err)
		}
		seen := map[string]bool{}
		ids := []string{}
		for _, p := range r.Profiles {
			if p.ID == "" || seen[p.ID] {
				t.Fatalf("accepted an empty or repeated id %q", p.ID)
			}
			seen[p.ID] = true
			ids = append(ids, p.ID)
		}
		r.RelaxedBy([]string{"webhooks.egress-guard", "", ".x"}, ids)
		r.Derived(bundle.ObjectValue())
	})
}
