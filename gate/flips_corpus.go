package gate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/certcut/certcut/internal/lazyre"
	"github.com/certcut/certcut/internal/limitedfile"
)

// CritCorpusRules is the change's criterion of the repository-wide governance
// rules (the ones gate audit's repository report runs): what the change
// introduces fails it, what was already there at the merge base does not.
const CritCorpusRules = "flips.corpus-rules"

func init() {
	declare(func() {
		register(Rule{ID: CritCorpusRules, Title: "the change introduces no finding of the repository's governance rules",
			Source: "certcut: the repository rules of gate audit (supersession pointers, Stable banners, waiver and gap/risk registers) run on the merge base's and the head's committed files; a finding at head that the base does not have is the change's",
			Gates:  []string{"flips"}, Anchor: "gate-flips---base-ref"})
	})
}

// governancePaths are the files and directories the governance rules read
// (governance, registerCriteria), from the spec repository's root.
var governancePaths = []string{"RFCS", "spec/v2", v1SpecPath, "docs/WAIVER-RETROSPECTIVE-REGISTER.md", "docs/witness-baseline.json", schemasReadmePath, scenariosPath}

// governanceGitPaths are governancePaths as git paths of the work tree. gate
// flips refuses to run when any has uncommitted changes: the Accepted report of
// a flip reads them from the checked-out files.
func (f *flipsRun) governanceGitPaths() []string {
	out := make([]string, len(governancePaths))
	for i, p := range governancePaths {
		out[i] = f.prefix + p
	}
	return out
}

// snapshot is the governance inputs of one commit, written from git's blobs
// into a private directory: the rules read the commit, never the work tree.
type snapshot struct {
	commit string
	dir    string // the spec repository's root inside the private directory
	gov    *governance
	// skipped lists the files larger than a policy file may be, not written.
	skipped []string
}

// governanceAt reads the governance inputs of commit from git (ls-tree and
// one cat-file --batch) into a new directory under f.tmp and loads them.
func (f *flipsRun) governanceAt(commit string) (*snapshot, error) {
	if f.tmp == "" {
		d, err := os.MkdirTemp("", "certcut-flips-")
		if err != nil {
			return nil, err
		}
		f.tmp = d
	}
	dir, err := os.MkdirTemp(f.tmp, "tree-")
	if err != nil {
		return nil, err
	}
	s := &snapshot{commit: commit, dir: dir}
	out, err := f.g.run(append([]string{"ls-tree", "-r", "-z", "-l", "--full-tree", commit, "--"}, f.governanceGitPaths()...)...)
	if err != nil {
		return nil, err
	}
	var ids, paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, gitPath, ok := strings.Cut(string(rec), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || fields[1] != "blob" || !regular(fields[0]) {
			continue // a symlink, a submodule, or the empty record at the end
		}
		rel := strings.TrimPrefix(gitPath, f.prefix)
		if size, err := strconv.ParseInt(fields[3], 10, 64); err != nil || size > limitedfile.MaxPolicy || !filepath.IsLocal(filepath.FromSlash(rel)) {
			s.skipped = append(s.skipped, gitPath)
			continue
		}
		ids, paths = append(ids, fields[2]), append(paths, rel)
	}
	var writeErr error
	err = f.g.eachBlob(ids, func(i int, data []byte) {
		if writeErr != nil {
			return
		}
		if data == nil {
			s.skipped = append(s.skipped, f.prefix+paths[i])
			return
		}
		p := filepath.Join(dir, filepath.FromSlash(paths[i]))
		if writeErr = os.MkdirAll(filepath.Dir(p), 0o700); writeErr == nil {
			writeErr = os.WriteFile(p, data, 0o600)
		}
	})
	if err == nil {
		err = writeErr
	}
	if err != nil {
		return nil, err
	}
	s.gov = loadGovernance(filepath.Join(dir, "RFCS"))
	return s, nil
}

// headGovernance is the governance of the head commit (read once).
func (f *flipsRun) headGovernance() (*snapshot, error) {
	if f.headGov == nil {
		s, err := f.governanceAt(f.rep.Head.Commit)
		if err != nil {
			return nil, err
		}
		f.headGov = s
	}
	return f.headGov, nil
}

// shown rewrites a criterion read from a snapshot so that it names files as
// the work tree has them (under cfg.Root, as the user wrote it): the head is
// checked out, so the head's files are those.
func (f *flipsRun) shown(s *snapshot, c Criterion) Criterion {
	root := filepath.Clean(f.cfg.Root)
	from, to := s.dir+string(filepath.Separator), root+string(filepath.Separator)
	if root == "." {
		to = ""
	}
	fix := func(x string) string {
		if x == s.dir {
			return root
		}
		return strings.ReplaceAll(x, from, to)
	}
	c.Reason = fix(c.Reason)
	if c.Location != nil {
		l := *c.Location
		l.File = fix(l.File)
		c.Location = &l
	}
	fs := make([]Finding, len(c.Findings))
	for i, x := range c.Findings {
		x.Message = fix(x.Message)
		if x.Location != nil {
			l := *x.Location
			l.File = fix(l.File)
			x.Location = &l
		}
		fs[i] = x
	}
	if c.Findings != nil {
		c.Findings = fs
	}
	return c
}

