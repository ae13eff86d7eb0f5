package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/verify"
)

// FlipsRequest names the change gate flips judges: what Head changes against
// Base, compared from their merge base (as `git diff Base...Head` does), so a
// branch is judged on its own changes whatever landed on Base since.
type FlipsRequest struct {
	// Base is the revision the change starts from: a pull request's base commit,
	// a branch or a tag. Required.
	Base string
	// Head is the revision under review; "" means HEAD. The work tree must have
	// it checked out, with nothing uncommitted under RFCS/ and evidence/ (nor in
	// the policy files): the Accepted gate reads those files from disk.
	Head string
}

// Revision is a revision as it was given and the commit it names.
type Revision struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
}

// FlipsReport is gate flips' verdict on one change.
type FlipsReport struct {
	// Gate is "flips".
	Gate string   `json:"gate"`
	Base Revision `json:"base"`
	Head Revision `json:"head"`
	// MergeBase is the commit the change is compared from (Base's commit when
	// Head descends from it). History up to it is the reviewed history the git
	// binder may use (Config.HistoryBase).
	MergeBase string `json:"mergeBase"`
	// Status is the worst status of Reports and Changes; PASS when nothing was
	// gated.
	Status   Status `json:"status"`
	ExitCode int    `json:"exitCode"`
	// Transitions lists every RFC whose Status differs between the merge base and
	// Head, gated or not, in RFC number order.
	Transitions []Transition `json:"transitions"`
	// ExtTransitions lists every extension README whose Status the change
	// alters, gated with spec.ext-status (flips_ext.go).
	ExtTransitions []ExtTransition `json:"extTransitions,omitempty"`
	// Reports holds one Accepted report per RFC the change flips to Accepted, in
	// the order of Transitions.
	Reports []*Report `json:"reports"`
	// Changes is the report on the rest of the change (gate "flips"): bundles
	// under evidence/ it adds or modifies, RFCs whose Status cannot be read, policy
	// files it edits while flipping an RFC.
	Changes *Report `json:"changes"`
	// Bundles lists every bundle file under evidence/ the change touches.
	Bundles []BundleChange `json:"bundles"`
	// Notes are facts for the reviewer that do not change the status.
	Notes []string `json:"notes"`
}

// Transition is one RFC whose Status the change alters.
type Transition struct {
	Number string `json:"number"`
	// File is the RFC's path at Head (at the merge base when the change deletes
	// it), as the gate reads it from disk.
	File string `json:"file"`
	// BaseFile is its path at the merge base, when the change renames it.
	BaseFile string `json:"baseFile,omitempty"`
	// Change is "added", "deleted", "renamed" or "modified".
	Change string `json:"change"`
	// From and To are the Status values at the merge base and at Head ("" when
	// the file is absent there, or its Status row cannot be read).
	From string `json:"from"`
	To   string `json:"to"`
	// Line is the Status row's line at Head (at the merge base for a deletion; 1
	// when there is no Status row).
	Line int `json:"line"`
	// Gated says the Accepted gate ran; Status is then its verdict. Why says what
	// was gated, or why not.
	Gated  bool   `json:"gated"`
	Status Status `json:"status,omitempty"`
	Why    string `json:"why"`
}

// BundleChange is one bundle file under evidence/ the change touches.
type BundleChange struct {
	File     string `json:"file"`
	BaseFile string `json:"baseFile,omitempty"`
	// Change is "added", "deleted", "renamed" (content unchanged) or "modified"
	// (with or without a rename).
	Change string `json:"change"`
	// Status is the outcome of its criterion ("" for deleted and renamed).
	Status Status `json:"status,omitempty"`
	// Diff is the comparison with the base version, for a modified bundle that
	// reads on both sides.
	Diff *DiffReport `json:"diff,omitempty"`
}

// Criteria of the flips changes report.
const (
	CritStatusUnreadable = "flips.status-unreadable"
	CritRegressions      = "flips.regressions"
	CritNewBundle        = "flips.new-bundle"
	CritPolicy           = "flips.policy"
)

// flipsMaxFindings bounds the regressions listed one by one per bundle.
const flipsMaxFindings = 20

