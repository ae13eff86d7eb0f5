package mint_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/certcut/certcut/mint"
)

func TestParseRelaxation(t *testing.T) {
	r, err := mint.ParseRelaxation("webhooks.egress-guard:deployment:loopback: receiver only")
	if err != nil || r.Obligation != "webhooks.egress-guard" || r.Durability != "deployment" || r.Reason != "loopback: receiver only" {
		t.Fatalf("ParseRelaxation = %+v, %v", r, err)
	}
	var se *mint.RelaxationSyntaxError
	for _, bad := range []string{"no-colons", "webhooks.egress-guard:forever:why", "webhooks.egress-guard:deployment:"} {
		if _, err := mint.ParseRelaxation(bad); !errors.As(err, &se) {
			t.Errorf("ParseRelaxation(%q): %v", bad, err)
		}
	}
	env := []string{"PATH=/bin", mint.EnvRelaxations + `=[{"obligation":"webhooks.egress-guard","durability":"session","reason":"x"}]`, mint.EnvOptOuts + "= a, ,b"}
	rs, err := mint.RelaxationsFromEnv(env)
	if err != nil || len(rs) != 1 || rs[0].Durability != "session" {
		t.Errorf("RelaxationsFromEnv = %v, %v", rs, err)
	}
	if got := mint.OptOutsFromEnv(env); strings.Join(got, "|") != "a|b" {
		t.Errorf("OptOutsFromEnv = %q", got)
	}
	if _, err := mint.RelaxationsFromEnv([]string{mint.EnvRelaxations + "=[{}]"}); err == nil || !strings.HasPrefix(err.Error(), mint.EnvRelaxations+": ") {
		t.Errorf("a bad $%s: %v", mint.EnvRelaxations, err)
	}
	if _, err := mint.ParseRelaxations([]byte(`[{"obligation":"a.b","durability":"session","reason":"x","extra":"v"}]`)); err == nil || !strings.Contains(err.Error(), `unknown member "extra"`) {
		t.Errorf("an unknown member: %v", err)
	}
}
