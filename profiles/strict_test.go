package profiles_test

import (
	"strings"
	"testing"

	"github.com/certcut/certcut/profiles"
)

// A registry is read as strictly as a bundle: a case variant or a repeated member
// is refused, not silently merged.
func TestParseStrict(t *testing.T) {
	for text, want := range map[string]string{
		`{"profiles":[{"id":"p","predicate":{"families":["a"],"Families":[]},"floorScenarios":[]}]}`: `unknown member "Families" at /profiles/0/predicate`,
		`{"profiles":[{"id":"p","predicate":{},"floorScenarios":[],"id":"q"}]}`:                      `duplicate member name "id"`,
		`{"profiles":[{"id":"p","predicate":{},"floorScenarios":["a"]}],"extra":true}`:               `unknown member "extra" at the top level`,
	} {
		if _, err := profiles.Parse([]byte(text), "reg.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", text, err, want)
		}
	}
}
