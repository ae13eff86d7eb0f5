package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/verify"
)

// AcceptedRequest says what to gate: an RFC file, explicit ids, or both.
type AcceptedRequest struct {
	// RFC is a parsed RFC (nil: only the explicit ids are gated).
	RFC *rfc.RFC
	// Require are explicit host-tier ids (already expanded, see ExpandIDs).
	Require []string
	// RequireCorpus are explicit ids witnessed by the corpus ledger.
	RequireCorpus []string

	// gov is the repository's governance, loaded once by Audit (nil: read
	// from the RFC file's repository).
	gov *governance
	// Tree is every RFC of the RFC's directory (rfc.LoadTree), for the rules
	// that look across RFCs: the program parent and children, and the ids
	// other v2-era RFCs declare. nil: read from the RFC's directory.
	Tree *rfc.Tree
}

// ExpandIDs expands command-line ids: a full id, NNNN.slug (openwop.requirement.
// implied), or .slug reusing the RFC number of the previous id. Anything else is
// an error naming the argument.
func ExpandIDs(args []string) ([]string, error) {
	var out []string
	number := ""
	for _, a := range args {
		id := strings.TrimSpace(a)
		switch {
		case strings.HasPrefix(id, rfc.RequirementPrefix):
		case strings.HasPrefix(id, "."):
			if number == "" {
				return nil, fmt.Errorf("id %q reuses the previous RFC number, but no id came before it", a)
			}
			id = rfc.RequirementPrefix + number + id
		default:
			id = rfc.RequirementPrefix + id
		}
		if ids := rfc.ExpandIDs("`" + id + "`"); len(ids) != 1 || ids[0] != id {
			return nil, fmt.Errorf("%q is not a requirement id (give openwop.requirement.NNNN.slug, NNNN.slug, or .slug after one of those)", a)
		}
		number = strings.SplitN(strings.TrimPrefix(id, rfc.RequirementPrefix), ".", 2)[0]
		out = append(out, id)
	}
	return out, nil
}

// RowFilter returns what a Loader (Loader.KeepRow) must keep of each bundle for
// Accepted to decide req: the rows for its requirement ids (the RFC's,
// --require's and --require-corpus's) and the legs under them (rfc.Covers),
// in time linear in the row id whatever the number of ids.
func (req AcceptedRequest) RowFilter() func(bundle.Row) bool {
	ids := rfc.NewIDSet(append(req.Require, req.RequireCorpus...)...)
	if req.RFC != nil {
		for _, q := range req.RFC.Requirements {
			ids[q.ID] = struct{}{}
		}
	}
	return func(row bundle.Row) bool { return ids.CoversRow(row.ID) }
}

// KeepRowsFor is the Loader's row filter (Loader.KeepRow) for a run of
// Accepted over reqs: a row is kept when a requirement rule of any request reads
// it (RowFilter). The rows the qualification rules read (the egress-guard row)
// the Loader keeps whatever the filter says.
func KeepRowsFor(reqs ...AcceptedRequest) func(bundle.Row) bool {
	filters := make([]func(bundle.Row) bool, len(reqs))
	for i, req := range reqs {
		filters[i] = req.RowFilter()
	}
	return func(row bundle.Row) bool {
		for _, keep := range filters {
			if keep(row) {
				return true
			}
		}
		return false
	}
}

// Criteria on the RFC's header, present only when it cannot be read.
const (
	// CritRFCNumber: the file name, the header's RFC row and the title
	// disagree on the RFC's number (rfc.RFC.NumberProblem).
	CritRFCNumber = "rfc.number"
	// CritRFCStatus: the Status is not exactly one known state, or the file
	// has two Status rows (rfc.RFC.StatusProblem).
	CritRFCStatus = "rfc.status"
)

