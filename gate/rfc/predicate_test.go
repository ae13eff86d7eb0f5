package rfc

import (
	"strings"
	"testing"
)

func TestDeclaredTier(t *testing.T) {
	for in, want := range map[string]string{
		"2026-09-03 — Evidence tier: tier-1.":         "tier-1",
		"**Evidence tier: tier-2 (MyndHyve)**":        "tier-2",
		"Evidence tier: ** corpus gate":               "corpus gate",
		"evidence TIER: Tier-3":                       "Tier-3",
		"**Evidence tier**: tier-1":                   "",
		"Evidence tier: tier 1":                       "",
		"Evidence tier: tier-4":                       "",
		"flipped on a tier-1 host's bundle":           "",
		"2026-09-03 — corpus gate evidence recorded.": "",
	} {
		if got := DeclaredTier(in); got != want {
			t.Errorf("DeclaredTier(%q) = %q, want %q", in, got, want)
		}
	}
}

// The section runs from the first "### Falsifiability" heading to a second
// one or the next "## ", ### subsections included; the parent is the first
// "Part of: RFC NNNN" anywhere.
func TestReadPredicate(t *testing.T) {
	text := `# RFC 0300: x

| **Status** | ` + "`Active`" + ` |
| **Affects** | spec — **Part of: RFC 0167 — child C1.** Part of: RFC 0200 |

## Proposal

### Falsifiability — one row per requirement

| Requirement | Observable | Who | Verdict |
| --- | --- | --- | --- |
| §A ` + "`openwop.requirement.0300.alpha`" + ` | x | suite | witnessable |
| §B prose only | x | suite | to be decided |

### Legs

| Leg | Observable | Who | Verdict |
| --- | --- | --- | --- |
| ` + "`0300.beta`" + ` | x | suite | seam-gated — needs the seam |

## Acceptance criteria

| not | in | the | section |
`
	x := Parse("RFCS/0300-x.md", text)
	p := x.Predicate
	if p.Parent.Value != "0167" || p.Parent.Line != 4 || !p.Family0167 {
		t.Errorf("parent %+v family %v", p.Parent, p.Family0167)
	}
	if p.FalsifiabilityLine != 8 || p.FalsifiabilityBlank || len(p.FalsifiabilityLines) != 7 {
		t.Fatalf("section %+v", p)
	}
	und := p.Undeclared()
	if len(und) != 2 || !strings.Contains(und[0].Text, "§B prose only") || !strings.HasPrefix(und[1].Text, "| Leg |") {
		t.Errorf("undeclared %+v", und)
	}
	var ids []string
	for _, q := range p.SectionRequirements() {
		ids = append(ids, q.ID)
		if q.ID == "openwop.requirement.0300.beta" && !q.Gated {
			t.Errorf("0300.beta not gated: %+v", q)
		}
	}
	if strings.Join(ids, " ") != "openwop.requirement.0300.alpha openwop.requirement.0300.beta" {
		t.Errorf("ids %v", ids)
	}
	tree := NewTree("RFCS", x)
	if _, ok := tree.Declared["openwop.requirement.0300.beta"]; !ok {
		t.Errorf("declared %v", tree.Declared)
	}
	if tree.ByNumber("0300") != x || len(tree.Children("0167")) != 1 {
		t.Error("tree lookups")
	}
	v := x.CheckVocabulary("")
	if !v.InScope || v.Rows != 4 || len(v.Findings) != 2 {
		t.Errorf("vocabulary %+v", v)
	}
}
