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

// predicateSnapshot is the fuller OpenWOP spec-repository snapshot; tests that
// need it skip without it.
func predicateSnapshot(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop-spec")
	if _, err := os.Stat(filepath.Join(dir, "RFCS")); err != nil {
		t.Skipf("SKIPPED: the spec snapshot %s is absent", dir)
	}
	return dir
}

// predicateRepo is the fixture spec repository (its bundles witness
// 0901.good and legs of 0913.family) with a copy of the snapshot's RFCS/
// (RFCs and registers) as its RFC directory.
func predicateRepo(t *testing.T) (*gate.Repo, string) {
	t.Helper()
	snap := predicateSnapshot(t)
	dir, opts := fixture(t)
	if err := os.CopyFS(filepath.Join(dir, "RFCS"), os.DirFS(filepath.Join(snap, "RFCS"))); err != nil {
		t.Fatal(err)
	}
	repo, err := gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}})
	if err != nil {
		t.Fatal(err)
	}
	return repo, filepath.Join(dir, "RFCS")
}

// rfcFile is the snapshot file of an RFC number (the first, sorted).
func rfcFile(t *testing.T, dir, number string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, number+"-*.md"))
	if len(m) == 0 {
		t.Fatalf("no RFC %s in %s", number, dir)
	}
	return m[0]
}

// edit rewrites a file of the copy; the edit must change it.
func edit(t *testing.T, path string, f func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := f(string(data))
	if out == string(data) {
		t.Fatalf("edit of %s changed nothing", path)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setStatus replaces the header's Status value.
func setStatus(s, status string) string {
	re := regexp.MustCompile("(?m)^(\\|\\s*\\*\\*Status\\*\\*\\s*\\|\\s*)`[A-Za-z]+`")
	return re.ReplaceAllString(s, "${1}`"+status+"`")
}

// criterionOf gates the RFC (as if Accepted) and returns the criterion.
func criterionOf(t *testing.T, repo *gate.Repo, path, id string) gate.Criterion {
	t.Helper()
	x, err := rfc.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := repo.Accepted(context.Background(), gate.AcceptedRequest{RFC: x})
	for _, c := range rep.Criteria {
		if string(c.ID) == id {
			return c
		}
	}
	t.Fatalf("%s: no criterion %s", path, id)
	return gate.Criterion{}
}

func wantStatus(t *testing.T, c gate.Criterion, want gate.Status, reason ...string) {
	t.Helper()
	text := c.Reason
	for _, f := range c.Findings {
		text += "\n" + f.Message
	}
	if c.Status != want {
		t.Errorf("%s: %s, want %s: %s", c.ID, c.Status, want, text)
	}
	for _, r := range reason {
		if !strings.Contains(text, r) {
			t.Errorf("%s: %q not in %q", c.ID, r, text)
		}
	}
}

// Rule 1 on real RFCs: ticked boxes, reason:/deferred: labels and a table with
// evidence pass; "Phase 4" is no excuse; a table row without evidence, an
// empty section and one with neither boxes nor a table fail.
func TestPredicateRule1Acceptance(t *testing.T) {
	repo, dir := predicateRepo(t)
	r0170, r0174, r0184, r0210 := rfcFile(t, dir, "0170"), rfcFile(t, dir, "0174"), rfcFile(t, dir, "0184"), rfcFile(t, dir, "0210")
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritAcceptance), gate.Pass)
	wantStatus(t, criterionOf(t, repo, r0174, gate.CritAcceptance), gate.Pass, "1 deferred")
	wantStatus(t, criterionOf(t, repo, r0184, gate.CritAcceptance), gate.Pass)
	wantStatus(t, criterionOf(t, repo, r0210, gate.CritAcceptance), gate.Pass, "2 deferred")

	edit(t, r0170, func(s string) string {
		return strings.Replace(s, "- [x] `Active → Accepted` (Phase 3):", "- [ ] `Active → Accepted` (Phase 4, after the hosts deploy):", 1)
	})
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritAcceptance), gate.Fail, `only excuse is "Phase 4"`)
	// A label inside a word is no label: "treason:" does not excuse.
	edit(t, r0170, func(s string) string {
		return strings.Replace(s, "(Phase 4, after the hosts deploy):", "(Phase 4, treason: none):", 1)
	})
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritAcceptance), gate.Fail)
	edit(t, r0170, func(s string) string {
		return strings.Replace(s, "(Phase 4, treason: none):", "(Deferred: the hosts deploy first):", 1)
	})
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritAcceptance), gate.Pass, "1 deferred")

	edit(t, r0184, func(s string) string {
		return strings.Replace(s, "| 2 | A host MUST accept and MUST emit it; the percent form still MUST be accepted | `identity.md` §5 |", "| 2 | A host MUST accept and MUST emit it; the percent form still MUST be accepted | TBD |", 1)
	})
	wantStatus(t, criterionOf(t, repo, r0184, gate.CritAcceptance), gate.Fail, "acceptance table row has no evidence")

	// An empty section, and one with prose only.
	cut := func(s, body string) string {
		i := strings.Index(s, "## Acceptance criteria\n")
		j := strings.Index(s[i+1:], "\n## ")
		return s[:i] + "## Acceptance criteria\n" + body + s[i+1+j:]
	}
	edit(t, r0174, func(s string) string { return cut(s, "\n") })
	wantStatus(t, criterionOf(t, repo, r0174, gate.CritAcceptance), gate.Fail, "missing or empty")
	edit(t, r0174, func(s string) string { return cut(s, "\nEverything above is done.\n") })
	wantStatus(t, criterionOf(t, repo, r0174, gate.CritAcceptance), gate.Fail, "neither checkboxes")
}

