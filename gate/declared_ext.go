package gate

import (
	"context"
	"fmt"

	"github.com/certcut/certcut/declaration"
	"github.com/certcut/certcut/internal/lazyre"
)

// familyRowRE() is a family witness row id (anchored: a leg does not count).
var familyRowRE = lazyre.New(`^openwop\.family\.([A-Za-z0-9_-]+)$`)

// extTier is the lowest host tier whose evidence may make an extension Stable
// (RFC 0220 §D).
const extTier = 2

// extWitnesses collects, per family key, the committed bundles that carry
// openwop.family.<key> as executed-pass with some certified profile. A witness
// qualifies when its host signature verified under a trusted, usable key and its
// origin's tier is 2 or higher with the origin bound (bundle.tier's rule: keyring
// pin, reviewed history or live fetch; a companion through its pairing) — never
// from the unsigned discovery.url alone.
func (r *Repo) extWitnesses(ctx context.Context) map[string][]declaration.ExtWitness {
	out := map[string][]declaration.ExtWitness{}
	for _, e := range r.Entries {
		if e.Bundle == nil || e.Verdict == nil || len(e.Verdict.CertifiedProfiles) == 0 {
			continue
		}
		var fams []string
		for _, row := range e.Bundle.Rows {
			if m := familyRowRE().FindStringSubmatch(row.ID); m != nil && row.Result == "executed-pass" {
				fams = append(fams, m[1])
			}
		}
		if len(fams) == 0 {
			continue
		}
		w := declaration.ExtWitness{File: e.File, Qualifies: true}
		a := r.assessOf(ctx, e)
		for _, c := range a.checks {
			switch c.id {
			case CritVerified, CritKey, CritTier, CritCompanion:
				if c.status != Pass && w.Qualifies {
					w.Qualifies, w.Why = false, fmt.Sprintf("%s %s", c.status, c.title)
				}
			}
		}
		if w.Qualifies && a.tier < extTier {
			w.Qualifies, w.Why = false, fmt.Sprintf("tier %d", a.tier)
		}
		for _, f := range fams {
			out[f] = append(out[f], w)
		}
	}
	return out
}

// ExtStatus applies RFC 0220 §D/§E to the repository's extension READMEs; nil
// when there is no extension directory.
func (r *Repo) ExtStatus(ctx context.Context) ([]declaration.ExtFinding, error) {
	readmes, err := declaration.ReadExtDir(r.ExtDir)
	if isNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.Declaration == nil {
		return nil, fmt.Errorf("no declaration at %s", r.DeclarationFile)
	}
	return declaration.CheckExt(readmes, r.Declaration, r.extWitnesses(ctx)), nil
}

// extStatusCriteria: one spec.ext-status criterion per README (FAIL, or PASS
// for ok and the warnings), and a spec.ext-status.graduable warning for each
// GRADUABLE or NOT YET family.
func (r *Repo) extStatusCriteria(ctx context.Context) []Criterion {
	fs, err := r.ExtStatus(ctx)
	if err != nil {
		return []Criterion{rule(CritExtStatus).Criterion(Result{Status: Blocked, Reason: "the extension READMEs cannot be judged: " + err.Error()})}
	}
	if fs == nil {
		return []Criterion{rule(CritExtStatus).Criterion(Result{Status: Pass, Reason: "no extension directory " + r.ExtDir + ": no extension README to judge"})}
	}
	var out []Criterion
	for _, f := range fs {
		loc := &Location{File: f.File, Line: max(f.Line, 1)}
		title := fmt.Sprintf("ext/%s: %s", f.Dir, orDash(f.Status))
		st := Pass
		if f.Outcome == declaration.ExtFail {
			st = Fail
		}
		out = append(out, rule(CritExtStatus).Criterion(Result{Status: st, Title: title, Reason: f.Outcome + ": " + f.Reason, Location: loc}))
		if f.Outcome == declaration.ExtGraduable || f.Outcome == declaration.ExtNotYet {
			out = append(out, rule(CritExtGraduable).Criterion(Result{Status: Fail, Title: title, Reason: f.Outcome + ": " + f.Reason, Location: loc}))
		}
	}
	return out
}
