package gate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/verify"
)

// DiffReport is what changed between two cuts A (before) and B (after).
type DiffReport struct {
	A DiffSide `json:"a"`
	B DiffSide `json:"b"`
	// Added and Removed are rows present in only one cut; Changed are rows whose
	// result changed; AssertionsChanged rows whose result is the same but whose
	// assertion count changed.
	Added             []DiffRow    `json:"added"`
	Removed           []DiffRow    `json:"removed"`
	Changed           []RowChange  `json:"changed"`
	AssertionsChanged []RowChange  `json:"assertionsChanged"`
	Fields            []DiffChange `json:"fields"`
	// Regressions lists what got worse: a pass lost (changed or removed), a
	// certified profile lost, a relaxation added, a worse verdict.
	Regressions []string `json:"regressions"`
	// OtherHost, when set, says that A and B are of different hosts (their
	// host.name or the origin of their discovery.url differ, both unsigned): a
	// diff across hosts is no regression check.
	OtherHost string `json:"otherHost,omitempty"`
}

// DiffSide is one cut.
type DiffSide struct {
	File      string        `json:"file"`
	Sha256    string        `json:"sha256"`
	Verdict   string        `json:"verdict"`
	Totals    bundle.Totals `json:"totals"`
	Certified []string      `json:"certified"`
}

// DiffRow is a row present in one cut only.
type DiffRow struct {
	ID         string `json:"id"`
	Result     string `json:"result"`
	Assertions int64  `json:"assertions"`
}

// RowChange is a row in both cuts that changed.
type RowChange struct {
	ID      string `json:"id"`
	From    string `json:"from"`
	To      string `json:"to"`
	FromN   int64  `json:"fromAssertions"`
	ToN     int64  `json:"toAssertions"`
	ToWhy   string `json:"detail,omitempty"`
	Regress bool   `json:"regression"`
}

// DiffChange is a member that differs.
type DiffChange struct {
	Field string `json:"field"`
	// Binding says how the member is bound (bundle.BindingOf): "unsigned" marks
	// a change that is only the minter's word. Empty for "verdict", which is
	// certcut's own judgement.
	Binding bundle.Binding `json:"binding,omitempty"`
	From    string         `json:"from"`
	To      string         `json:"to"`
}

// diffMembers names the bundle member (a bundle.Bindings path) behind each diff
// field whose name is not already one.
var diffMembers = map[string]string{
	"claimedProfiles": "claimedProfiles[].id",
	"certified":       "claimedProfiles[].certified",
	"relaxations":     "host.relaxations",
	"verdict":         "",
}