// Rule 2: an open gap row is seen however the register spells it.
func TestPredicateRule2Register(t *testing.T) {
	repo, dir := predicateRepo(t)
	r0170 := rfcFile(t, dir, "0170")
	reg := filepath.Join(dir, "registers", "0170-v2-identity.gaps.md")
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritRegister), gate.Pass)
	wantStatus(t, criterionOf(t, repo, rfcFile(t, dir, "0169"), gate.CritRegister), gate.Fail, "5 open gap row(s)")
	wantStatus(t, criterionOf(t, repo, rfcFile(t, dir, "0173"), gate.CritRegister), gate.Fail, "1 open gap row(s)")
	for _, spelling := range []string{"**open**", "open", "Open —", "`open`"} {
		t.Run(spelling, func(t *testing.T) {
			orig, _ := os.ReadFile(reg)
			defer os.WriteFile(reg, orig, 0o644)
			edit(t, reg, func(s string) string {
				return strings.Replace(s, "| Spec Architect | `closed` — RFC 0185 closed", "| Spec Architect | "+spelling+" — RFC 0185 closed", 1)
			})
			c := criterionOf(t, repo, r0170, gate.CritRegister)
			wantStatus(t, c, gate.Fail, "1 open gap row(s)")
			if spelling != "`open`" && !strings.Contains(c.Reason, "the reference predicate sees only `open`") {
				t.Errorf("stricter than the reference without saying so: %s", c.Reason)
			}
		})
	}
}

// Rule 3: Updated declares the tier; a tier in prose declares nothing.
func TestPredicateRule3Updated(t *testing.T) {
	repo, dir := predicateRepo(t)
	r0170, r0171, r0203 := rfcFile(t, dir, "0170"), rfcFile(t, dir, "0171"), rfcFile(t, dir, "0203")
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritUpdated), gate.Pass, "tier-1") // **Evidence tier: tier-1
	wantStatus(t, criterionOf(t, repo, r0171, gate.CritUpdated), gate.Pass, "tier-2")
	wantStatus(t, criterionOf(t, repo, r0203, gate.CritUpdated), gate.Pass, "corpus gate")
	edit(t, r0171, func(s string) string { return strings.ReplaceAll(s, "Evidence tier:", "Evidence:") })
	wantStatus(t, criterionOf(t, repo, r0171, gate.CritUpdated), gate.Fail, `mentions "tier-2" but declares no tier`)
	edit(t, r0170, func(s string) string {
		return strings.ReplaceAll(s, "Evidence tier: tier-1", "**Evidence tier**: tier-1")
	})
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritUpdated), gate.Fail)
}