// Flips gates one change: for every RFCS/NNNN-*.md (numbered 0167 or later)
// whose Status the change sets to Accepted — flipped, added already Accepted,
// or renamed and flipped — it runs the Accepted predicate (Repo.Accepted, over
// cfg's repository as checked out, the git binder limited to the merge base);
// every other Status change is listed with why it is not gated. Each bundle
// under evidence/'s subdirectories that the change modifies is compared with
// its base version (Diff; any regression FAILs, as diff --regressions-only),
// and each one it adds must verify (bundle.verified). A changed RFC whose Status
// row cannot be read is BLOCKED, and so is a flip gated while the change edits a
// policy file the gate trusts (the keyring, the host-tier table, the
// harness-trust-anchor list, the corpus ledger, a --tsa-cert file, the
// --registry file). Every policy file inside the work tree is read at Base and
// at Head, and the stricter of the two is trusted (stricterPolicy).
//
// Status is read with package rfc, as gate accepted and gate audit read it.
// cfg.Root is the spec repository, inside a git work tree; the history is read
// with git plumbing only (see flips_git.go). Errors are *InputError: git is
// missing, cfg.Root is not in a work tree, a revision is unknown (in a shallow
// clone: fetch the whole history), Head is not checked out, the work tree has
// uncommitted changes under the gated paths, or a policy file is malformed.
func Flips(ctx context.Context, cfg Config, req FlipsRequest) (*FlipsReport, error) {
	f, err := startFlips(ctx, cfg, req)
	if err != nil {
		return nil, err
	}
	defer func() {
		if f.tmp != "" {
			os.RemoveAll(f.tmp)
		}
	}()
	changes, err := f.g.diffTree(f.rep.MergeBase, f.rep.Head.Commit, f.watched())
	if err != nil {
		return nil, &InputError{Err: err}
	}
	rfcs, bundles, policy := f.classify(changes)
	exts := f.extChanges(changes)
	if err := f.readBlobs(append(append(rfcs, bundles...), exts...)); err != nil {
		return nil, &InputError{Err: err}
	}
	if err := f.gateRFCs(rfcs); err != nil {
		return nil, err
	}
	if err := f.gateExt(exts); err != nil {
		return nil, err
	}
	f.checkBundles(f.followBundleRenames(bundles))
	f.checkPolicy(policy)
	f.checkCorpusRules()
	return f.finish(), nil
}

// flipsRun is one Flips call's state.
type flipsRun struct {
	ctx     context.Context
	cfg     Config
	g       gitRunner // at the top of the work tree
	prefix  string    // cfg.Root from the top of the work tree ("" or "spec/")
	shallow bool
	// policy maps the git path of each policy file inside the work tree to what
	// it is ("the keyring").
	policy map[string]string
	// strict is the policy read at the base and the head (flips_policy.go).
	strict *flipsPolicy
	blobs  map[string][]byte
	// judgedBlobs holds each bundle version judged whole (flips_evidence.go).
	judgedBlobs map[string]*Entry
	history     *historyIndex // evidence/'s history (evidenceHistory)
	// tmp holds the governance files of the merge base and the head, written
	// from git (flips_corpus.go); headGov is the head's, read once.
	tmp     string
	headGov *snapshot
	// keepRows is the row filter of the RFCs the change may gate (gateRFCs),
	// for the repository openRepo loads.
	keepRows func(bundle.Row) bool
	repo     *Repo
	rep      *FlipsReport
	changes  *Report
}

