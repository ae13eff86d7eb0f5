package gate

import (
	"github.com/certcut/certcut/gate/rfc"
)

// checkCoherence runs the status-coherence rules (rules_coherence.go) for
// every RFC whose Status the change alters, over the head commit's files as
// git has them (not the work tree, whose files outside the gated paths may be
// uncommitted edits): the supersession partners on both sides — an Accepted RFC that
// supersedes a touched one, a Superseded RFC pointing at one — even when the
// change did not touch them, and the spec/v2 Stable banners citing a touched
// RFC. An RFC flipped to Accepted carries its own rfc.supersession and
// rfc.waiver-register in its Accepted report.
func (f *flipsRun) checkCoherence() {
	touched := map[string]bool{}
	gated := map[string]bool{}
	for _, t := range f.rep.Transitions {
		if t.Number == "" {
			continue
		}
		touched[t.Number] = true
		if t.Gated {
			gated[t.Number] = true
		}
	}
	if len(touched) == 0 {
		return
	}
	head, err := f.headGovernance()
	if err != nil {
		f.changes.Criteria = append(f.changes.Criteria, rule(CritSupersession).Criterion(Result{Status: Blocked,
			Reason: "the head's RFCs, banners and registers cannot be read from git: " + err.Error()}))
		return
	}
	g := head.gov
	add := func(c Criterion) { f.changes.Criteria = append(f.changes.Criteria, f.shown(head, c)) }
	var superseded []*rfc.RFC
	for _, y := range g.rfcs {
		if y.Status != rfc.StatusSuperseded {
			continue
		}
		by, _ := rfc.SupersededByTargets(y.SupersededBy.Value)
		if touched[y.Number] || anyIn(by, touched) {
			superseded = append(superseded, y)
		}
	}
	if len(superseded) > 0 {
		add(supersededByCriterion(g, superseded))
	}
	for _, m := range g.rfcs {
		if m.Status != rfc.StatusAccepted || gated[m.Number] {
			continue
		}
		targets, _ := rfc.SupersedesTargets(m.Supersedes.Value)
		if touched[m.Number] || anyIn(targets, touched) {
			add(supersessionCriterion(g, m))
		}
	}
	add(stableBannerCriterion(g, touched))
}

func anyIn(xs []string, set map[string]bool) bool {
	for _, x := range xs {
		if set[x] {
			return true
		}
	}
	return false
}