// Rule 4a/4b: the section exists, and every row names an id or a verdict.
func TestPredicateRule4Section(t *testing.T) {
	repo, dir := predicateRepo(t)
	r0175, r0217, r0181 := rfcFile(t, dir, "0175"), rfcFile(t, dir, "0217"), rfcFile(t, dir, "0181")
	wantStatus(t, criterionOf(t, repo, r0175, gate.CritFalsifiabilitySection), gate.Pass)
	wantStatus(t, criterionOf(t, repo, r0217, gate.CritFalsifiabilitySection), gate.Pass)
	wantStatus(t, criterionOf(t, repo, r0181, gate.CritFalsifiabilitySection), gate.Pass) // verdict rows only
	edit(t, r0175, func(s string) string {
		return strings.Replace(s, "### Falsifiability — one row per normative requirement", "### What would show it false", 1)
	})
	wantStatus(t, criterionOf(t, repo, r0175, gate.CritFalsifiabilitySection), gate.Fail, "no `### Falsifiability` section")
	wantStatus(t, criterionOf(t, repo, r0175, gate.CritFalsifiability), gate.Fail, "no \"### Falsifiability\" table")
	edit(t, r0217, func(s string) string {
		return strings.Replace(s, "| witnessable — gated on the facet |\n", "| witnessable — gated on the facet |\n| §X something | a reader sees it | anyone | to be decided |\n", 1)
	})
	c := criterionOf(t, repo, r0217, gate.CritFalsifiabilitySection)
	wantStatus(t, c, gate.Fail, "names no openwop.requirement. id and declares no verdict", "§X something")
	if c.Location == nil || c.Location.Line != 55 {
		t.Errorf("location %+v, want line 55", c.Location)
	}
}

// Rule 4c: a leg witnesses its id unless another v2-era RFC declares the leg
// in its Falsifiability table; a (corpus) row needs its exact ledger key.
func TestPredicateRule4Legs(t *testing.T) {
	dir, opts := fixture(t)
	rfcs := filepath.Join(dir, "RFCS")
	os.MkdirAll(rfcs, 0o755)
	family := `# RFC 0913: a family

| Field | Value |
| --- | --- |
| **RFC** | 0913 |
| **Status** | ` + "`Accepted`" + ` |
| **Updated** | 2026-11-02 — Evidence tier: tier-1 |

### Falsifiability

| Requirement | Observable | Witness | Verdict |
| --- | --- | --- | --- |
| §A ` + "`openwop.requirement.0913.family`" + ` | x | suite | witnessable |

## Acceptance criteria

- [x] done
`
	os.WriteFile(filepath.Join(rfcs, "0913-family.md"), []byte(family), 0o644)
	repo, err := gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, criterionOfReq(t, repo, filepath.Join(rfcs, "0913-family.md"), "openwop.requirement.0913.family"), gate.Pass)
	leg := strings.NewReplacer("RFC 0913: a family", "RFC 0914: a leg", "| 0913 |", "| 0914 |", "`openwop.requirement.0913.family`", "`openwop.requirement.0913.family.a`", "`Accepted`", "`Draft`").Replace(family)
	os.WriteFile(filepath.Join(rfcs, "0914-leg.md"), []byte(leg), 0o644)
	c := criterionOfReq(t, repo, filepath.Join(rfcs, "0913-family.md"), "openwop.requirement.0913.family")
	wantStatus(t, c, gate.Pass) // leg b still witnesses it
	for _, ev := range c.Evidence {
		if ev.Row == "openwop.requirement.0913.family.a" {
			t.Errorf("the declared leg 0913.family.a was counted for 0913.family: %+v", ev)
		}
	}
	leg2 := strings.Replace(leg, "| §A `openwop.requirement.0913.family.a` | x | suite | witnessable |", "| §A `openwop.requirement.0913.family.a` | x | suite | witnessable |\n| §B `openwop.requirement.0913.family.b` | x | suite | witnessable |", 1)
	os.WriteFile(filepath.Join(rfcs, "0914-leg.md"), []byte(leg2), 0o644)
	wantStatus(t, criterionOfReq(t, repo, filepath.Join(rfcs, "0913-family.md"), "openwop.requirement.0913.family"), gate.Fail)

	// (corpus): the ledger's exact key, never a leg under it.
	rep := repo.Accepted(context.Background(), gate.AcceptedRequest{RequireCorpus: []string{"openwop.requirement.0920.corpus-pass", "openwop.requirement.0920"}})
	got := map[string]gate.Status{}
	for _, c := range rep.Criteria {
		got[c.Requirement] = c.Status
	}
	if got["openwop.requirement.0920.corpus-pass"] != gate.Pass {
		t.Errorf("exact corpus key: %v", got)
	}
	ledger := filepath.Join(dir, "evidence", "corpus-ledger.json")
	edit(t, ledger, func(s string) string {
		return strings.Replace(s, `"openwop.requirement.0920.corpus-pass":`, `"openwop.requirement.0920.corpus-pass.leg":`, 1)
	})
	repo, err = gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}})
	if err != nil {
		t.Fatal(err)
	}
	rep = repo.Accepted(context.Background(), gate.AcceptedRequest{RequireCorpus: []string{"openwop.requirement.0920.corpus-pass"}})
	for _, c := range rep.Criteria {
		if c.Requirement == "openwop.requirement.0920.corpus-pass" {
			wantStatus(t, c, gate.Fail, "only for leg(s) under it")
		}
	}
}

