package gate

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/certcut/certcut/gate/rfc"
)

var phase4RE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)phase 4`) })

// treeFor returns the RFC tree the request names, or reads the RFC's
// directory.
func treeFor(req AcceptedRequest) (*rfc.Tree, error) {
	if req.Tree != nil {
		return req.Tree, nil
	}
	return rfc.LoadTree(filepath.Dir(req.RFC.File))
}

// falsifiabilitySectionCriterion is rule 4a/4b of the newest reference
// predicate: the RFC has a ### Falsifiability section (the text after its
// first such heading up to a second one or the next ## heading, ###
// subsections included), and every row of it that is neither a separator nor
// the Requirement header names an openwop.requirement. id or carries a
// verdict word.
func falsifiabilitySectionCriterion(x *rfc.RFC) Criterion {
	p := x.Predicate
	res := Result{Location: &Location{File: x.File, Line: max(p.FalsifiabilityLine, 1)}}
	switch {
	case p.FalsifiabilityLine == 0:
		res.Status, res.Reason = Fail, "the RFC has no `### Falsifiability` section: each requirement states how it can be shown false (RFC 0174 §B.1 rule 4)"
	case p.FalsifiabilityBlank:
		res.Status, res.Reason = Fail, "the `### Falsifiability` section is empty"
	default:
		for _, s := range p.Undeclared() {
			res.Findings = append(res.Findings, Finding{Message: "row names no openwop.requirement. id and declares no verdict (witnessable, gated, corpus gate, not probed, negative-existence, unwitnessable, host-pending, inspection, suite review): " + clip(s.Text),
				Location: &Location{File: x.File, Line: s.Line}})
		}
		if len(res.Findings) > 0 {
			res.Status, res.Reason = Fail, fmt.Sprintf("%d Falsifiability row(s) name no requirement id and declare no verdict", len(res.Findings))
			res.Location = res.Findings[0].Location
			break
		}
		rows := 0
		for _, s := range p.FalsifiabilityLines {
			if s.IsRow() {
				rows++
			}
		}
		res.Status, res.Reason = Pass, fmt.Sprintf("%d row(s), each naming a requirement id or declaring a verdict", rows)
	}
	return rule(CritFalsifiabilitySection).Criterion(res)
}

// vocabularyCriterion is RFC 0178 §C.1 (rfc.RFC.CheckVocabulary) for one RFC;
// named test files are looked up under the repository's conformance/src (the
// directory beside the RFCS directory).
func vocabularyCriterion(x *rfc.RFC, rfcsDir string) Criterion {
	src := filepath.Join(filepath.Dir(rfcsDir), "conformance", "src")
	v := x.CheckVocabulary(src)
	res := Result{Location: &Location{File: x.File, Line: max(x.Predicate.FalsifiabilityLine, 1)}}
	if !v.InScope {
		res.Status, res.Reason = Pass, "not in RFC 0178 §C.1's scope (numbered below 0167 and not Part of: RFC 0167)"
		return rule(CritFalsifiability).Criterion(res)
	}
	for _, f := range v.Findings {
		res.Findings = append(res.Findings, Finding{Message: f.Message, Location: &Location{File: x.File, Line: f.Line}})
	}
	if len(res.Findings) > 0 {
		res.Status, res.Reason = Fail, fmt.Sprintf("%d Falsifiability row(s) break RFC 0178 §C.1: %s", len(res.Findings), res.Findings[0].Message)
		if v.Rows == 0 && x.Predicate.FalsifiabilityLine == 0 {
			res.Reason = res.Findings[0].Message
		}
		res.Location = res.Findings[0].Location
		return rule(CritFalsifiability).Criterion(res)
	}
	res.Status, res.Reason = Pass, fmt.Sprintf("%d row(s), each with a verdict in the closed vocabulary", v.Rows)
	if len(v.Unchecked) > 0 {
		var names []string
		for _, u := range v.Unchecked {
			names = append(names, fmt.Sprintf("%s (line %d)", u.Message, u.Line))
		}
		res.Reason += fmt.Sprintf("; NOT CHECKED: %d named test file(s) — %s — because the repository has no %s", len(names), firstN(names, 3), filepath.ToSlash(src))
	}
	return rule(CritFalsifiability).Criterion(res)
}

// parentChildCriterion is the newest reference predicate's "the parent flips
// LAST" rule for x taken as Accepted: no child of x (an RFC whose first
// "Part of: RFC NNNN" names x) is Active, and x's own parent, when x names
// one, is Active or Accepted. x naming itself is its own Accepted child.
func parentChildCriterion(x *rfc.RFC, tree *rfc.Tree, treeErr error) Criterion {
	res := Result{Location: &Location{File: x.File, Line: max(x.Predicate.Parent.Line, 1)}}
	if treeErr != nil {
		res.Status, res.Reason = Blocked, fmt.Sprintf("the RFC directory cannot be read, so its program parent and children cannot be checked: %v", treeErr)
		return rule(CritParentChild).Criterion(res)
	}
	var active []string
	for _, c := range tree.Children(x.Number) {
		if c.File == x.File || c.Number == x.Number {
			continue
		}
		if c.Status == rfc.StatusActive {
			active = append(active, c.Number)
			res.Findings = append(res.Findings, Finding{Message: fmt.Sprintf("child RFC %s (Part of: RFC %s) is still Active", c.Number, x.Number), Location: &Location{File: c.File, Line: max(c.StatusLine, 1)}})
		}
	}
	var why []string
	missingParent := ""
	if len(active) > 0 {
		why = append(why, fmt.Sprintf("RFC %s would be Accepted while its program children are still Active (%s): the parent flips last", x.Number, strings.Join(active, ", ")))
	}
	parent := x.Predicate.Parent
	if parent.Line > 0 && parent.Value != x.Number {
		p := tree.ByNumber(parent.Value)
		switch {
		case p == nil:
			missingParent = fmt.Sprintf("its parent RFC %s (Part of:, line %d) is not in %s, so whether it is Active or Accepted cannot be read (the reference predicate fails it)", parent.Value, parent.Line, filepath.ToSlash(tree.Dir))
		case p.Status != rfc.StatusActive && p.Status != rfc.StatusAccepted:
			why = append(why, fmt.Sprintf("its parent RFC %s (Part of:, line %d) is %s: a child is Accepted only under an Active or Accepted parent", parent.Value, parent.Line, orDash(string(p.Status))))
		}
	}
	if len(why) == 0 && missingParent != "" {
		res.Status, res.Reason = Blocked, missingParent
		return rule(CritParentChild).Criterion(res)
	}
	if missingParent != "" {
		why = append(why, missingParent)
	}
	if len(why) > 0 {
		res.Status, res.Reason = Fail, strings.Join(why, "; ")
		if len(res.Findings) > 0 && parent.Line == 0 {
			res.Location = res.Findings[0].Location
		}
		return rule(CritParentChild).Criterion(res)
	}
	switch {
	case parent.Line > 0 && parent.Value != x.Number:
		p := tree.ByNumber(parent.Value)
		res.Reason = fmt.Sprintf("parent RFC %s is %s; ", parent.Value, p.Status)
	default:
		res.Reason = "no program parent; "
	}
	n := 0
	for _, c := range tree.Children(x.Number) {
		if c.Number != x.Number {
			n++
		}
	}
	if n > 0 {
		res.Reason += fmt.Sprintf("no Active child among its %d program child(ren)", n)
	} else {
		res.Reason += "no program child"
	}
	res.Status = Pass
	return rule(CritParentChild).Criterion(res)
}
