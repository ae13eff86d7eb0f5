package rfc_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/testkit"
)

func TestExpandIDs(t *testing.T) {
	for text, want := range map[string][]string{
		"records `0211.a2a-error-data-shape`, `.a2a-unreadable-not-found-details`, `.a2a-no-openwop-envelope` all pass": {
			"openwop.requirement.0211.a2a-error-data-shape",
			"openwop.requirement.0211.a2a-unreadable-not-found-details",
			"openwop.requirement.0211.a2a-no-openwop-envelope",
		},
		"`openwop.requirement.0235.if-none-match.rfc9110-match` and `.304-carries-etag`": {
			"openwop.requirement.0235.if-none-match.rfc9110-match",
			"openwop.requirement.0235.304-carries-etag",
		},
		"the four `openwop.requirement.0235.*` ids":        nil, // a wildcard names no id
		"`.orphan-leg` with no number before it":           nil,
		"suite 2.38.0, build `commit:1157625f`":            nil,
		"`0211.a2a-x` then `0176.era-key` then `.leg`":     {"openwop.requirement.0211.a2a-x", "openwop.requirement.0176.era-key", "openwop.requirement.0176.leg"},
		"plain openwop.requirement.0172.release-identity.": {"openwop.requirement.0172.release-identity"},
		"0211.not-in-code-span":                            nil,
	} {
		if got := rfc.ExpandIDs(text); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %v\nwant %v", text, got, want)
		}
	}
}

const sample = `# RFC 0901: a sample

| Field | Value |
| --- | --- |
| **RFC** | 0901 |
| **Status** | ` + "`Accepted`" + ` |
| **Updated** | 2026-10-01 — Evidence tier: tier-2. |

## Proposal

### Falsifiability — one row per normative requirement

| Requirement | Observable | Who | Verdict |
| --- | --- | --- | --- |
| §A one — ` + "`openwop.requirement.0901.one`" + ` | mentions ` + "`0200.prm-served`" + ` | suite | witnessable — executed-pass required |
| §B ` + "`0901.two`" + ` | x | suite | witnessable — gated |
| §C ` + "`openwop.requirement.0901.three`" + ` (corpus) | x | corpus | witnessable (corpus) |
| §D ` + "`0901.skip`" + ` | x | — | not claimed as a witness |

## Conformance

| Leg | Assertion |
| --- | --- |
| ` + "`0901.four`" + ` (` + "`v2-x`" + `) | asserts ` + "`0300.other`" + ` |

## Acceptance criteria

- [x] done; ` + "`0901.five`" + `, ` + "`.six`" + ` pass.
- [ ] deferred: ` + "`0901.later`" + ` after the deploy.
- [ ] nothing said here
| 1 | criterion | — |
| 2 | criterion | #123 |

## References
`

func TestParseSample(t *testing.T) {
	r := rfc.Parse("RFCS/0901-sample.md", sample)
	if r.Number != "0901" || r.Status != "Accepted" || r.StatusLine != 6 || rfc.TierLabel(r.Updated) != "tier-2" {
		t.Fatalf("header: %+v", r)
	}
	var ids []string
	for _, q := range r.Requirements {
		ids = append(ids, strings.TrimPrefix(q.ID, rfc.RequirementPrefix)+":"+q.Source)
	}
	want := []string{"0901.one:falsifiability", "0901.two:falsifiability", "0901.three:falsifiability", "0901.four:conformance", "0901.five:acceptance", "0901.six:acceptance"}
	if !slices.Equal(ids, want) {
		t.Errorf("requirements\n got %v\nwant %v", ids, want)
	}
	byID := map[string]rfc.Requirement{}
	for _, q := range r.Requirements {
		byID[strings.TrimPrefix(q.ID, rfc.RequirementPrefix)] = q
	}
	if !byID["0901.two"].Gated || byID["0901.one"].Gated || !byID["0901.three"].Corpus || byID["0901.one"].Line != 15 {
		t.Errorf("flags: %+v", byID)
	}
	if len(r.NotRequired) != 1 || r.NotRequired[0].ID != "openwop.requirement.0901.skip" {
		t.Errorf("not required: %+v", r.NotRequired)
	}
	var bad []int
	for _, a := range r.Acceptance {
		if !a.OK() {
			bad = append(bad, a.Line)
		}
	}
	if !slices.Equal(bad, []int{30, 31}) || len(r.Acceptance) != 5 {
		t.Errorf("acceptance items %+v; failing lines %v", r.Acceptance, bad)
	}
}