// headerCriteria BLOCKs an RFC whose number or Status cannot be read.
func headerCriteria(x *rfc.RFC) []Criterion {
	var out []Criterion
	if x.NumberProblem != "" {
		line := x.NumberField.Line
		if line == 0 {
			line = 1
		}
		out = append(out, rule(CritRFCNumber).Criterion(Result{Status: Blocked,
			Reason: x.NumberProblem, Location: &Location{File: x.File, Line: line}}))
	}
	if x.StatusProblem != "" {
		line := x.StatusLine
		if line == 0 {
			line = 1
		}
		out = append(out, rule(CritRFCStatus).Criterion(Result{Status: Blocked,
			Reason: x.StatusProblem, Location: &Location{File: x.File, Line: line}}))
	}
	return out
}

// Accepted decides the Accepted predicate (RFC 0174 §B.1, with the host-evidence
// rules of spec §8.1) criterion by criterion.
func (r *Repo) Accepted(ctx context.Context, req AcceptedRequest) *Report {
	rep := &Report{Gate: "accepted", Settings: r.settings()}
	if r.TrustUnsignedOrigin {
		rep.Notes = append(rep.Notes, "--trust-unsigned-origin: a host's tier is taken from the origin of discovery.url even when nothing binds it to the signed bundle (weaker: discovery.url is not signed)")
	}
	var reqs []rfc.Requirement
	var tree *rfc.Tree
	if req.RFC != nil {
		x := req.RFC
		rep.RFC = &RFCInfo{File: x.File, Number: x.Number, Title: x.Title, Status: string(x.Status)}
		rep.Subject = "RFC " + x.Number
		if x.Status != rfc.StatusAccepted && x.StatusProblem == "" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the RFC's Status is `%s`; the predicate is evaluated as if it were flipped to `Accepted`", orDash(string(x.Status))))
		}
		rep.Criteria = append(rep.Criteria, headerCriteria(x)...)
		var treeErr error
		tree, treeErr = treeFor(req)
		rfcsDir := filepath.Dir(x.File)
		if tree != nil {
			rfcsDir = tree.Dir
		}
		rep.Criteria = append(rep.Criteria, acceptanceCriterion(x), updatedCriterion(x), registerCriterion(x),
			falsifiabilitySectionCriterion(x), parentChildCriterion(x, tree, treeErr), vocabularyCriterion(x, rfcsDir))
		rep.Criteria = append(rep.Criteria, req.governance(x, tree)...)
		reqs = append(reqs, x.Requirements...)
		// Rows of ### subsections inside the Falsifiability section, which the
		// reference predicate reads as part of it.
		have := map[string]bool{}
		for _, q := range x.Requirements {
			have[q.ID] = true
		}
		for _, q := range x.Predicate.SectionRequirements() {
			if !have[q.ID] {
				have[q.ID] = true
				reqs = append(reqs, q)
			}
		}
		for _, n := range x.NotRequired {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s (line %d) is not required: its row says it is not claimed as a witness", n.ID, n.Line))
		}
		if len(x.Requirements) == 0 {
			rep.Notes = append(rep.Notes, "the RFC names no requirement id in its Falsifiability or Conformance tables or its acceptance lines; only the RFC-text criteria apply")
		}
	}
	seen := map[string]bool{}
	for _, q := range reqs {
		seen[q.ID] = true
	}
	for _, id := range req.Require {
		if !seen[id] {
			seen[id] = true
			reqs = append(reqs, rfc.Requirement{ID: id, Source: "--require"})
		}
	}
	for _, id := range req.RequireCorpus {
		if !seen[id] {
			seen[id] = true
			reqs = append(reqs, rfc.Requirement{ID: id, Source: "--require-corpus", Corpus: true})
		}
	}
	if rep.Subject == "" {
		var ids []string
		for _, q := range reqs {
			ids = append(ids, q.ID)
		}
		rep.Subject = firstN(ids, 3)
	}
	// A leg <id>.<leg> witnesses <id> unless the leg is itself declared: by
	// this request, or in the Falsifiability table of any v2-era RFC.
	declared := map[string]bool{}
	for _, q := range reqs {
		declared[q.ID] = true
	}
	if tree != nil {
		for id := range tree.Declared {
			declared[id] = true
		}
	}
	relied := map[*Entry]bool{}
	ix := newRowIndex(r.Entries)
	for _, q := range reqs {
		var c Criterion
		if q.Corpus {
			c = r.corpusCriterion(q, rep)
		} else {
			var used []*Entry
			c, used = r.requirementCriterion(ctx, q, declared, ix)
			for _, e := range used {
				relied[e] = true
			}
		}
		if rep.RFC != nil && q.Line > 0 {
			c.Location = &Location{File: rep.RFC.File, Line: q.Line}
		}
		rep.Criteria = append(rep.Criteria, c)
	}
	// Bundle criteria for every bundle the verdict relies on: the witnesses of
	// each passing id, and for an id without one, the bundles that would have
	// witnessed it — so each refusal is shown with its named reason.
	var files []*Entry
	for e := range relied {
		files = append(files, e)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].File < files[j].File })
	for _, e := range files {
		a := r.assessOf(ctx, e)
		for _, ch := range a.checks {
			ref := e.Ref()
			rep.Criteria = append(rep.Criteria, ch.criterion(ref))
		}
	}
	for _, e := range r.Entries {
		rep.Bundles = append(rep.Bundles, r.bundleInfo(ctx, e))
	}
	rep.finish()
	return rep
}