// Diff compares two judged bundles.
func Diff(a, b *Entry) *DiffReport {
	d := &DiffReport{A: side(a), B: side(b), Added: []DiffRow{}, Removed: []DiffRow{}, Changed: []RowChange{},
		AssertionsChanged: []RowChange{}, Fields: []DiffChange{}, Regressions: []string{}}
	ba, bb := a.Bundle, b.Bundle
	d.OtherHost = otherHost(ba, bb)
	rowsA, rowsB := rowMap(ba), rowMap(bb)
	for _, id := range sortedKeys(rowsB) {
		if _, ok := rowsA[id]; !ok {
			r := rowsB[id]
			d.Added = append(d.Added, DiffRow{ID: id, Result: r.Result, Assertions: r.AssertionCount()})
		}
	}
	for _, id := range sortedKeys(rowsA) {
		ra := rowsA[id]
		rb, ok := rowsB[id]
		if !ok {
			d.Removed = append(d.Removed, DiffRow{ID: id, Result: ra.Result, Assertions: ra.AssertionCount()})
			if ra.Result == bundle.ExecutedPass {
				d.Regressions = append(d.Regressions, fmt.Sprintf("row %s was executed-pass and is gone", id))
			}
			continue
		}
		ch := RowChange{ID: id, From: ra.Result, To: rb.Result, FromN: ra.AssertionCount(), ToN: rb.AssertionCount(), ToWhy: clip(rb.DetailText())}
		switch {
		case ra.Result != rb.Result:
			ch.Regress = ra.Result == bundle.ExecutedPass || rb.Result == bundle.ExecutedFail || rb.Result == bundle.Blocked
			d.Changed = append(d.Changed, ch)
			if ch.Regress {
				d.Regressions = append(d.Regressions, fmt.Sprintf("row %s went %s → %s", id, ra.Result, rb.Result))
			}
		case ch.FromN != ch.ToN:
			d.AssertionsChanged = append(d.AssertionsChanged, ch)
		}
	}
	field := func(name, from, to string) {
		if from == to {
			return
		}
		member, ok := diffMembers[name]
		if !ok {
			member = name
		}
		var binding bundle.Binding
		if member != "" {
			binding = bundle.BindingOf(member)
		}
		d.Fields = append(d.Fields, DiffChange{Field: name, Binding: binding, From: from, To: to})
	}
	keyOf := func(x *Facts) string {
		if x.Signature == nil {
			return ""
		}
		return x.Signature.KeyID
	}
	field("host.name", ba.Host.Name, bb.Host.Name)
	field("host.version", ba.Host.Version, bb.Host.Version)
	field("host.build", ba.Host.Build.String(), bb.Host.Build.String())
	field("host.deployment", ba.Host.Deployment, bb.Host.Deployment)
	field("suite.version", ba.Suite.Version, bb.Suite.Version)
	field("suite.targetMajor", fmt.Sprint(ba.Suite.TargetMajor), fmt.Sprint(bb.Suite.TargetMajor))
	field("signature.keyId", keyOf(ba), keyOf(bb))
	field("discovery.url", ba.Discovery.URL, bb.Discovery.URL)
	field("discovery.sha256", ba.Discovery.Sha256, bb.Discovery.Sha256)
	field("generatedAt", ba.GeneratedAt, bb.GeneratedAt)
	field("witnessSha256", ba.WitnessSha256, bb.WitnessSha256)
	field("claimedProfiles", claimed(ba), claimed(bb))
	field("certified", strings.Join(d.A.Certified, ", "), strings.Join(d.B.Certified, ", "))
	field("relaxations", relaxations(ba), relaxations(bb))
	field("durability.rung", rung(ba), rung(bb))
	field("verdict", d.A.Verdict, d.B.Verdict)
	for _, p := range d.A.Certified {
		if !slices.Contains(d.B.Certified, p) {
			d.Regressions = append(d.Regressions, "profile "+p+" is no longer certified")
		}
	}
	for _, r := range bb.Host.Relaxations {
		if !slices.ContainsFunc(ba.Host.Relaxations, func(x bundle.Relaxation) bool { return x.Obligation == r.Obligation }) {
			d.Regressions = append(d.Regressions, "relaxation "+r.Obligation+" was added")
		}
	}
	if verify.Outcome(d.B.Verdict).Severity() > verify.Outcome(d.A.Verdict).Severity() {
		d.Regressions = append(d.Regressions, fmt.Sprintf("verdict went %s → %s", d.A.Verdict, d.B.Verdict))
	}
	return d
}

func side(e *Entry) DiffSide {
	s := DiffSide{File: e.File, Sha256: e.Sha256, Verdict: string(e.Outcome()), Totals: bundle.CountRows(e.Bundle.Rows), Certified: []string{}}
	if e.Verdict != nil {
		s.Certified = append(s.Certified, e.Verdict.CertifiedProfiles...)
	}
	return s
}

func rowMap(b *Facts) map[string]bundle.Row {
	m := make(map[string]bundle.Row, len(b.Rows))
	for _, r := range b.Rows {
		if _, dup := m[r.ID]; !dup {
			m[r.ID] = r
		}
	}
	return m
}

func sortedKeys(m map[string]bundle.Row) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func claimed(b *Facts) string {
	var ids []string
	for _, p := range b.ClaimedProfiles {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, ", ")
}

func relaxations(b *Facts) string {
	var out []string
	for _, r := range b.Host.Relaxations {
		out = append(out, r.Obligation)
	}
	return strings.Join(out, ", ")
}

func rung(b *Facts) string {
	if b.Durability == nil {
		return ""
	}
	return b.Durability.Rung
}

// otherHost says how two bundles name different hosts, or "".
func otherHost(a, b *Facts) string {
	originA, _ := bundle.Origin(a.Discovery.URL)
	originB, _ := bundle.Origin(b.Discovery.URL)
	if a.Host.Name == b.Host.Name && originA == originB {
		return ""
	}
	return fmt.Sprintf("A and B are of different hosts (A: host.name %q, discovery origin %s; B: host.name %q, discovery origin %s; both unsigned): a diff across hosts is no regression check",
		a.Host.Name, orDash(originA), b.Host.Name, orDash(originB))
}