func TestRegister(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "registers"), 0o755)
	os.WriteFile(filepath.Join(dir, "registers", "0901-sample.gaps.md"), []byte("| ID |\n| G1 | `closed` x |\n| G2 | `open` — y |\n"), 0o644)
	reg, err := rfc.ReadRegister(filepath.Join(dir, "0901-sample.md"), "0901")
	if err != nil || len(reg.Open) != 1 || reg.Open[0].Line != 3 {
		t.Fatalf("%+v %v", reg, err)
	}
	reg, err = rfc.ReadRegister(filepath.Join(dir, "0902-x.md"), "0902")
	if err != nil || reg.File != "" || len(reg.Open) != 0 {
		t.Fatalf("absent register: %+v %v", reg, err)
	}
}

// The real RFCs read as a reviewer reads them.
func TestCorpusRFCs(t *testing.T) {
	dir := filepath.Join(testkit.CorpusDir(t), "RFCS")
	r, err := rfc.ReadFile(filepath.Join(dir, "0211-a2a-error-details-are-errorinfo.md"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range r.Requirements {
		ids = append(ids, q.ID)
	}
	want := []string{
		"openwop.requirement.0211.a2a-error-data-shape",
		"openwop.requirement.0211.a2a-unreadable-not-found-details",
		"openwop.requirement.0211.a2a-no-openwop-envelope",
		"openwop.requirement.0211.a2a-version-not-supported-shape",
		"openwop.requirement.0211.a2a-client-reads-either-shape",
	}
	if !slices.Equal(ids, want) || r.Status != "Accepted" || rfc.TierLabel(r.Updated) != "tier-1" {
		t.Errorf("0211: %v %q %q", ids, r.Status, rfc.TierLabel(r.Updated))
	}
	r, _ = rfc.ReadFile(filepath.Join(dir, "0236-host-events.md"))
	if len(r.Requirements) != 6 || r.Status != "Active" {
		t.Errorf("0236: %d ids, status %q", len(r.Requirements), r.Status)
	}
	r, _ = rfc.ReadFile(filepath.Join(dir, "0216-colocated-witness-for-harness-trust-anchor-rows.md"))
	for _, q := range r.Requirements {
		if !q.Corpus || !strings.HasPrefix(q.ID, "openwop.requirement.0216.") {
			t.Errorf("0216: %+v (only the (corpus) 0216 ids are required; observables mention others)", q)
		}
	}
}

// The Status row is read however the header table spells it, as long as its
// value is exactly a known state; a row the reader cannot see, or two rows,
// leave Status empty.
func TestStatusSpellings(t *testing.T) {
	for row, want := range map[string]rfc.Status{
		"| **Status** | `Accepted` |":                                 "Accepted",
		"| **Status**        | `Active`                        |":     "Active",
		"|**Status**|`Draft`|":                                        "Draft",
		"   | **Status** | `Accepted` |":                              "Accepted",
		"| Status | Accepted |":                                       "Accepted",
		"| **Status:** | **Accepted** (provisional) |":                "Accepted",
		"| __Status__ | `Superseded` by RFC 0240 |":                   "Superseded",
		"| **Status** | `Accepted` — provisional |":                   "Accepted",
		"| **Status** |  |":                                           "",
		"| **Status** | `` |":                                         "",
		"**Status:** Accepted":                                        "",
		"    | **Status** | `Accepted` |":                             "", // four spaces: a code block
		"| **Statuses** | `Accepted` |":                               "",
		"| **Status** | `Draft` |\n| **Status** | `Accepted` |":       "", // two rows: unreadable
		"| **Status** | `Accepted` |\r\n| **Updated** | tier-1 |\r\n": "Accepted",
	} {
		r := rfc.Parse("RFCS/0901-x.md", "# RFC 0901: x\n\n| Field | Value |\n| --- | --- |\n"+row+"\n")
		if r.Status != want {
			t.Errorf("%q: Status %q, want %q", row, r.Status, want)
		}
		if want != "" && r.StatusLine != 5 {
			t.Errorf("%q: line %d", row, r.StatusLine)
		}
	}
}