func (r *Repo) bundleInfo(ctx context.Context, e *Entry) BundleInfo {
	info := BundleInfo{BundleRef: e.Ref(), Verdict: string(e.Outcome()), Rejections: rejectionLines(e.Verdict), Why: []string{}}
	if e.Err != nil {
		info.Error = e.Err.Error()
	}
	if e.Bundle != nil {
		a := r.assessOf(ctx, e)
		info.Host, info.Suite, info.Origin = e.Bundle.Host.Name, e.Bundle.Suite.Version, a.origin
		info.Tier, info.TierName, info.Companion = a.tier, a.tierName, a.companion
		info.Qualifies, info.Why = a.qualifies(), a.why()
	} else {
		info.Why = []string{"unreadable: " + errString(e.Err)}
	}
	return info
}

func acceptanceCriterion(x *rfc.RFC) Criterion {
	var res Result
	if x.AcceptanceLine > 0 {
		res.Location = &Location{File: x.File, Line: x.AcceptanceLine + 1}
	}
	if x.AcceptanceLine == 0 || len(x.Acceptance) == 0 {
		res.Status, res.Reason = Fail, "the Acceptance criteria section is missing or empty, or has neither checkboxes (- [ ] / - [x]) nor a table"
		if res.Location == nil {
			res.Location = &Location{File: x.File, Line: 1}
		}
		return rule(CritAcceptance).Criterion(res)
	}
	ticked, reasoned := 0, 0
	for _, a := range x.Acceptance {
		switch {
		case a.Ticked:
			ticked++
		case a.Reasoned:
			reasoned++
		case a.Kind == "table":
			res.Findings = append(res.Findings, Finding{Message: "acceptance table row has no evidence: " + a.Text, Location: &Location{File: x.File, Line: a.Line}})
		default:
			msg := "unticked acceptance box without reason: or deferred: " + a.Text
			if phase4RE().MatchString(a.Text) {
				msg = "unticked acceptance box whose only excuse is \"Phase 4\" (no longer one: label it reason: or deferred:): " + a.Text
			}
			res.Findings = append(res.Findings, Finding{Message: msg, Location: &Location{File: x.File, Line: a.Line}})
		}
	}
	if len(res.Findings) > 0 {
		res.Status, res.Reason = Fail, fmt.Sprintf("%d acceptance item(s) neither met nor deferred with a reason", len(res.Findings))
		res.Location = res.Findings[0].Location
		return rule(CritAcceptance).Criterion(res)
	}
	res.Status, res.Reason = Pass, fmt.Sprintf("%d ticked, %d deferred with a stated reason", ticked, reasoned)
	return rule(CritAcceptance).Criterion(res)
}

