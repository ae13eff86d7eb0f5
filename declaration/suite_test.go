package declaration_test

import (
	"strings"
	"testing"

	"github.com/certcut/certcut/declaration"
)

// The built-in list is valid and its ranges are inclusive; every committed
// bundle's suite on the snapshot is outside them (2.42.2 and 2.45.2 sit just
// below).
func TestAdvisories(t *testing.T) {
	a := declaration.BuiltinAdvisories()
	for v, want := range map[string]bool{
		"2.42.2": false, "2.42.3": true, "2.42.4": true, "2.42.5": false,
		"2.45.2": false, "2.45.3": true, "2.45.6": true, "2.45.7": false, "2.45.25": false,
		"2.0.11": false, "2.43.0": false, "2.45.30": false, "2.42.3-rc.1": false, "": false,
	} {
		if _, got := a.Match(v); got != want {
			t.Errorf("%s: %v", v, got)
		}
	}
	x, _ := a.Match("2.45.4")
	if n := x.Note("2.45.4"); !strings.Contains(n, "2.45.3–2.45.6: false executed-fail for workspace rows") {
		t.Error(n)
	}
}

// A list is read strictly: unknown members, bad versions, an inverted range, an
// empty problem and a missing list are refused with the file named.
func TestParseAdvisoriesStrict(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"advisories":[{"from":"2.42.3","to":"2.42.4","problem":"x","source":"y","extra":1}]}`, "unknown member"},
		{`{"advisories":[{"from":"2.42","to":"2.42.4","problem":"x","source":"y"}]}`, "major.minor.patch"},
		{`{"advisories":[{"from":"2.42.5","to":"2.42.4","problem":"x","source":"y"}]}`, "is after"},
		{`{"advisories":[{"from":"2.42.3","to":"2.42.4","problem":"","source":"y"}]}`, "problem is empty"},
		{`{}`, "advisories is missing"},
		{`{"advisories":[],"advisories":[]}`, "duplicate"},
	} {
		_, err := declaration.ParseAdvisories([]byte(tc.text), "adv.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "adv.json") {
			t.Errorf("%s: %v, want %q", tc.text, err, tc.want)
		}
	}
}
