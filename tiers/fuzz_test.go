package tiers_test

import (
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/tiers"
)

// FuzzParse: no input makes the host-tier reader panic; what it accepts is I-JSON,
// every origin it keeps is normalised, and each is found again by Lookup.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"$comment":"x","hosts":[{"name":"a","origins":["HTTPS://A.example:443"],"tier":2,"source":"GOVERNANCE.md"}]}`,
		`{"hosts":[{"name":"a","origins":["https://a.example"],"tier":3,"Tier":1}]}`,
		`{"hosts":[{"name":"a","origins":["http://127.0.0.1:3838"],"tier":1},{"name":"b","origins":["http://127.0.0.1:3838"],"tier":3}]}`,
		`{"hosts":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := tiers.Parse(data)
		if err != nil {
			return
		}
		if _, err := bundle.ParseIJSON(data); err != nil {
			t.Fatalf("accepted a text that is not I-JSON: %v", err)
		}
		for _, h := range file.Hosts {
			if h.Tier < 1 || h.Name == "" || len(h.Origins) == 0 {
				t.Fatalf("accepted an incomplete host %+v", h)
			}
			for _, o := range h.Origins {
				if norm, err := bundle.Origin(o); err != nil || norm != o {
					t.Fatalf("kept origin %q, which normalises to %q (%v)", o, norm, err)
				}
				m, err := file.Lookup(o + "/.well-known/openwop")
				if err != nil || !m.Listed || m.Tier != h.Tier || m.Host != h.Name {
					t.Fatalf("origin %s of %s is not found again: %+v %v", o, h.Name, m, err)
				}
			}
		}
	})
}