func updatedCriterion(x *rfc.RFC) Criterion {
	line := x.UpdatedLine
	if line == 0 {
		line = 1
	}
	res := Result{Location: &Location{File: x.File, Line: line}}
	switch tier := rfc.DeclaredTier(x.Updated); {
	case tier != "":
		res.Status, res.Reason = Pass, fmt.Sprintf("Updated declares \"Evidence tier: %s\"", tier)
	case x.UpdatedLine == 0:
		res.Status, res.Reason = Fail, "the header has no Updated field"
	case rfc.TierLabel(x.Updated) != "":
		res.Status, res.Reason = Fail, fmt.Sprintf("Updated mentions %q but declares no tier: write \"Evidence tier: tier-N\" or \"Evidence tier: corpus gate\"", rfc.TierLabel(x.Updated))
	default:
		res.Status, res.Reason = Fail, "Updated declares no evidence tier: write \"Evidence tier: tier-N\" (1–3) or \"Evidence tier: corpus gate\""
	}
	return rule(CritUpdated).Criterion(res)
}

func registerCriterion(x *rfc.RFC) Criterion {
	var res Result
	reg, err := rfc.ReadRegister(x.File, x.Number)
	open, respelled := openRows(reg)
	switch {
	case err != nil:
		res.Status, res.Reason = Blocked, err.Error()
	case reg.File == "":
		res.Status, res.Reason = Pass, fmt.Sprintf("no register RFCS/registers/%s*.gaps.md, so no open gap", x.Number)
	case len(open) > 0:
		res.Status, res.Reason = Fail, fmt.Sprintf("%s carries %d open gap row(s)", reg.File, len(open))
		if respelled > 0 {
			res.Reason += fmt.Sprintf("; %d spelled other than `open` (certcut reads the token however it is spelled, as RFC 0166's register check does; the reference predicate sees only `open`)", respelled)
		}
		for _, o := range open {
			res.Findings = append(res.Findings, Finding{Message: "open gap: " + o.Text, Location: &Location{File: reg.File, Line: o.Line}})
		}
		res.Location = res.Findings[0].Location
	default:
		res.Status, res.Reason = Pass, "no open row in "+filepath.ToSlash(reg.File)
	}
	return rule(CritRegister).Criterion(res)
}

// openRows returns a register's open rows: every line the reference predicate
// reads as open (a cell starting `open`), and every gap row whose disposition
// token is open however it is spelled (**open**, bare open); other counts the
// rows only the token reading finds.
func openRows(reg rfc.Register) (rows []rfc.RegisterRow, other int) {
	seen := map[int]bool{}
	for _, o := range reg.Open {
		seen[o.Line] = true
		rows = append(rows, o)
	}
	for _, g := range reg.Rows {
		if g.Token == "open" && !seen[g.Line] {
			seen[g.Line] = true
			rows = append(rows, g)
			other++
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Line < rows[j].Line })
	return rows, other
}

// ledgerUnsigned is what a (corpus) PASS rests on: the ledger is written by the
// spec repository's own tooling and signed by nobody, so only review binds it
// (gate flips BLOCKs an edit to it beside a flip).
const ledgerUnsigned = "an unsigned file: the spec's corpus tooling writes it, no signature binds it, only review does"

