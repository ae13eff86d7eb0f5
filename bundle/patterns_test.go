package bundle_test

import (
	"regexp"
	"testing"

	"github.com/certcut/certcut/bundle"
)

// schemaIDPattern is the schema's requirement id pattern (without its negative
// lookahead for corpus-coherence files), the oracle HasRequirementIDForm must
// agree with.
var schemaIDPattern = regexp.MustCompile(`^openwop\.(requirement|it|scenario|floor|profile|family)\.[a-z0-9]`)

var idCases = []struct {
	id   string
	want bool
}{
	{"openwop.requirement.a", true},
	{"openwop.it.7-x", true},
	{"openwop.scenario.foo.bar", true},
	{"openwop.floor.v2-version-header-honored", true},
	{"openwop.profile.z", true},
	{"openwop.family.Abc", false}, // upper case after the area
	{"openwop.family.", false},
	{"openwop.family", false},
	{"openwop.families.a", false},
	{"openwop.it.-a", false},
	{"openwop..a", false},
	{"openwop.it..a", false},
	{"openwop.it.é", false},
	{"Openwop.it.a", false},
	{" openwop.it.a", false},
	{"openwop.requirementx.a", false},
	{"openwop.floor.a\n", true}, // anything may follow the first character
	{"", false},
}

func TestRequirementIDFormAgreesWithTheSchemaPattern(t *testing.T) {
	for _, tc := range idCases {
		if got := bundle.HasRequirementIDForm(tc.id); got != tc.want {
			t.Errorf("HasRequirementIDForm(%q) = %v, want %v", tc.id, got, tc.want)
		}
		if oracle := schemaIDPattern.MatchString(tc.id); oracle != tc.want {
			t.Errorf("the schema pattern says %v for %q: the table is wrong", oracle, tc.id)
		}
	}
}

func FuzzRequirementIDForm(f *testing.F) {
	for _, tc := range idCases {
		f.Add(tc.id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := bundle.HasRequirementIDForm(id), schemaIDPattern.MatchString(id); got != want {
			t.Errorf("HasRequirementIDForm(%q) = %v, the schema pattern says %v", id, got, want)
		}
	})
}