// startFlips checks the request and the repository: git, the work tree, the
// revisions and their merge base, a clean work tree under the gated paths.
func startFlips(ctx context.Context, cfg Config, req FlipsRequest) (*flipsRun, error) {
	fail := func(format string, args ...any) (*flipsRun, error) {
		return nil, &InputError{Err: fmt.Errorf(format, args...)}
	}
	if strings.TrimSpace(req.Base) == "" {
		return fail("no base revision: give the commit, branch or tag the change starts from")
	}
	if req.Head == "" {
		req.Head = "HEAD"
	}
	for _, rev := range []string{req.Base, req.Head} {
		if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n\r") {
			return fail("%q is not a revision", rev)
		}
	}
	if cfg.Root == "" {
		cfg.Root = "."
	}
	cfg = withDefaultPaths(cfg)
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return fail("git is not installed: gate flips reads the repository's history with git")
	}
	g := gitRunner{ctx: ctx, path: gitPath, dir: cfg.Root}
	where, err := g.run("rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		why := cfg.Root + " is not in a git work tree: run gate flips in a clone of the spec repository (in GitHub Actions, actions/checkout with fetch-depth: 0)"
		if !strings.Contains(err.Error(), "not a git repository") {
			why += " (" + err.Error() + ")"
		}
		return fail("%s", why)
	}
	lines := strings.SplitN(strings.TrimRight(string(where), "\n"), "\n", 2)
	if len(lines) != 2 {
		lines = append(lines, "")
	}
	top := lines[0]
	g.dir = top
	f := &flipsRun{ctx: ctx, cfg: cfg, g: g, prefix: lines[1], policy: map[string]string{},
		rep: &FlipsReport{Gate: "flips", Base: Revision{Ref: req.Base}, Head: Revision{Ref: req.Head},
			Transitions: []Transition{}, Reports: []*Report{}, Bundles: []BundleChange{}, Notes: []string{}}}
	if out, err := g.run("rev-parse", "--is-shallow-repository"); err == nil {
		f.shallow = strings.TrimSpace(string(out)) == "true"
	}
	const unshallow = "fetch the whole history (in GitHub Actions, actions/checkout with fetch-depth: 0; locally, git fetch --unshallow)"
	resolve := func(role, rev string) (string, error) {
		if c, ok := g.commitOf(rev); ok {
			return c, nil
		}
		if f.shallow {
			return "", &InputError{Err: fmt.Errorf("%s revision %s is not in this clone, which is shallow: %s", role, rev, unshallow)}
		}
		return "", &InputError{Err: fmt.Errorf("%s revision %s names no commit in this clone: fetch it (git fetch origin %s), or give a commit, branch or tag the clone has", role, rev, rev)}
	}
	rep := f.rep
	if rep.Base.Commit, err = resolve("base", req.Base); err != nil {
		return nil, err
	}
	if rep.Head.Commit, err = resolve("head", req.Head); err != nil {
		return nil, err
	}
	checkedOut, ok := g.commitOf("HEAD")
	if !ok {
		return fail("the work tree at %s has no commit checked out", top)
	}
	if checkedOut != rep.Head.Commit {
		return fail("head revision %s is commit %s, but the work tree has %s checked out: the Accepted gate reads the checked-out files, so check out %s first (git checkout %s)", req.Head, short(rep.Head.Commit), short(checkedOut), req.Head, req.Head)
	}
	mb, err := g.run("merge-base", rep.Base.Commit, rep.Head.Commit)
	if err != nil {
		if f.shallow {
			return fail("base %s and head %s: their merge base is not in this clone, which is shallow: %s", req.Base, req.Head, unshallow)
		}
		return fail("base %s and head %s share no history (%v)", req.Base, req.Head, err)
	}
	rep.MergeBase = strings.TrimSpace(string(mb))
	if rep.MergeBase != rep.Base.Commit {
		rep.Notes = append(rep.Notes, fmt.Sprintf("compared from %s, the merge base of %s and %s: the changes %s made since are not this change's", short(rep.MergeBase), req.Base, req.Head, req.Base))
	}
	if f.shallow {
		rep.Notes = append(rep.Notes, "the clone is shallow, so the git binder is not used for bundle.tier (fetch the whole history: actions/checkout with fetch-depth: 0)")
	}
	f.registerPolicy(top)
	if dirty, err := g.dirty(append(f.watched(), f.governanceGitPaths()...)); err != nil {
		return nil, &InputError{Err: err}
	} else if len(dirty) > 0 {
		return fail("uncommitted changes the gate would read: %s. gate flips compares commits but reads the work tree: commit or stash them", firstN(dirty, 3))
	}
	if err := f.stricterPolicy(); err != nil {
		return nil, err
	}
	cfg = f.cfg
	var hostKeys int
	var tsaCerts []string
	if cfg.Loader != nil {
		hostKeys = len(cfg.Loader.Options.HostKeys)
		tsaCerts = cfg.Loader.Options.TSA.Subjects()
	}
	f.changes = &Report{Gate: "flips", Subject: "the change's evidence and policy",
		Settings: Settings{Keyring: cfg.KeyringPath, HostKeys: hostKeys, MinTier: cfg.MinTier, Live: cfg.Live, TrustUnsignedOrigin: cfg.TrustUnsignedOrigin, HistoryBase: rep.MergeBase,
			RequireTimestamp: cfg.RequireTimestamp, TSACerts: tsaCerts}}
	rep.Changes = f.changes
	return f, nil
}

// The git paths the change is read under: RFCS/, evidence/ and the policy files.
func (f *flipsRun) rfcsDir() string     { return f.prefix + "RFCS/" }
func (f *flipsRun) evidenceDir() string { return f.prefix + "evidence/" }