// corpusCriterion looks a (corpus) id up in the corpus ledger.
func (r *Repo) corpusCriterion(q rfc.Requirement, rep *Report) Criterion {
	c := rule(CritCorpus).Criterion(Result{Requirement: q.ID})
	if r.Ledger == nil {
		c.Status, c.Reason = Blocked, fmt.Sprintf("no corpus ledger at %s: a (corpus) row is witnessed only by it (spec §11)", r.LedgerFile)
		return c
	}
	// The ledger's entry for the id itself: a (corpus) row is witnessed by its
	// exact key, never by a leg under it (the reference predicate's rule 4).
	var pass, other, legs []string
	for _, e := range r.Ledger.Requirements[q.ID] {
		if e.Result == bundle.ExecutedPass {
			pass = append(pass, q.ID)
		} else {
			other = append(other, q.ID+" "+e.Result)
		}
	}
	if len(pass) == 0 {
		for id, entries := range r.Ledger.Requirements {
			if id == q.ID || !rfc.Covers(q.ID, id) {
				continue
			}
			for _, e := range entries {
				if e.Result == bundle.ExecutedPass {
					legs = append(legs, id)
				}
			}
		}
	}
	sort.Strings(other)
	sort.Strings(legs)
	switch {
	case len(legs) > 0:
		c.Status, c.Reason = Fail, fmt.Sprintf("%s records executed-pass only for leg(s) under it (%s), not for the id itself: a (corpus) row is witnessed by its exact key", r.Ledger.File, firstN(legs, 3))
	case len(pass) > 0:
		c.Status, c.Reason = Pass, fmt.Sprintf("%s: executed-pass for %s (%s)", r.Ledger.File, firstN(pass, 3), ledgerUnsigned)
	case len(other) > 0:
		c.Status, c.Reason = Fail, fmt.Sprintf("%s records no executed-pass, only %s", r.Ledger.File, firstN(other, 3))
	default:
		c.Status, c.Reason = Fail, fmt.Sprintf("%s has no entry for it", r.Ledger.File)
	}
	return c
}

// rowIndex files each bundle row under its id and every dot-prefix of it, so
// the rows answering a requirement id (rfc.Covers) are found in time
// proportional to their number, not to every row of every bundle: an RFC may
// name hundreds of thousands of ids.
type rowIndex struct {
	rows map[string][]rowRef
	read int // bundles read
}

type rowRef struct {
	e *Entry
	i int // index in e.Bundle.Rows
}

func newRowIndex(entries []*Entry) rowIndex {
	ix := rowIndex{rows: map[string][]rowRef{}}
	for _, e := range entries {
		if e.Bundle == nil {
			continue
		}
		ix.read++
		for i, row := range e.Bundle.Rows {
			for end := len(row.ID); end > 0; end = strings.LastIndexByte(row.ID[:end], '.') {
				ix.rows[row.ID[:end]] = append(ix.rows[row.ID[:end]], rowRef{e, i})
			}
		}
	}
	return ix
}

// candidate is one bundle's rows for a requirement.
type candidate struct {
	entry  *Entry
	rows   []bundle.Row
	clean  bool   // every row a non-vacuous, non-partial executed-pass
	why    string // why not clean
	gateOK bool   // a gated requirement accounted for by reasoned non-pass rows
}

