package gate

import (
	"context"
	"fmt"
	"os/exec"
	"sync"

	"github.com/certcut/certcut/declaration"
)

// suiteTagCache remembers, per suite version, the bundle.suite-identity
// outcome (one git lookup per version per run).
type suiteTagCache struct {
	mu   sync.Mutex
	done map[string]check
}

// suiteAdvisoryCheck decides bundle.suite-advisory: BLOCKED when the bundle's
// suite.version (signed) is in a range of the advisory list.
func (r *Repo) suiteAdvisoryCheck(e *Entry) check {
	c := check{id: CritSuiteAdvisory, title: rule(CritSuiteAdvisory).Title}
	v := e.Bundle.Suite.Version
	if x, ok := r.Advisories.Match(v); ok {
		c.status, c.reason = Blocked, x.Note(v)+fmt.Sprintf(" [advisory list %s]; re-cut on a suite outside the range", r.Advisories.File)
		return c
	}
	c.status, c.reason = Pass, fmt.Sprintf("suite %s is in no range of the advisory list %s", orDash(v), r.Advisories.File)
	return c
}

// suiteIdentityCheck decides bundle.suite-identity: suite.version is a
// published release — a tag v<version> or openwop-conformance/v<version> of the
// spec repository whose commit is reachable from the reviewed base
// (Config.HistoryBase). BLOCKED without a base, outside a git work tree, or when
// no such tag is reachable; FAIL for a version that is not major.minor.patch (a
// pre-release never qualifies: RFC 0224 §B.3).
//
// An outcome reached after ctx was cancelled is returned but not remembered.
func (r *Repo) suiteIdentityCheck(ctx context.Context, e *Entry) check {
	v := e.Bundle.Suite.Version
	r.suiteTags.mu.Lock()
	defer r.suiteTags.mu.Unlock()
	if c, ok := r.suiteTags.done[v]; ok {
		return c
	}
	c := r.suiteIdentityNow(ctx, v)
	if ctx.Err() != nil {
		return c
	}
	if r.suiteTags.done == nil {
		r.suiteTags.done = map[string]check{}
	}
	r.suiteTags.done[v] = c
	return c
}

func (r *Repo) suiteIdentityNow(ctx context.Context, v string) check {
	c := check{id: CritSuiteIdentity, title: rule(CritSuiteIdentity).Title}
	if _, ok := declaration.ParseSuiteVersion(v); !ok {
		c.status, c.reason = Fail, fmt.Sprintf("suite.version %q is not a release version (major.minor.patch): a pre-release or unreleased suite never witnesses an acceptance", v)
		return c
	}
	tags := declaration.SuiteTags(v)
	if r.HistoryBase == "" {
		c.status, c.reason = Blocked, fmt.Sprintf("no reviewed base: whether tag %s or %s is published cannot be decided (pass --history-base REF)", tags[0], tags[1])
		return c
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		c.status, c.reason = Blocked, "git is not installed: the suite's release tags cannot be read"
		return c
	}
	g := gitRunner{ctx: ctx, path: gitPath, dir: r.Root}
	base, ok := g.commitOf(r.HistoryBase)
	if !ok {
		c.status, c.reason = Blocked, fmt.Sprintf("the reviewed base %s names no commit in %s", r.HistoryBase, r.Root)
		return c
	}
	var unreachable []string
	for _, t := range tags {
		commit, ok := g.commitOf("refs/tags/" + t)
		if !ok {
			continue
		}
		in, err := g.isAncestor(commit, base)
		if err != nil {
			c.status, c.reason = Blocked, err.Error()
			return c
		}
		if in {
			c.status, c.reason = Pass, fmt.Sprintf("suite %s is published: tag %s (commit %s) is reachable from the reviewed base %s", v, t, short(commit), ShortRev(r.HistoryBase))
			return c
		}
		unreachable = append(unreachable, t)
	}
	c.status = Blocked
	c.reason = fmt.Sprintf("no tag %s or %s reachable from the reviewed base %s: suite %s is not shown to be a published release", tags[0], tags[1], ShortRev(r.HistoryBase), v)
	if len(unreachable) > 0 {
		c.reason += fmt.Sprintf(" (%v exist, but not on the base)", unreachable)
	}
	return c
}