func (f *flipsRun) watched() []string {
	out := []string{f.rfcsDir(), f.evidenceDir(), f.extGitDir()}
	for gp := range f.policy {
		out = append(out, gp)
	}
	sort.Strings(out)
	return out
}

// toDisk is a git path as the gate reads it from disk (under cfg.Root, as the
// caller wrote it), so reports and annotations name files as the user does.
func (f *flipsRun) toDisk(gitPath string) string {
	return filepath.Join(f.cfg.Root, filepath.FromSlash(strings.TrimPrefix(gitPath, f.prefix)))
}

// classify sorts the changes into RFCs, bundles and policy files (anything
// else under evidence/ is neither). An RFC renamed to another number is a
// deletion and an addition; one deleted and added under another name with the
// same number is a rename.
func (f *flipsRun) classify(changes []treeChange) (rfcs, bundles, policy []treeChange) {
	for _, c := range changes {
		switch {
		case isRFCPath(c.SrcPath, f.rfcsDir()) || isRFCPath(c.DstPath, f.rfcsDir()):
			// A file moved into or out of RFCS/ is added or deleted as an RFC.
			if c.SrcPath != "" && !isRFCPath(c.SrcPath, f.rfcsDir()) {
				c = treeChange{Status: 'A', SrcMode: "000000", DstMode: c.DstMode, DstBlob: c.DstBlob, DstPath: c.DstPath}
			} else if c.DstPath != "" && !isRFCPath(c.DstPath, f.rfcsDir()) {
				c = treeChange{Status: 'D', DstMode: "000000", SrcMode: c.SrcMode, SrcBlob: c.SrcBlob, SrcPath: c.SrcPath}
			}
			rfcs = append(rfcs, c)
		case f.policy[c.path()] != "" || f.policy[c.SrcPath] != "":
			policy = append(policy, c)
		case isBundlePath(c.path(), f.evidenceDir()):
			bundles = append(bundles, c)
		}
	}
	rfcs = pairRenamedRFCs(splitRenames(rfcs, func(c treeChange) bool { return rfcNumber(c.SrcPath) == rfcNumber(c.DstPath) }))
	sort.SliceStable(rfcs, func(i, j int) bool { return rfcs[i].path() < rfcs[j].path() })
	sort.SliceStable(bundles, func(i, j int) bool { return bundles[i].path() < bundles[j].path() })
	return rfcs, bundles, policy
}

// readBlobs reads both sides of every change with one git cat-file --batch.
func (f *flipsRun) readBlobs(changes []treeChange) error {
	f.blobs = map[string][]byte{}
	var specs []string
	for _, c := range changes {
		for _, b := range []string{c.SrcBlob, c.DstBlob} {
			if b != "" && strings.Trim(b, "0") != "" {
				specs = append(specs, b)
			}
		}
	}
	if len(specs) == 0 {
		return nil
	}
	blobs, err := f.g.blobs(specs)
	if err != nil {
		return err
	}
	for i, s := range specs {
		f.blobs[s] = blobs[i]
	}
	return nil
}

// blob is a version's content; false for a symbolic link, a submodule, a file
// absent on that side or larger than a bundle may be.
func (f *flipsRun) blob(id, mode string) ([]byte, bool) {
	if !regular(mode) {
		return nil, false
	}
	d, ok := f.blobs[id]
	return d, ok && d != nil
}

// openRepo opens cfg's repository for the Accepted gate once, the git binder
// limited to the merge base.
func (f *flipsRun) openRepo() (*Repo, error) {
	if f.repo != nil {
		return f.repo, nil
	}
	c := f.cfg
	if l := c.Loader; l != nil && l.KeepRow == nil {
		// Keep only the rows the gated RFCs and the extension rule read: a
		// spec repository's bundles hold hundreds of rows each.
		keep := f.keepRows
		c.Loader = &Loader{Options: l.Options, Workers: l.Workers, Progress: l.Progress, KeepRow: func(row bundle.Row) bool {
			return (keep != nil && keep(row)) || familyRowRE().MatchString(row.ID)
		}}
	}
	c.HistoryBase = f.rep.MergeBase
	if f.shallow {
		c.HistoryBase = "" // the binder refuses a shallow clone anyway, saying so
	}
	r, err := Open(f.g.ctx, c)
	if err != nil {
		return nil, err
	}
	f.strict.apply(r)
	f.repo = r
	return r, nil
}

// CritFlipsNumber is the flips criterion for an RFC whose number the change
// leaves undecidable or moves.
const CritFlipsNumber = "flips.rfc-number"

