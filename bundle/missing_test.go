package bundle_test

import (
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
)

// TestSchemaMissingTyped: the schema checker marks a required member that is
// absent as Missing, and no other problem.
func TestSchemaMissingTyped(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	v, err := bundle.ParseIJSON(testkit.Encode(b))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range bundle.CheckSchema(v) {
		if p.Pointer == "/signature" {
			found = true
			if !p.Missing {
				t.Errorf("%+v not marked Missing", p)
			}
		} else if p.Missing != (p.Message == "required member is missing" || len(p.Message) > 26 && p.Message[:26] == "required member is missing") {
			t.Errorf("%+v: Missing disagrees with the message", p)
		}
	}
	if !found {
		t.Fatal("an unsigned bundle has no /signature problem")
	}
}