// requirementCriterion decides one host-tier id and returns the bundles it relies
// on.
func (r *Repo) requirementCriterion(ctx context.Context, q rfc.Requirement, declared map[string]bool, ix rowIndex) (Criterion, []*Entry) {
	c := rule(CritRequirement).Criterion(Result{Requirement: q.ID})
	var cands []candidate
	read := ix.read
	refs := ix.rows[q.ID] // in entry order, then row order
	for i := 0; i < len(refs); {
		e := refs[i].e
		var rows []bundle.Row
		for ; i < len(refs) && refs[i].e == e; i++ {
			row := e.Bundle.Rows[refs[i].i]
			if row.ID == q.ID || !declared[row.ID] {
				rows = append(rows, row)
			}
		}
		if len(rows) > 0 {
			cands = append(cands, r.judgeRows(e, rows, q))
		}
	}
	var witnesses, relied []*Entry
	var blocked, refused []string
	for _, cd := range cands {
		usable := cd.clean || cd.gateOK
		a := r.assessOf(ctx, cd.entry)
		ok := usable && a.qualifies()
		why := cd.why
		switch {
		case ok:
			witnesses = append(witnesses, cd.entry)
		case usable:
			why = "the bundle does not qualify: " + firstN(a.why(), 2)
			if a.blockedOnly() {
				blocked = append(blocked, fmt.Sprintf("%s (%s)", cd.entry.File, firstN(a.why(), 2)))
			} else {
				refused = append(refused, fmt.Sprintf("%s: %s", cd.entry.File, firstN(a.why(), 2)))
			}
			relied = append(relied, cd.entry)
		}
		for _, row := range cd.rows {
			ev := Evidence{Bundle: cd.entry.Ref(), Row: row.ID, Result: row.Result, Assertions: row.AssertionCount(), Detail: clip(row.DetailText()), Counted: ok}
			if !ok {
				ev.Why = why
			}
			c.Evidence = append(c.Evidence, ev)
		}
	}
	switch {
	case len(witnesses) > 0:
		c.Status = Pass
		w := witnesses[0]
		how := "executed-pass"
		if !cands[indexOf(cands, w)].clean {
			how = "accounted for by reasoned non-pass rows (the RFC declares it gated)"
		}
		c.Reason = fmt.Sprintf("%s in %s (sha256 %s, signed %s)", how, w.File, short(w.Sha256), orDash(w.Ref().KeyID))
		if len(witnesses) > 1 {
			c.Reason += fmt.Sprintf(", and %d more bundle(s)", len(witnesses)-1)
		}
		return c, witnesses
	case len(blocked) > 0:
		c.Status = Blocked
		c.Reason = "carried executed-pass, but the bundle cannot be judged: " + firstN(blocked, 2)
	case len(refused) > 0:
		c.Status = Fail
		c.Reason = "carried executed-pass only by bundles that do not qualify: " + firstN(refused, 2)
	case len(cands) == 0:
		c.Status = Fail
		c.Reason = fmt.Sprintf("no bundle in %s carries a row for it (%d bundles read)", r.BundlesDir, read)
	default:
		c.Status = Fail
		var rows []string
		for _, cd := range cands {
			rows = append(rows, fmt.Sprintf("%s: %s", filepath.Base(cd.entry.File), cd.why))
		}
		c.Reason = fmt.Sprintf("carried by %d bundle(s), none as a clean executed-pass: %s", len(cands), firstN(rows, 2))
	}
	if r.Ledger != nil {
		for _, e := range r.Ledger.Requirements[q.ID] {
			if e.Result == bundle.ExecutedPass {
				c.Reason += "; the corpus ledger records it executed-pass — if it is corpus evidence, mark its Falsifiability row (corpus)"
				break
			}
		}
	}
	return c, relied
}

func indexOf(cands []candidate, e *Entry) int {
	for i, c := range cands {
		if c.entry == e {
			return i
		}
	}
	return 0
}

// judgeRows decides whether a bundle's rows for a requirement witness it.
func (r *Repo) judgeRows(e *Entry, rows []bundle.Row, q rfc.Requirement) candidate {
	cd := candidate{entry: e, rows: rows, clean: true, gateOK: q.Gated}
	companion := IsCompanion(e.Bundle)
	for _, row := range rows {
		partial := strings.HasPrefix(row.DetailText(), "partial-witness:")
		switch {
		case row.Result != bundle.ExecutedPass:
			cd.clean = false
			cd.why = fmt.Sprintf("row %s is %s", row.ID, row.Result)
			if d := verify.TrimJS(row.DetailText()); d != "" {
				cd.why += " (" + clip(d) + ")"
			}
			reasoned := (row.Result == bundle.Inapplicable || row.Result == bundle.Skipped) && verify.TrimJS(row.DetailText()) != ""
			cd.gateOK = cd.gateOK && reasoned
		case row.AssertionCount() < 1:
			cd.clean, cd.gateOK = false, false
			cd.why = fmt.Sprintf("row %s is executed-pass with no assertions", row.ID)
		case partial:
			cd.clean, cd.gateOK = false, false
			cd.why = fmt.Sprintf("row %s is a partial witness (%s)", row.ID, clip(row.DetailText()))
		case companion && (r.Anchors == nil || !r.Anchors.Has(row.ID)):
			cd.clean, cd.gateOK = false, false
			cd.why = fmt.Sprintf("row %s is in a colocated companion, which witnesses only the harness-trust-anchor rows (%s)", row.ID, r.AnchorsFile)
		}
	}
	if cd.clean {
		cd.gateOK = false
	}
	return cd
}

func clip(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
}