// rfcSide is one version of a changed RFC file, parsed.
type rfcSide struct {
	path string // git path
	x    *rfc.RFC
}

// gateRFCs lists each Status change and gates each change to Accepted. An
// RFC's number is the one its header states (rfc.RFC.Number): a head version
// whose file name, header or title disagree, a version whose header number the
// change alters, an RFC renumbered by deleting it and adding it under another
// number (same title and Created date), and an RFC added already Accepted
// under a number below 0167 are BLOCKED (CritFlipsNumber), both numbers named.
func (f *flipsRun) gateRFCs(changes []treeChange) error {
	rep := f.rep
	editedAccepted := 0
	befores := make([]rfcSide, len(changes))
	afters := make([]rfcSide, len(changes))
	headReadable := make([]bool, len(changes))
	for i, c := range changes {
		if text, ok := f.blob(c.SrcBlob, c.SrcMode); ok && c.SrcPath != "" {
			befores[i] = rfcSide{c.SrcPath, rfc.Parse(f.toDisk(c.SrcPath), string(text))}
		}
		headReadable[i] = true
		if c.DstPath != "" {
			text, ok := f.blob(c.DstBlob, c.DstMode)
			switch {
			case !ok:
				headReadable[i] = false
			case len(text) > limitedfile.MaxPolicy:
				return &InputError{Err: fmt.Errorf("%s is larger than %d bytes, the cap for an RFC", f.toDisk(c.DstPath), limitedfile.MaxPolicy)}
			default:
				afters[i] = rfcSide{c.DstPath, rfc.Parse(f.toDisk(c.DstPath), string(text))}
			}
		}
	}
	var accepted []AcceptedRequest // every RFC Accepted at head: those the loop may gate
	for _, a := range afters {
		if a.x != nil && a.x.Status == rfc.StatusAccepted {
			accepted = append(accepted, AcceptedRequest{RFC: a.x})
		}
	}
	f.keepRows = KeepRowsFor(accepted...)
	renumbered := f.renumberedRFCs(changes, befores, afters)
	var deleted []string // "RFC 0236 (RFCS/0236-….md)" for each RFC file the change deletes
	for i, c := range changes {
		if c.DstPath == "" && befores[i].x != nil {
			deleted = append(deleted, fmt.Sprintf("RFC %s (%s)", befores[i].x.Number, f.toDisk(c.SrcPath)))
		}
	}
	for i, c := range changes {
		t := Transition{File: f.toDisk(c.path()), Number: rfcNumber(c.path()), Change: changeWord(c)}
		if c.SrcPath != "" && c.DstPath != "" && c.SrcPath != c.DstPath {
			t.BaseFile = f.toDisk(c.SrcPath)
		}
		before, after := befores[i].x, afters[i].x
		if before != nil {
			t.From, t.Line, t.Number = string(before.Status), before.StatusLine, before.Number
		}
		if after != nil {
			t.To, t.Line, t.Number = string(after.Status), after.StatusLine, after.Number
		}
		if t.Line == 0 {
			t.Line = 1
		}
		num, _ := strconv.Atoi(t.Number)
		if problem := f.numberProblem(c, before, after, renumbered[i], deleted); problem != "" {
			t.Why = "its number cannot be decided: " + problem
			line := 1
			if after != nil && after.NumberField.Line > 0 {
				line = after.NumberField.Line
			}
			f.changes.Criteria = append(f.changes.Criteria, rule(CritFlipsNumber).Criterion(Result{Status: Blocked,
				Reason: fmt.Sprintf("%s: %s", t.File, problem), Location: &Location{File: t.File, Line: line}}))
			rep.Transitions = append(rep.Transitions, t)
			continue
		}
		unreadable := c.DstPath != "" && (!headReadable[i] || after.Status == "")
		if t.From == t.To && (!unreadable || num < AuditFirstRFC) {
			if t.To == string(rfc.StatusAccepted) && num >= AuditFirstRFC {
				editedAccepted++
			}
			continue // no Status change: a rename or an edit
		}
		switch {
		case num < AuditFirstRFC:
			t.Why = fmt.Sprintf("numbered below %04d: the Accepted predicate does not apply (RFC 0174 §B.1; gate audit skips it too)", AuditFirstRFC)
		case unreadable:
			t.Why = "its Status row cannot be read"
			reason := fmt.Sprintf("%s: %s; so whether the change flips it to Accepted cannot be decided", t.File, orDash(statusProblem(after)))
			if !headReadable[i] {
				reason = fmt.Sprintf("%s is not a regular file at head (a symbolic link, a submodule, or larger than %d bytes), so its Status cannot be read", t.File, limitedfile.MaxBundle)
			}
			f.changes.Criteria = append(f.changes.Criteria, rule(CritStatusUnreadable).Criterion(Result{Status: Blocked,
				Reason: reason, Location: &Location{File: t.File, Line: t.Line}}))
		case c.DstPath == "":
			t.Why = "the change deletes the RFC file; only a flip to Accepted is gated"
		case t.To == string(rfc.StatusAccepted):
			r, err := f.openRepo()
			if err != nil {
				return err
			}
			acc := r.Accepted(f.ctx, AcceptedRequest{RFC: after})
			t.Gated, t.Status = true, acc.Status
			t.Why = "flipped to Accepted: the Accepted predicate ran"
			if t.From == "" {
				t.Why = "added already Accepted: the Accepted predicate ran"
			}
			rep.Reports = append(rep.Reports, acc)
		case t.From == string(rfc.StatusAccepted):
			t.Why = "leaves Accepted; only a flip to Accepted is gated (gate audit no longer checks it)"
		default:
			t.Why = "only a flip to Accepted is gated"
		}
		rep.Transitions = append(rep.Transitions, t)
	}
	sort.SliceStable(rep.Transitions, func(i, j int) bool { return rep.Transitions[i].Number < rep.Transitions[j].Number })
	sort.SliceStable(rep.Reports, func(i, j int) bool { return rep.Reports[i].RFC.Number < rep.Reports[j].RFC.Number })
	f.checkCoherence()
	if editedAccepted > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d Accepted RFC(s) edited without a Status change: not gated here (bundle gate audit checks the register)", editedAccepted))
	}
	return nil
}

