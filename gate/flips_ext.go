package gate

import (
	"fmt"
	"strings"

	"github.com/certcut/certcut/declaration"
)

// ExtTransition is one extension README (spec/v2/ext/<dir>/README.md) whose
// Status the change alters: a status flip of an extension family (RFC 0220
// §D/§E), gated with spec.ext-status.
type ExtTransition struct {
	// Dir is the extension directory; File the README as the gate reads it from
	// disk (at the merge base when the change deletes it).
	Dir  string `json:"dir"`
	File string `json:"file"`
	// Change is "added", "deleted", "renamed" or "modified".
	Change string `json:"change"`
	// From and To are the Status at the merge base and at Head ("" when the file
	// is absent there or has no Status).
	From string `json:"from"`
	To   string `json:"to"`
	Line int    `json:"line"`
	// Gated says spec.ext-status judged the README at Head; Status and Outcome
	// are then its verdict (Outcome: ok, FAIL, GRADUABLE, NOT YET). Why says what
	// was gated, or why not.
	Gated   bool   `json:"gated"`
	Status  Status `json:"status,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Why     string `json:"why"`
}

// extGitDir is the extension directory as a git path with a trailing slash:
// Config.ExtDir when set (and inside the work tree), else spec/v2/ext under the
// spec root.
func (f *flipsRun) extGitDir() string {
	if f.cfg.ExtDir != "" {
		if gp, ok := gitPathOf(f.g.dir, f.cfg.ExtDir); ok {
			return strings.TrimSuffix(gp, "/") + "/"
		}
	}
	return f.prefix + "spec/v2/ext/"
}

// extReadmeDir returns <dir> for a git path <extGitDir><dir>/README.md.
func (f *flipsRun) extReadmeDir(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, f.extGitDir())
	if !ok || p == "" {
		return "", false
	}
	dir, file, ok := strings.Cut(rest, "/")
	return dir, ok && dir != "" && file == "README.md"
}

// extChanges picks the extension READMEs out of the change.
func (f *flipsRun) extChanges(changes []treeChange) []treeChange {
	var out []treeChange
	for _, c := range changes {
		_, src := f.extReadmeDir(c.SrcPath)
		_, dst := f.extReadmeDir(c.DstPath)
		if src || dst {
			out = append(out, c)
		}
	}
	return out
}

// gateExt lists each extension README whose Status the change alters and gates
// it with spec.ext-status for its family, as gate audit judges it: the README
// at Head (read from disk), the declaration and the committed witnesses. A
// README the change deletes is listed, not gated. A README whose Status is the
// same on both sides is an edit, not a flip.
func (f *flipsRun) gateExt(changes []treeChange) error {
	if len(changes) == 0 {
		return nil
	}
	var findings map[string]declaration.ExtFinding
	for _, c := range changes {
		var before, after *declaration.ExtReadme
		if dir, ok := f.extReadmeDir(c.SrcPath); ok {
			if text, ok := f.blob(c.SrcBlob, c.SrcMode); ok {
				x := declaration.ParseExtReadme(dir, f.toDisk(c.SrcPath), text)
				before = &x
			}
		}
		dir, headIsReadme := f.extReadmeDir(c.DstPath)
		if headIsReadme {
			if text, ok := f.blob(c.DstBlob, c.DstMode); ok {
				x := declaration.ParseExtReadme(dir, f.toDisk(c.DstPath), text)
				after = &x
			}
		}
		t := ExtTransition{File: f.toDisk(c.path()), Change: changeWord(c), Line: 1}
		if before != nil {
			t.Dir, t.From, t.Line = before.Dir, before.Status, max(before.Line, 1)
		}
		if after != nil {
			t.Dir, t.To, t.Line = after.Dir, after.Status, max(after.Line, 1)
		}
		if t.Dir == "" {
			t.Dir, _ = f.extReadmeDir(c.path())
		}
		if t.From == t.To && before != nil && after != nil {
			continue // an edit, not a status flip
		}
		if !headIsReadme {
			t.Why = "the change deletes (or moves away) the extension README; only a README at head is judged (gate audit judges the directory as it is)"
			f.rep.ExtTransitions = append(f.rep.ExtTransitions, t)
			continue
		}
		if findings == nil {
			r, err := f.openRepo()
			if err != nil {
				return err
			}
			findings = map[string]declaration.ExtFinding{}
			fs, err := r.ExtStatus(f.g.ctx)
			if err != nil {
				t.Gated, t.Status = true, Blocked
				t.Why = "the extension READMEs cannot be judged: " + err.Error()
				f.changes.Criteria = append(f.changes.Criteria, rule(CritExtStatus).Criterion(Result{Status: Blocked, Title: fmt.Sprintf("ext/%s: %s → %s", t.Dir, orDash(t.From), orDash(t.To)), Reason: t.Why, Location: &Location{File: t.File, Line: t.Line}}))
				f.rep.ExtTransitions = append(f.rep.ExtTransitions, t)
				findings = nil
				continue
			}
			for _, x := range fs {
				findings[x.Dir] = x
			}
		}
		x, ok := findings[t.Dir]
		title := fmt.Sprintf("ext/%s: %s → %s", t.Dir, orDash(t.From), orDash(t.To))
		loc := &Location{File: t.File, Line: t.Line}
		t.Gated = true
		if !ok {
			// The README is in the change but not where the gate reads the
			// extension directory: say so rather than pass it.
			t.Status, t.Why = Blocked, fmt.Sprintf("%s is not among the extension READMEs the gate reads from disk", t.File)
			f.changes.Criteria = append(f.changes.Criteria, rule(CritExtStatus).Criterion(Result{Status: Blocked, Title: title, Reason: t.Why, Location: loc}))
			f.rep.ExtTransitions = append(f.rep.ExtTransitions, t)
			continue
		}
		t.Status, t.Outcome = Pass, x.Outcome
		if x.Outcome == declaration.ExtFail {
			t.Status = Fail
		}
		t.Why = fmt.Sprintf("a status flip of extension %s: spec.ext-status ran (%s: %s)", t.Dir, x.Outcome, x.Reason)
		f.changes.Criteria = append(f.changes.Criteria, rule(CritExtStatus).Criterion(Result{Status: t.Status, Title: title, Reason: x.Outcome + ": " + x.Reason, Location: loc}))
		if x.Outcome == declaration.ExtGraduable || x.Outcome == declaration.ExtNotYet {
			f.changes.Criteria = append(f.changes.Criteria, rule(CritExtGraduable).Criterion(Result{Status: Fail, Title: title, Reason: x.Outcome + ": " + x.Reason, Location: loc}))
		}
		f.rep.ExtTransitions = append(f.rep.ExtTransitions, t)
	}
	return nil
}