func criterionOfReq(t *testing.T, repo *gate.Repo, path, id string) gate.Criterion {
	t.Helper()
	x, err := rfc.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range repo.Accepted(context.Background(), gate.AcceptedRequest{RFC: x}).Criteria {
		if c.Requirement == id {
			return c
		}
	}
	t.Fatalf("no criterion for %s", id)
	return gate.Criterion{}
}

// The parent flips last, both ways, on RFC 0167's program.
func TestPredicateParentChild(t *testing.T) {
	repo, dir := predicateRepo(t)
	r0167, r0169, r0176 := rfcFile(t, dir, "0167"), rfcFile(t, dir, "0169"), rfcFile(t, dir, "0176")
	wantStatus(t, criterionOf(t, repo, r0169, gate.CritParentChild), gate.Pass, "parent RFC 0167 is Active")
	// An Active child may flip while its parent is Active.
	wantStatus(t, criterionOf(t, repo, r0176, gate.CritParentChild), gate.Pass)
	// The parent may not flip while children are Active (its self-reference is harmless).
	wantStatus(t, criterionOf(t, repo, r0167, gate.CritParentChild), gate.Fail, "still Active (0168, 0176, 0177, 0178)")
	// A child is not Accepted under a Draft parent.
	edit(t, r0167, func(s string) string { return setStatus(s, "Draft") })
	wantStatus(t, criterionOf(t, repo, r0169, gate.CritParentChild), gate.Fail, "parent RFC 0167", "is Draft")
	// With every child Accepted the parent may flip.
	edit(t, r0167, func(s string) string { return setStatus(s, "Active") })
	for _, n := range []string{"0168", "0176", "0177", "0178"} {
		edit(t, rfcFile(t, dir, n), func(s string) string { return setStatus(s, "Accepted") })
	}
	wantStatus(t, criterionOf(t, repo, r0167, gate.CritParentChild), gate.Pass, "no Active child among its 11")
	// The parent's file absent: BLOCKED, never PASS.
	os.Remove(r0167)
	wantStatus(t, criterionOf(t, repo, r0169, gate.CritParentChild), gate.Blocked, "is not in")
}