func statusProblem(x *rfc.RFC) string {
	if x == nil {
		return ""
	}
	return x.StatusProblem
}

// numberProblem says why a changed RFC's number cannot be trusted, naming both
// numbers; "" when it can.
func (f *flipsRun) numberProblem(c treeChange, before, after *rfc.RFC, renumberedFrom *rfcSide, deleted []string) string {
	switch {
	case after == nil:
		return ""
	case after.NumberProblem != "":
		return after.NumberProblem
	case before != nil && before.Number != after.Number:
		return fmt.Sprintf("the change renumbers RFC %s (%s at the merge base) to RFC %s: a renumber is a Withdrawn file at the old number with a forward pointer (RFC 0174 §A.3), never an edit or a rename", before.Number, f.toDisk(c.SrcPath), after.Number)
	case renumberedFrom != nil:
		return fmt.Sprintf("the change deletes RFC %s (%s) and adds it, same title and Created date, as RFC %s: a renumber is a Withdrawn file at the old number with a forward pointer (RFC 0174 §A.3), never a rename", renumberedFrom.x.Number, f.toDisk(renumberedFrom.path), after.Number)
	case before == nil && after.Status == rfc.StatusAccepted:
		if n, _ := strconv.Atoi(after.Number); n < AuditFirstRFC {
			also := ""
			if len(deleted) > 0 {
				also = "; the change also deletes " + strings.Join(deleted, ", ") + ", which this may be renumbered from"
			}
			return fmt.Sprintf("the change adds RFC %s already Accepted, numbered below %04d where the Accepted predicate does not apply: numbers below %04d were filed before it and are never reused (RFC 0174 §A.3); a new RFC takes the next free number%s", after.Number, AuditFirstRFC, AuditFirstRFC, also)
		}
	}
	return ""
}

// renumberedRFCs pairs each RFC the change adds with one it deletes under
// another number when both state the same title and Created date: the same
// RFC moved to a new number (git's similarity pairing is not used: two
// RFCs written from one template are alike).
func (f *flipsRun) renumberedRFCs(changes []treeChange, befores, afters []rfcSide) []*rfcSide {
	out := make([]*rfcSide, len(changes))
	key := func(x *rfc.RFC) string {
		created := strings.TrimSpace(x.Field("Created").Value)
		if x.Title == "" || created == "" || created == "—" {
			return ""
		}
		return x.Title + "\x00" + created
	}
	deleted := map[string]*rfcSide{}
	for i, c := range changes {
		if c.DstPath == "" && befores[i].x != nil {
			if k := key(befores[i].x); k != "" {
				deleted[k] = &befores[i]
			}
		}
	}
	for i, c := range changes {
		if c.SrcPath != "" || afters[i].x == nil {
			continue
		}
		if d := deleted[key(afters[i].x)]; d != nil && key(afters[i].x) != "" && d.x.Number != afters[i].x.Number {
			out[i] = d
		}
	}
	return out
}

