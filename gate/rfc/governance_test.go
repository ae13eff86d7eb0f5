package rfc

import (
	"slices"
	"testing"
)

// The Supersedes cell as the newest status-coherence check reads it: a
// section sign no longer exempts it.
func TestSupersedesTargets(t *testing.T) {
	for cell, want := range map[string][]string{
		"—":                        nil,
		"— (amends RFC 0174 §E.2)": nil,
		"RFC 0089 bundle-version-1 validity rule where it permits":   nil,
		"RFC 0103 Q3 and its register row G5. Amends those two only": nil,
		"RFC 0174 §E.2, §E.2a":                                       {"0174"},
		"RFC 0035 — the sandbox execution contract":                  {"0035"},
		"RFC 0101, RFC 0102 | trailing cell 0103":                    {"0101", "0102"},
		"": nil,
	} {
		got, _ := SupersedesTargets(cell)
		if !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", cell, got, want)
		}
	}
	if by, blank := SupersededByTargets(" — "); !blank || by != nil {
		t.Errorf("dash: %v %v", by, blank)
	}
	if !NamesRFC("RFC 0190 (partial)", "0190") || NamesRFC("RFC 01901", "0190") {
		t.Error("NamesRFC")
	}
}

// Resolution tokens however the register spells them; an unknown word is no
// token.
func TestResolutionTokens(t *testing.T) {
	for line, want := range map[string][2]string{
		"| G1 | a | b | c | `open` |":                         {"open", ""},
		"| **G2** | a | b | c | **open** — owed |":            {"open", ""},
		"| G3 | a | b | c | Open. |":                          {"open", ""},
		"| G4 | a | b | c | `transferred:rfc-0199` |":         {"transferred", "rfc-0199"},
		"| G5 | a | b | c | `carried:openwop.gap.0167.3` x |": {"carried", "openwop.gap.0167.3"},
		"| G6 | a | b | c | pending |":                        {"", ""},
		"| G7 | a | b | c | opened later |":                   {"", ""},
	} {
		r, ok := resolutionRow(KindGaps, line, 1)
		if !ok || r.Token != want[0] || r.Arg != want[1] {
			t.Errorf("%q: %+v %v, want %v", line, r, ok, want)
		}
	}
	if r, ok := resolutionRow(KindRisks, "| R1 | hazard | `mitigated` |", 1); !ok || r.Token != "mitigated" || !ValidToken(KindRisks, r.Token) || ValidToken(KindGaps, r.Token) {
		t.Errorf("risk row: %+v", r)
	}
}

func TestReadBanner(t *testing.T) {
	b, ok := ReadBanner("x.md", "# t\n\n> **Status: Stable · 2026-09-17 · RFC 0177 §E (this file), RFC 0174 §E.2, 0168.**\n> **Status: Draft**\n")
	if !ok || b.Line != 3 || !b.Stable || !slices.Equal(b.Cites, []string{"0177", "0174", "0168"}) {
		t.Fatalf("%+v", b)
	}
	if WaivedLine("a\nb\nthe **Comment window waived** by\n") != 3 {
		t.Error("WaivedLine in bold")
	}
	if WaivedLine("a\nComment window waived under GOVERNANCE\n") != 2 || WaivedLine("nothing") != 0 {
		t.Error("WaivedLine")
	}
}