// governanceChanged reports whether the change touches a file the governance
// rules read; when it does not, both commits give the rules the same input.
func (f *flipsRun) governanceChanged() (bool, error) {
	out, err := f.g.run(append([]string{"diff-tree", "-r", "--name-only", "-z", "--no-renames", f.rep.MergeBase, f.rep.Head.Commit, "--"}, f.governanceGitPaths()...)...)
	if err != nil {
		return false, err
	}
	return len(bytes.Trim(out, "\x00")) > 0, nil
}

// checkCorpusRules runs the repository's governance rules (repositoryReport)
// on the merge base and on the head, both read from git, and FAILs the change
// for each finding the head has that the base does not (flips.corpus-rules).
// A finding is told by its rule, its file and its message with line numbers
// left out, so that lines an unrelated edit moved are not new findings; a
// criterion without findings is introduced when its status is worse at head.
// Warning rules never fail it. Run only when the change touches what the rules
// read.
func (f *flipsRun) checkCorpusRules() {
	r := rule(CritCorpusRules)
	changed, err := f.governanceChanged()
	if err == nil && !changed {
		return
	}
	var base, head *snapshot
	if err == nil {
		base, err = f.governanceAt(f.rep.MergeBase)
	}
	if err == nil {
		head, err = f.headGovernance()
	}
	if err != nil {
		f.changes.Criteria = append(f.changes.Criteria, r.Criterion(Result{Status: Blocked,
			Reason: "the governance files of the merge base and the head cannot be read from git: " + err.Error()}))
		return
	}
	before := map[string]int{}
	baseStatus := map[string]Status{}
	for _, c := range repositoryReport(base.gov, Settings{}).Criteria {
		c = f.shown(base, c)
		baseStatus[string(c.ID)+"\x00"+c.Title] = worse(baseStatus[string(c.ID)+"\x00"+c.Title], c.Status)
		for _, k := range findingKeys(c) {
			before[k]++
		}
	}
	var introduced []Finding
	var rules []string
	held := 0
	for _, c := range repositoryReport(head.gov, Settings{}).Criteria {
		if c.Warning || c.Status == Pass {
			continue // a warning never fails a report; a PASS has nothing to introduce
		}
		c = f.shown(head, c)
		var added []Finding
		if len(c.Findings) == 0 {
			// A criterion without findings (a count against a ratchet, an input
			// that cannot be read) is introduced when its status got worse.
			if was, ok := baseStatus[string(c.ID)+"\x00"+c.Title]; !ok || worse(was, c.Status) != was {
				added = append(added, Finding{Message: c.Reason, Location: c.Location})
			} else {
				held++
			}
		}
		for i, k := range findingKeys(c) {
			if before[k] > 0 {
				before[k]--
				held++
				continue
			}
			added = append(added, c.Findings[i])
		}
		for _, x := range added {
			x.Message = string(c.ID) + ": " + x.Message
			introduced = append(introduced, x)
		}
		if len(added) > 0 && !slices.Contains(rules, string(c.ID)) {
			rules = append(rules, string(c.ID))
		}
	}
	for _, s := range []*snapshot{base, head} {
		if len(s.skipped) > 0 {
			f.rep.Notes = append(f.rep.Notes, fmt.Sprintf("%s: %s not read by the governance rules (not a blob, or larger than %d bytes)", short(s.commit), firstN(s.skipped, 3), limitedfile.MaxPolicy))
		}
	}
	if len(introduced) == 0 {
		reason := "the change introduces no finding of the repository's governance rules"
		if held > 0 {
			reason += fmt.Sprintf(" (%d finding(s) at head were already at the merge base %s: gate audit lists them)", held, short(f.rep.MergeBase))
		}
		f.changes.Criteria = append(f.changes.Criteria, r.Criterion(Result{Status: Pass, Reason: reason}))
		return
	}
	sort.Strings(rules)
	res := Result{Status: Fail, Reason: fmt.Sprintf("the change introduces %d finding(s) of %s that the merge base %s does not have; first: %s",
		len(introduced), strings.Join(rules, ", "), short(f.rep.MergeBase), introduced[0].Message)}
	for i, x := range introduced {
		if i == flipsMaxFindings {
			res.Findings = append(res.Findings, Finding{Message: fmt.Sprintf("… and %d more: bundle gate audit lists them all", len(introduced)-i)})
			break
		}
		res.Findings = append(res.Findings, x)
	}
	f.changes.Criteria = append(f.changes.Criteria, r.Criterion(res))
}

// lineRE() matches what a line number looks like in a finding's message.
var lineRE = lazyre.New(`(\bline |\.md:|\.json:)\d+`)

// findingKeys are the identities of a criterion's findings: rule, file and
// message, line numbers left out.
func findingKeys(c Criterion) []string {
	key := func(msg string, loc *Location) string {
		file := ""
		if loc != nil {
			file = loc.File
		}
		return string(c.ID) + "\x00" + file + "\x00" + lineRE().ReplaceAllString(msg, "$1#")
	}
	out := make([]string, len(c.Findings))
	for i, x := range c.Findings {
		out[i] = key(x.Message, x.Location)
	}
	return out
}