// followBundleRenames keeps a bundle "renamed" with edits as one re-cut, to be
// compared with its old version, when both versions come from one signer
// (sameSigner: signed facts) or name the same host: git pairs files by
// similarity, and two hosts' bundles of one suite are alike. A deleted and an
// added bundle from one signer are paired too, whatever git saw (pairBySigner).
func (f *flipsRun) followBundleRenames(changes []treeChange) []treeChange {
	return f.pairBySigner(splitRenames(changes, func(c treeChange) bool {
		if c.SrcBlob == c.DstBlob {
			return true
		}
		before, after := f.judgeVersion(c, true), f.judgeVersion(c, false)
		return sameSigner(before, after) || sameHostNamed(before, after)
	}))
}

// checkBundles diffs each modified bundle with its base version and judges
// each added one as the Accepted gate would (verified, and its key in service).
func (f *flipsRun) checkBundles(changes []treeChange) {
	for _, c := range changes {
		bc := BundleChange{File: f.toDisk(c.path()), Change: changeWord(c)}
		if c.SrcPath != "" && c.DstPath != "" && c.SrcPath != c.DstPath {
			bc.BaseFile = f.toDisk(c.SrcPath)
		}
		switch {
		case c.DstPath == "":
			f.rep.Notes = append(f.rep.Notes, fmt.Sprintf("the change deletes %s: not gated here (bundle gate audit checks that every Accepted RFC keeps a witness)", bc.File))
			if crit := f.payloadCopyCriterion(c, f.judgeVersion(c, true), nil); crit != nil {
				bc.Status = crit.Status
				f.changes.Criteria = append(f.changes.Criteria, *crit)
			}
		case c.SrcPath != "" && c.SrcBlob == c.DstBlob && c.SrcMode == c.DstMode:
			bc.Change = "renamed"
		default:
			before := f.judgeVersion(c, true)
			var after *Entry
			if before == nil || before.Bundle == nil {
				after = f.loadAdded(c)
			} else {
				after = f.judgeVersion(c, false)
			}
			var d *DiffReport // computed once, for the criterion and the report
			if before != nil && before.Bundle != nil && after != nil && after.Bundle != nil {
				d = Diff(before, after)
			}
			crit := bundleChangeCriterion(bc.File, before, after, d, f.cfg.RequireTimestamp)
			if crit.ID == CritRegressions {
				bc.Diff = d
			}
			bc.Status = crit.Status
			f.changes.Criteria = append(f.changes.Criteria, crit)
			if cp := f.payloadCopyCriterion(c, before, after); cp != nil {
				bc.Status = worse(bc.Status, cp.Status)
				f.changes.Criteria = append(f.changes.Criteria, *cp)
			}
		}
		f.rep.Bundles = append(f.rep.Bundles, bc)
	}
}

// checkPolicy BLOCKs a flip gated beside an edit of a policy file, and notes
// such an edit otherwise.
func (f *flipsRun) checkPolicy(changes []treeChange) {
	if len(changes) == 0 {
		return
	}
	var names []string
	var findings []Finding
	for _, c := range changes {
		what := f.policy[c.path()]
		if what == "" {
			what = f.policy[c.SrcPath]
		}
		names = append(names, fmt.Sprintf("%s (%s)", f.toDisk(c.path()), what))
		findings = append(findings, Finding{Message: "edited by the change under review: " + f.toDisk(c.path()), Location: &Location{File: f.toDisk(c.path())}})
	}
	if len(f.rep.Reports) == 0 {
		f.rep.Notes = append(f.rep.Notes, "the change edits "+strings.Join(names, ", ")+"; it flips no RFC, so nothing here rests on that edit (review it like code)")
		return
	}
	f.changes.Criteria = append(f.changes.Criteria, rule(CritPolicy).Criterion(Result{Status: Blocked,
		Reason:   fmt.Sprintf("the change edits %s and flips an RFC to Accepted: the verdict would rest on policy the change itself wrote. Pin keys and place hosts in a pull request of their own, reviewed, then flip", strings.Join(names, ", ")),
		Findings: findings}))
}

