package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/testkit"
)

// snapshotDir is the fuller spec-repository snapshot; tests skip without it.
func snapshotDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop-spec")
	if _, err := os.Stat(filepath.Join(dir, "RFCS")); err != nil {
		t.Skipf("SKIPPED: the spec-repository snapshot is absent (%s)", dir)
	}
	return dir
}

// specCopy is a throwaway spec repository made of copies of the snapshot's
// files (paths relative to its root), with an empty bundles directory.
type specCopy struct {
	root string
}

func newSpecCopy(t *testing.T, files ...string) *specCopy {
	t.Helper()
	src := snapshotDir(t)
	c := &specCopy{root: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(c.root, "evidence", "v2-host-bundles"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(c.root, "RFCS"), 0o755); err != nil {
		t.Fatal(err)
	}
	// One real bundle: a repository has some.
	for _, pattern := range append([]string{"evidence/v2-host-bundles/openwop-host-v2-reference.json"}, files...) {
		matches, _ := filepath.Glob(filepath.Join(src, pattern))
		if len(matches) == 0 {
			t.Fatalf("no snapshot file %s", pattern)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(src, m)
			data, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			c.write(t, rel, string(data))
		}
	}
	return c
}

func (c *specCopy) path(rel string) string { return filepath.Join(c.root, rel) }

func (c *specCopy) write(t *testing.T, rel, text string) {
	t.Helper()
	p := c.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit rewrites the one file matching the glob with the (regexp) replacement,
// failing when it does not change the file.
func (c *specCopy) edit(t *testing.T, glob, expr, repl string) string {
	t.Helper()
	m, _ := filepath.Glob(c.path(glob))
	if len(m) != 1 {
		t.Fatalf("%s: %d files", glob, len(m))
	}
	data, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(expr).ReplaceAllString(string(data), repl)
	if out == string(data) {
		t.Fatalf("%s: %q changed nothing", glob, expr)
	}
	if err := os.WriteFile(m[0], []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return m[0]
}

func (c *specCopy) repo(t *testing.T) *gate.Repo {
	t.Helper()
	r, err := gate.Open(t.Context(), gate.Config{Root: c.root})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (c *specCopy) accepted(t *testing.T, glob string) *gate.Report {
	t.Helper()
	m, _ := filepath.Glob(c.path(glob))
	if len(m) != 1 {
		t.Fatalf("%s: %d files", glob, len(m))
	}
	x, err := rfc.Open(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return c.repo(t).Accepted(context.Background(), gate.AcceptedRequest{RFC: x})
}

func (c *specCopy) audit(t *testing.T) *gate.AuditReport {
	t.Helper()
	a, err := c.repo(t).Audit(context.Background(), c.path("RFCS"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Repository == nil {
		t.Fatal("no repository report")
	}
	return a
}

func mustCriterion(t *testing.T, rep *gate.Report, id gate.RuleID) gate.Criterion {
	t.Helper()
	c, ok := criterion(rep, string(id))
	if !ok {
		t.Fatalf("no %s criterion: %+v", id, rep.Criteria)
	}
	return c
}

// findingAt reports whether a finding of c lies on that file's line.
func findingAt(c gate.Criterion, file string, line int) bool {
	for _, f := range c.Findings {
		if f.Location != nil && filepath.Base(f.Location.File) == filepath.Base(file) && f.Location.Line == line {
			return true
		}
	}
	return false
}

const (
	rfc0174 = "RFCS/0174-*.md"
	rfc0190 = "RFCS/0190-*.md"
)

// Supersession, both ways, on copies of RFC 0190 (whose Supersedes names
// `RFC 0174 §E.2, §E.2a`) and RFC 0174: a section sign no longer exempts the
// cell, so accepting 0190 needs 0174 Superseded by 0190; an amendment spelled
// `— (amends …)` supersedes nothing; a Superseded RFC's pointer must name an
// Accepted successor that names it back.
func TestSupersession(t *testing.T) {
	c := newSpecCopy(t, rfc0174, rfc0190)
	c.edit(t, rfc0190, "(\\*\\*Status\\*\\*\\s*\\|\\s*)`Active`", "$1`Accepted`")
	rep := c.accepted(t, rfc0190)
	sup := mustCriterion(t, rep, gate.CritSupersession)
	if sup.Status != gate.Fail || !findingAt(sup, "0174-v2-governance.md", 7) || !findingAt(sup, "0174-v2-governance.md", 14) ||
		!strings.Contains(sup.Reason, "RFC 0174 is `Accepted`, not `Superseded`") || !strings.Contains(sup.Reason, "a cell naming a section (§) still supersedes the whole RFC") {
		t.Fatalf("0190 accepted over an Accepted 0174: %+v", sup)
	}
	if sup.Location == nil || sup.Location.Line != 13 {
		t.Fatalf("location %+v", sup.Location)
	}

	// The partner is recorded: PASS.
	c.edit(t, rfc0174, "(\\*\\*Status\\*\\*\\s*\\|\\s*)`Accepted`", "$1`Superseded`")
	c.edit(t, rfc0174, "(\\*\\*Superseded by\\*\\*\\s*\\|)\\s*—", "$1 RFC 0190")
	if sup := mustCriterion(t, c.accepted(t, rfc0190), gate.CritSupersession); sup.Status != gate.Pass {
		t.Fatalf("recorded supersession: %+v", sup)
	}
	// From 0174's side: its successor must be Accepted and name it.
	a := c.audit(t)
	if by := mustCriterion(t, a.Repository, gate.CritSupersededBy); by.Status != gate.Pass {
		t.Fatalf("superseded-by with 0190 Accepted: %+v", by)
	}
	c.edit(t, rfc0190, "(\\*\\*Status\\*\\*\\s*\\|\\s*)`Accepted`", "$1`Active`")
	by := mustCriterion(t, c.audit(t).Repository, gate.CritSupersededBy)
	if by.Status != gate.Fail || !strings.Contains(by.Reason, "RFC 0174 is `Superseded by` RFC 0190, which is `Active`") || !findingAt(by, "0174-v2-governance.md", 14) {
		t.Fatalf("superseded by an Active RFC: %+v", by)
	}
	c.edit(t, rfc0174, "(\\*\\*Superseded by\\*\\*\\s*\\|)\\s*RFC 0190", "$1 —")
	if by := mustCriterion(t, c.audit(t).Repository, gate.CritSupersededBy); by.Status != gate.Fail || !strings.Contains(by.Reason, "its `Superseded by` is blank") {
		t.Fatalf("blank pointer: %+v", by)
	}

	// An amendment spelled as one supersedes nothing.
	c2 := newSpecCopy(t, rfc0174, rfc0190)
	c2.edit(t, rfc0190, "(\\*\\*Supersedes\\*\\*\\s*\\|)\\s*RFC 0174", "$1 — (amends RFC 0174")
	if sup := mustCriterion(t, c2.accepted(t, rfc0190), gate.CritSupersession); sup.Status != gate.Pass {
		t.Fatalf("amendment: %+v", sup)
	}
	// A superseded RFC absent from RFCS/ is BLOCKED, not skipped (0173 → 0035).
	c3 := newSpecCopy(t, "RFCS/0173-*.md")
	if sup := mustCriterion(t, c3.accepted(t, "RFCS/0173-*.md"), gate.CritSupersession); sup.Status != gate.Blocked || !strings.Contains(sup.Reason, "RFC 0035 has no file") {
		t.Fatalf("absent target: %+v", sup)
	}
}

// A spec/v2 Stable banner may cite only Accepted RFCs: the snapshot's ext
// README cites RFC 0177, which is Active there.
func TestStableBanner(t *testing.T) {
	c := newSpecCopy(t, rfc0174, "RFCS/0177-*.md", "spec/v2/ext/README.md", "spec/v2/ext/*/README.md")
	ban := mustCriterion(t, c.audit(t).Repository, gate.CritStableBanner)
	if ban.Status != gate.Fail || len(ban.Findings) != 1 || !findingAt(ban, "README.md", 3) || !strings.Contains(ban.Reason, "cites RFC 0177, which is `Active`") {
		t.Fatalf("banner: %+v", ban)
	}
	if !strings.HasSuffix(filepath.ToSlash(ban.Findings[0].Location.File), "spec/v2/ext/README.md") {
		t.Fatalf("finding on %s", ban.Findings[0].Location.File)
	}
	c.edit(t, "RFCS/0177-*.md", "(\\*\\*Status\\*\\*\\s*\\|\\s*)`Active`", "$1`Accepted`")
	if ban := mustCriterion(t, c.audit(t).Repository, gate.CritStableBanner); ban.Status != gate.Pass || !strings.Contains(ban.Reason, "cite 2 RFC(s), all Accepted") {
		t.Fatalf("banner with 0177 Accepted: %+v", ban)
	}
}

// The waiver retrospective register (RFC 0156 §B) on copies of RFC 0211
// (waived, registered `not-reviewed`) and RFC 0235 (waived, no row).
func TestWaiverRegister(t *testing.T) {
	const reg = "docs/WAIVER-RETROSPECTIVE-REGISTER.md"
	c := newSpecCopy(t, "RFCS/0211-*.md", "RFCS/0235-*.md", reg)
	if w := mustCriterion(t, c.accepted(t, "RFCS/0211-*.md"), gate.CritWaiverRegister); w.Status != gate.Pass || !strings.Contains(w.Reason, "outcome `not-reviewed`") {
		t.Fatalf("0211: %+v", w)
	}
	w := mustCriterion(t, c.accepted(t, "RFCS/0235-*.md"), gate.CritWaiverRegister)
	if w.Status != gate.Fail || w.Location == nil || w.Location.Line != 10 || !strings.Contains(w.Reason, "has no row for RFC 0235") {
		t.Fatalf("0235 without a row: %+v", w)
	}
	for name, tc := range map[string]struct {
		row  string
		want gate.Status
		why  string
	}{
		"not-reviewed":          {"| 0235 | if-none-match | in-scope | — | — | `not-reviewed` |", gate.Pass, "outcome `not-reviewed`"},
		"ratified, reviewer":    {"| 0235 | if-none-match | in-scope | Acme Review | 2026-11-01 | `ratified` |", gate.Pass, "outcome `ratified`"},
		"ratified, no reviewer": {"| 0235 | if-none-match | in-scope | — | 2026-11-01 | `ratified` |", gate.Fail, "names no reviewer"},
		"illegal outcome":       {"| 0235 | if-none-match | in-scope | Acme | — | `approved` |", gate.Fail, "`approved` is not one of"},
	} {
		t.Run(name, func(t *testing.T) {
			c := newSpecCopy(t, "RFCS/0211-*.md", "RFCS/0235-*.md", reg)
			c.edit(t, reg, "(\\| 0211 \\|[^\n]*\n)", "$1"+tc.row+"\n")
			w := mustCriterion(t, c.accepted(t, "RFCS/0235-*.md"), gate.CritWaiverRegister)
			if w.Status != tc.want || !strings.Contains(w.Reason, tc.why) {
				t.Fatalf("%+v", w)
			}
		})
	}
	// A row for an RFC whose text never says its window was waived.
	c.edit(t, "RFCS/0211-*.md", "(?i)comment window waived", "comment window kept")
	if w := mustCriterion(t, c.accepted(t, "RFCS/0211-*.md"), gate.CritWaiverRegister); w.Status != gate.Fail || !strings.Contains(w.Reason, "whose text never says its comment window was waived") {
		t.Fatalf("row for a non-waived RFC: %+v", w)
	}
	// No register: a warning on the waived RFC, BLOCKED in the audit, never a silent PASS.
	if err := os.Remove(c.path(reg)); err != nil {
		t.Fatal(err)
	}
	rep := c.accepted(t, "RFCS/0235-*.md")
	abs := mustCriterion(t, rep, gate.CritWaiverAbsent)
	if abs.Status != gate.Blocked || !abs.Warning || !strings.Contains(abs.Reason, "does not exist") {
		t.Fatalf("absent register: %+v", abs)
	}
	if wr := mustCriterion(t, c.audit(t).Repository, gate.CritWaiverAudit); wr.Status != gate.Blocked {
		t.Fatalf("audit without a register: %+v", wr)
	}
}

// Register tokens (RFC 0166): `**open**` is read as open (and so still an
// open gap row on an Accepted RFC), an unknown or missing token is a finding,
// a risks token in a gaps register is one too.
func TestRegisterTokens(t *testing.T) {
	const gaps = "RFCS/registers/0169-*.gaps.md"
	files := []string{"RFCS/0169-*.md", gaps, "RFCS/registers/0169-*.risks.md"}
	c := newSpecCopy(t, files...)
	a := c.audit(t)
	tok := mustCriterion(t, a.Repository, gate.CritRegisterTokens)
	term := mustCriterion(t, a.Repository, gate.CritRegisterTerminal)
	if tok.Status != gate.Pass || term.Status != gate.Fail || len(term.Findings) != 5 || !findingAt(term, "0169-v2-discovery-and-capabilities.gaps.md", 7) {
		t.Fatalf("as committed: %+v\n%+v", tok, term)
	}
	c.edit(t, gaps, "(\\| G1 \\|(?:[^|\n]*\\|){3}\\s*)`open`", "$1**open**")
	a = c.audit(t)
	term = mustCriterion(t, a.Repository, gate.CritRegisterTerminal)
	if tok := mustCriterion(t, a.Repository, gate.CritRegisterTokens); tok.Status != gate.Pass || !strings.Contains(tok.Reason, "1 bold") {
		t.Fatalf("**open**: %+v", tok)
	}
	if term.Status != gate.Fail || len(term.Findings) != 5 || !findingAt(term, "0169-v2-discovery-and-capabilities.gaps.md", 7) {
		t.Fatalf("**open** not read as open: %+v", term)
	}
	for name, tc := range map[string]struct{ repl, why string }{
		"unknown token": {"$1`pending`", "states no resolution token"},
		"risk token":    {"$1`mitigated`", "`mitigated` is not a gaps token"},
		"no argument":   {"$1`transferred` to nobody", "`transferred` needs its argument"},
	} {
		t.Run(name, func(t *testing.T) {
			c := newSpecCopy(t, files...)
			c.edit(t, gaps, "(\\| G2 \\|(?:[^|\n]*\\|){3}\\s*)`open`", tc.repl)
			tok := mustCriterion(t, c.audit(t).Repository, gate.CritRegisterTokens)
			if tok.Status != gate.Fail || len(tok.Findings) != 1 || !findingAt(tok, "0169-v2-discovery-and-capabilities.gaps.md", 8) || !strings.Contains(tok.Reason, tc.why) {
				t.Fatalf("%+v", tok)
			}
		})
	}
}

// gate audit over the whole snapshot: the counts the upstream scripts give
// (8 Accepted RFCs without a waiver row, 18 waived RFCs without a row and 44
// rows for absent RFCs, one Stable banner citing an Active RFC, 419 register
// rows all backticked, 6 open gap rows against an openGaps ratchet of 0).
func TestAuditSnapshotGovernance(t *testing.T) {
	dir := snapshotDir(t)
	r, err := gate.Open(t.Context(), gate.Config{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Audit(context.Background(), filepath.Join(dir, "RFCS"))
	if err != nil {
		t.Fatal(err)
	}
	var noRow []string
	for _, row := range a.Rows {
		if c, ok := criterion(row.Report, string(gate.CritWaiverRegister)); ok && c.Status == gate.Fail {
			noRow = append(noRow, row.Number)
		}
		if row.Number == "0173" {
			if c := mustCriterion(t, row.Report, gate.CritSupersession); c.Status != gate.Blocked {
				t.Errorf("0173 supersedes the absent 0035: %+v", c)
			}
		}
	}
	if got := strings.Join(noRow, " "); got != "0216 0217 0220 0223 0224 0225 0234 0235" {
		t.Errorf("Accepted RFCs without a waiver row: %s", got)
	}
	rep := a.Repository
	want := map[gate.RuleID]struct {
		status gate.Status
		reason string
	}{
		gate.CritSupersededBy:     {gate.Pass, "no RFC is `Superseded`"},
		gate.CritStableBanner:     {gate.Fail, "cites RFC 0177, which is `Active`"},
		gate.CritWaiverAudit:      {gate.Fail, "66 waived RFC(s), 92 row(s) (ratified 0, corrective-rfc-required 0, provisional 0, withdrawn 0, not-reviewed 92); 0 of them discharge (ratified); 18 waived RFC(s) without a row, 44 row(s) for RFCs not waived (44 of those absent from RFCS/)"},
		gate.CritRegistersPlace:   {gate.Pass, "all 93 register(s)"},
		gate.CritRegisterTokens:   {gate.Pass, "93 register(s), 419 row(s): gaps open 6, closed 104, transferred 88, carried 20, externally-gated 74; risks open 23, mitigated 41, accepted 60, closed 1, transferred 2; spelled 419 backticked, 0 bold, 0 bare"},
		gate.CritRegisterCarried:  {gate.Blocked, "20 carried row(s) name v1 gaps, but"},
		gate.CritRegisterTerminal: {gate.Fail, "6 findings"},
		gate.CritRegisterRatchet:  {gate.Fail, "openGaps 6 of 0, openRisks 23 of 334"},
		gate.CritRegisterHeadroom: {gate.Fail, "lower the ratchet to 23"},
	}
	for id, w := range want {
		c := mustCriterion(t, rep, id)
		if c.Status != w.status || !strings.Contains(c.Reason, w.reason) {
			t.Errorf("%s: %s %s, want %s containing %q", id, c.Status, c.Reason, w.status, w.reason)
		}
	}
	if c := mustCriterion(t, rep, gate.CritStableBanner); !findingAt(c, "README.md", 3) {
		t.Errorf("banner finding: %+v", c.Findings)
	}
	if c := mustCriterion(t, rep, gate.CritWaiverAudit); len(c.Findings) != 18+44 {
		t.Errorf("waiver findings: %d", len(c.Findings))
	}
	if c := mustCriterion(t, rep, gate.CritRegisterHeadroom); !c.Warning {
		t.Errorf("headroom is a warning: %+v", c)
	}
	if rep.Status != gate.Fail || a.Status != gate.Fail {
		t.Errorf("status %s / %s", rep.Status, a.Status)
	}
}

// The coherence script's rules 3, 6 and 7 over a fixture: a gap row of an
// Accepted RFC that carries itself while its prose says CLOSED, more
// self-carried rows than the selfCarried ratchet, schemas/README.md stating
// another Status than the RFC's, and a scenario shipping a Draft RFC's
// requirement; each is FAIL on its line.
func TestStatusReferenceRules(t *testing.T) {
	dir := t.TempDir()
	if err := testkit.SpecRepo(dir); err != nil {
		t.Fatal(err)
	}
	c := &specCopy{root: dir}
	c.write(t, "RFCS/0950-done.md", string(flipRFC("0950", statusRow("Accepted"))))
	c.write(t, "RFCS/0951-draft.md", string(flipRFC("0951", statusRow("Draft"))))
	c.write(t, "RFCS/registers/0950-done.gaps.md", "| Gap | What | Where | Owner | Resolution |\n| --- | --- | --- | --- | --- |\n"+
		"| G1 | a | b | c | `carried:openwop.gap.0950.1` |\n"+
		"| G2 | a | b | c | `carried:openwop.gap.0950.2` — CLOSED in the suite |\n"+
		"| G3 | a | b | c | `carried:openwop.gap.0167.4` |\n")
	c.write(t, "docs/witness-baseline.json", `{"selfCarried": 1}`+"\n")
	c.write(t, "schemas/README.md", "| Schema | Maturity |\n| --- | --- |\n| a.json | RFC 0950 (`Accepted`) |\n| b.json | RFC 0951 (`Active`) |\n")
	c.write(t, "conformance/src/scenarios/x.test.ts", "const a = 'openwop.requirement.0950.ok';\nconst b = \"openwop.requirement.0951.leg\";\nconst d = `RFCS/0951-draft.md`;\n")
	rep := c.audit(t).Repository

	sc := mustCriterion(t, rep, gate.CritSelfCarry)
	if sc.Status != gate.Fail || len(sc.Findings) != 2 || !findingAt(sc, "0950-done.gaps.md", 4) || !findingAt(sc, "witness-baseline.json", 1) || !strings.HasPrefix(sc.Reason, "2 self-carried gap row(s) on terminal RFCs (selfCarried ratchet 1)") {
		t.Errorf("registers.self-carry: %+v", sc)
	}
	sr := mustCriterion(t, rep, gate.CritSchemasReadme)
	if sr.Status != gate.Fail || len(sr.Findings) != 1 || !findingAt(sr, "README.md", 4) {
		t.Errorf("rfc.schemas-readme: %+v", sr)
	}
	de := mustCriterion(t, rep, gate.CritDraftEnforced)
	if de.Status != gate.Fail || len(de.Findings) != 2 || !findingAt(de, "x.test.ts", 2) || !findingAt(de, "x.test.ts", 3) {
		t.Errorf("rfc.draft-enforced: %+v", de)
	}

	// Agreeing files pass: the prose re-tokened, the ratchet at the count, the
	// README and the scenario fixed.
	c.edit(t, "RFCS/registers/0950-done.gaps.md", "`carried:openwop.gap.0950.2` — CLOSED in the suite", "`closed` in the suite")
	c.write(t, "schemas/README.md", "| a.json | RFC 0950 (`Accepted`) |\n| b.json | RFC 0951 (`Draft`) |\n")
	c.write(t, "conformance/src/scenarios/x.test.ts", "const a = 'openwop.requirement.0950.ok';\n")
	rep = c.audit(t).Repository
	for _, id := range []gate.RuleID{gate.CritSelfCarry, gate.CritSchemasReadme, gate.CritDraftEnforced} {
		if got := mustCriterion(t, rep, id); got.Status != gate.Pass {
			t.Errorf("%s after the fix: %+v", id, got)
		}
	}
}

// The coherence script's spec/v1 rules (4, 4b, 4c, 5): a banner stating a stale
// Status, a Draft banner over Accepted RFCs that neither says so nor names its
// predicate, a stale inline marker, a deferral to a flip that has happened;
// then a page that agrees.
func TestV1StatusRules(t *testing.T) {
	dir := t.TempDir()
	if err := testkit.SpecRepo(dir); err != nil {
		t.Fatal(err)
	}
	c := &specCopy{root: dir}
	c.write(t, "RFCS/0950-done.md", string(flipRFC("0950", statusRow("Accepted"))))
	c.write(t, "RFCS/0951-done.md", string(flipRFC("0951", statusRow("Accepted"))))
	c.write(t, "RFCS/0952-open.md", string(flipRFC("0952", statusRow("Active"))))
	rep := c.audit(t).Repository
	if v1 := mustCriterion(t, rep, gate.CritV1Status); v1.Status != gate.Blocked || !strings.Contains(v1.Reason, "does not exist") {
		t.Fatalf("no spec/v1: %+v", v1)
	}
	c.write(t, "spec/v1/a.md", "# A\n\n> **Status: Draft** · RFC 0950–0951 · graduates when RFC 0950 reaches Accepted.\n\n"+
		"The flag (RFC 0952, `Draft`) is new.\n| gap | deferred to `Active → Accepted` of RFC 0951 |\n| gap | **Closed** deferred to `Active → Accepted` of RFC 0951 |\n")
	c.write(t, "spec/v1/b.md", "> **Status: Stable** · RFC 0952 `Accepted`\n")
	v1 := mustCriterion(t, c.audit(t).Repository, gate.CritV1Status)
	want := map[string]int{"reaches Accepted\": it has": 0, "without saying so": 0, "names no graduation predicate": 0, "says RFC 0952 is `Draft`; it is `Active`": 0,
		"defers to RFC 0951": 0, "the banner says RFC 0952 is `Accepted`; it is `Active`": 0}
	for _, f := range v1.Findings {
		for k := range want {
			if strings.Contains(f.Message, k) {
				want[k]++
			}
		}
	}
	for k, n := range want {
		if n != 1 {
			t.Errorf("%q: %d finding(s), want 1", k, n)
		}
	}
	// b.md's banner is also an inline marker (rule 4c reads every line), as upstream reports it.
	if v1.Status != gate.Fail || len(v1.Findings) != 7 || !findingAt(v1, "a.md", 5) || !findingAt(v1, "a.md", 6) || !findingAt(v1, "b.md", 1) {
		t.Fatalf("%+v", v1)
	}
	c.write(t, "spec/v1/a.md", "> **Status: Draft** · RFC 0950 `Accepted`; spec status Draft pending the v1 sunset.\n\nThe flag (RFC 0952, `Active`) is new.\n")
	c.write(t, "spec/v1/b.md", "> **Status: Stable** · RFC 0952 `Active`\n")
	if v1 := mustCriterion(t, c.audit(t).Repository, gate.CritV1Status); v1.Status != gate.Pass {
		t.Fatalf("agreeing pages: %+v", v1)
	}
}