// RFC 0178 §C.1 on real RFCs.
func TestPredicateFalsifiabilityVocabulary(t *testing.T) {
	repo, dir := predicateRepo(t)
	r0170, r0183, r0187, r0181 := rfcFile(t, dir, "0170"), rfcFile(t, dir, "0183"), rfcFile(t, dir, "0187"), rfcFile(t, dir, "0181")
	wantStatus(t, criterionOf(t, repo, r0170, gate.CritFalsifiability), gate.Pass)
	c := criterionOf(t, repo, r0183, gate.CritFalsifiability)
	wantStatus(t, c, gate.Fail, "has 3 cells")
	if len(c.Findings) != 4 || c.Findings[0].Location.Line != 74 {
		t.Errorf("0183 findings: %+v", c.Findings)
	}
	// A named test file without conformance/src: a note, not a failure.
	c = criterionOf(t, repo, r0187, gate.CritFalsifiability)
	wantStatus(t, c, gate.Pass, "NOT CHECKED", "event-codemap-complete.test.ts (line 66)")
	src := filepath.Join(filepath.Dir(dir), "conformance", "src", "scenarios")
	os.MkdirAll(src, 0o755)
	wantStatus(t, criterionOf(t, repo, r0187, gate.CritFalsifiability), gate.Fail, "names event-codemap-complete.test.ts")
	os.WriteFile(filepath.Join(src, "event-codemap-complete.test.ts"), []byte("//"), 0o644)
	wantStatus(t, criterionOf(t, repo, r0187, gate.CritFalsifiability), gate.Pass)

	// A verdict outside the vocabulary ("gated" passes rule 4b, not §C.1).
	edit(t, r0181, func(s string) string {
		x, _ := rfc.ReadFile(r0181)
		row := x.Predicate.FalsifiabilityLines[2].Text
		cells := strings.Split(row, "|")
		cells[4] = " gated "
		return strings.Replace(s, row, strings.Join(cells, "|"), 1)
	})
	wantStatus(t, criterionOf(t, repo, r0181, gate.CritFalsifiabilitySection), gate.Pass)
	wantStatus(t, criterionOf(t, repo, r0181, gate.CritFalsifiability), gate.Fail, `verdict "gated" is not in`)
	edit(t, r0181, func(s string) string { return strings.Replace(s, "| gated |", "| **unwitnessable** |", 1) })
	wantStatus(t, criterionOf(t, repo, r0181, gate.CritFalsifiability), gate.Fail, "does not say why")
	edit(t, r0181, func(s string) string {
		return strings.Replace(s, "| **unwitnessable** |", "| unwitnessable — no outside party can see it |", 1)
	})
	wantStatus(t, criterionOf(t, repo, r0181, gate.CritFalsifiability), gate.Pass)
}

// Over the whole snapshot, gate audit never PASSes an RFC the newest
// reference checks fail (the predicate and check-falsifiability), and each
// fails for the rule the reference fails it on; the Active RFCs without a
// Falsifiability table are listed.
func TestSnapshotNeverPassesWhatUpstreamFails(t *testing.T) {
	snap := predicateSnapshot(t)
	_, opts := fixture(t)
	opts.Keyring = nil
	repo, err := gate.Open(t.Context(), gate.Config{Root: snap, Loader: &gate.Loader{Options: opts}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := repo.Audit(context.Background(), filepath.Join(snap, "RFCS"))
	if err != nil {
		t.Fatal(err)
	}
	// RFC → the criterion (or requirement id) the reference fails it on.
	upstream := map[string]string{
		"0169": gate.CritRegister, "0173": gate.CritRegister, "0183": gate.CritFalsifiability,
		"0191": "openwop.requirement.0191.home-marker", "0192": "openwop.requirement.0192.facet-presence",
		"0193": "openwop.requirement.0193.seats-present", "0203": "openwop.requirement.0203.mcpserver-subset",
		"0208": "openwop.requirement.0208.map-coherent", "0209": "openwop.requirement.0209.catalog-pinned",
		"0210": "openwop.requirement.0210.exp-only-lane-restricted", "0216": "openwop.requirement.0216.anchor-list-closed",
		"0223": "openwop.requirement.0223.code-registered",
	}
	if len(out.Rows) != 31 {
		t.Errorf("%d Accepted RFCs gated, want 31", len(out.Rows))
	}
	seen := map[string]bool{}
	for _, row := range out.Rows {
		what, ok := upstream[row.Number]
		if !ok {
			continue
		}
		seen[row.Number] = true
		if row.Status == gate.Pass {
			t.Errorf("RFC %s PASSes; the reference fails it on %s", row.Number, what)
		}
		found := false
		for _, c := range row.Report.Criteria {
			if (string(c.ID) == what || c.Requirement == what) && c.Status == gate.Fail {
				found = true
			}
		}
		if !found {
			t.Errorf("RFC %s: %s does not FAIL (%v)", row.Number, what, row.Missing)
		}
	}
	if len(seen) != len(upstream) {
		t.Errorf("gated %d of the %d RFCs the reference fails", len(seen), len(upstream))
	}
	active := map[string]gate.Status{}
	for _, v := range out.Vocabulary {
		active[v.Number] = v.Criterion.Status
	}
	for _, n := range []string{"0180", "0185", "0186"} {
		if active[n] != gate.Fail {
			t.Errorf("Active RFC %s without a Falsifiability table: %s", n, active[n])
		}
	}
	if out.Status == gate.Pass {
		t.Error("the audit PASSes")
	}
}