// finish sets the status: the worst of the changes report and each Accepted
// report.
func (f *flipsRun) finish() *FlipsReport {
	rep := f.rep
	if len(rep.Transitions) == 0 && len(rep.Bundles) == 0 && len(f.changes.Criteria) == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no RFC Status changed and no bundle under %s changed: nothing to gate", f.toDisk(f.evidenceDir())))
	}
	f.changes.finish()
	rep.Status = f.changes.Status
	for _, r := range rep.Reports {
		rep.Status = worse(rep.Status, r.Status)
	}
	rep.ExitCode = rep.Status.ExitCode()
	return rep
}

// withDefaultPaths fills the policy paths Open would default, so Flips can tell
// which changed files are policy.
func withDefaultPaths(cfg Config) Config {
	if cfg.TiersFile == "" {
		cfg.TiersFile = filepath.Join(cfg.Root, "evidence", "host-tiers.json")
	}
	if cfg.AnchorsFile == "" {
		cfg.AnchorsFile = filepath.Join(cfg.Root, "spec", "v2", "harness-trust-anchors.json")
	}
	if cfg.DeclarationFile == "" {
		cfg.DeclarationFile = filepath.Join(cfg.Root, "spec", "v2", "declaration.json")
	}
	if cfg.CapabilitiesFile == "" {
		cfg.CapabilitiesFile = filepath.Join(cfg.Root, "schemas", "v2", "capabilities.schema.json")
	}
	return cfg
}

// judgeBytes reads and judges one version of a bundle file with opts, as the
// Loader judges a file on disk.
func judgeBytes(name string, data []byte, opts verify.Options) *Entry {
	sum := sha256.Sum256(data)
	e := &Entry{File: name, Sha256: hex.EncodeToString(sum[:])}
	b, problems, err := bundle.Parse(data)
	if err != nil {
		e.Err = fmt.Errorf("not a bundle: the file is not valid I-JSON: %w", err)
		return e
	}
	e.Verdict = verify.Bundle(b, problems, opts)
	e.Bundle = factsOf(b, nil) // every row: a version is diffed whole
	if d := b.Discovery.Document; d != nil {
		c := d.Clone()
		e.Bundle.Discovery.Document = &c
	}
	if v, ok := payloadOf(b.Raw); ok {
		v.ok = true
		e.signed = v
	}
	return e
}

// bundleChangeCriterion judges one bundle the change adds (before nil, or not a
// bundle at base: bundle.verified and bundle.key, requireTimestamp as
// --require-timestamp) or modifies (its regressions against before: d, the
// Diff of the two, set whenever both are bundles).
func bundleChangeCriterion(file string, before, after *Entry, d *DiffReport, requireTimestamp bool) Criterion {
	loc := &Location{File: file}
	if after == nil || after.Bundle == nil {
		id := RuleID(CritNewBundle)
		if before != nil && before.Bundle != nil {
			id = CritRegressions
		}
		res := Result{Status: Fail, Location: loc}
		switch {
		case after == nil:
			res.Reason = fmt.Sprintf("%s is not a regular file at head, or is larger than %d bytes: not a bundle", file, limitedfile.MaxBundle)
		default:
			res.Reason = fmt.Sprintf("%s is %s", file, errString(after.Err))
		}
		return rule(id).Criterion(res)
	}
	ref := after.Ref()
	if before == nil || before.Bundle == nil {
		ch := addedCheck(after, requireTimestamp)
		return rule(CritNewBundle).Criterion(Result{Status: ch.status, Reason: ch.reason, Bundle: &ref, Location: loc})
	}
	res := Result{Bundle: &ref, Location: loc}
	if len(d.Regressions) == 0 {
		res.Status, res.Reason = Pass, fmt.Sprintf("no regression against %s (sha256 %s, %s → %s)", before.File, short(before.Sha256), d.A.Verdict, d.B.Verdict)
		return rule(CritRegressions).Criterion(res)
	}
	res.Status, res.Reason = Fail, fmt.Sprintf("%d regression(s) against %s (sha256 %s, %s → %s): %s", len(d.Regressions), before.File, short(before.Sha256), d.A.Verdict, d.B.Verdict, firstN(d.Regressions, 2))
	for i, r := range d.Regressions {
		if i == flipsMaxFindings {
			res.Findings = append(res.Findings, Finding{Message: fmt.Sprintf("… and %d more regression(s): bundle diff --regressions-only lists them all", len(d.Regressions)-i), Location: loc})
			break
		}
		res.Findings = append(res.Findings, Finding{Message: "regression: " + r, Location: loc})
	}
	return rule(CritRegressions).Criterion(res)
}
