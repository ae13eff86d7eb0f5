package gate_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Reviewer", "GIT_AUTHOR_EMAIL=reviewer@example.com", "GIT_COMMITTER_NAME=Reviewer",
		"GIT_COMMITTER_EMAIL=reviewer@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func suiteCriterion(t *testing.T, rep *gate.Report, id, file string) gate.Criterion {
	t.Helper()
	for _, c := range criteriaOf(rep, id) {
		if c.Bundle != nil && filepath.Base(c.Bundle.File) == file {
			return c
		}
	}
	t.Fatalf("no %s for %s", id, file)
	return gate.Criterion{}
}

// TestSuiteIdentity: on the snapshot as a git repository, suite 2.45.25 is
// published only when a tag v2.45.25 or openwop-conformance/v2.45.25 is
// reachable from the reviewed base; a tag on a side branch does not count; no
// base is BLOCKED. With --require-suite-tag the check joins a witness's
// qualification.
func TestSuiteIdentity(t *testing.T) {
	dir, opts := specSnapshot(t)
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "base")
	const file = "myndhyve-2.45.25.json"

	c := suiteCriterion(t, openSnapshot(t, dir, opts, gate.Config{}).Declared(t.Context()), gate.CritSuiteIdentity, file)
	if c.Status != gate.Blocked || !strings.Contains(c.Reason, "no reviewed base") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	c = suiteCriterion(t, openSnapshot(t, dir, opts, gate.Config{HistoryBase: "main"}).Declared(t.Context()), gate.CritSuiteIdentity, file)
	if c.Status != gate.Blocked || !strings.Contains(c.Reason, "no tag v2.45.25 or openwop-conformance/v2.45.25 reachable") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	// A tag on a side branch is not on the base.
	gitIn(t, dir, "checkout", "-q", "-b", "side")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "side")
	gitIn(t, dir, "tag", "openwop-conformance/v2.45.25")
	gitIn(t, dir, "checkout", "-q", "main")
	c = suiteCriterion(t, openSnapshot(t, dir, opts, gate.Config{HistoryBase: "main"}).Declared(t.Context()), gate.CritSuiteIdentity, file)
	if c.Status != gate.Blocked || !strings.Contains(c.Reason, "exist, but not on the base") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	gitIn(t, dir, "tag", "v2.45.25", "main")
	r := openSnapshot(t, dir, opts, gate.Config{HistoryBase: "main"})
	c = suiteCriterion(t, r.Declared(t.Context()), gate.CritSuiteIdentity, file)
	if c.Status != gate.Pass || !strings.Contains(c.Reason, "tag v2.45.25") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	if c := suiteCriterion(t, r.Declared(t.Context()), gate.CritSuiteIdentity, "myndhyve-2.43.0.json"); c.Status != gate.Blocked {
		t.Fatalf("2.43.0 untagged: %s %s", c.Status, c.Reason)
	}
	// As a witness check only when asked for.
	why := func(r *gate.Repo, f string) []string {
		for _, b := range r.Accepted(context.Background(), gate.AcceptedRequest{}).Bundles {
			if filepath.Base(b.File) == f {
				return b.Why
			}
		}
		return nil
	}
	if w := strings.Join(why(r, "myndhyve-2.43.0.json"), "\n"); strings.Contains(w, "published release") {
		t.Fatalf("suite identity judged a witness without --require-suite-tag: %s", w)
	}
	r = openSnapshot(t, dir, opts, gate.Config{HistoryBase: "main", RequireSuiteTag: true})
	if w := strings.Join(why(r, "myndhyve-2.43.0.json"), "\n"); !strings.Contains(w, "BLOCKED suite.version is a published release") {
		t.Fatalf("%s", w)
	}
	if w := strings.Join(why(r, file), "\n"); strings.Contains(w, "published release") {
		t.Fatalf("%s", w)
	}
}

// TestSuiteAdvisory: a real bundle relabelled into an advisory range is
// BLOCKED as a witness (bundle.suite-advisory) and in audit; the committed
// suites, 2.42.2 and 2.45.2 among them, are outside the ranges; a list given in
// place of the built-in one is read strictly.
func TestSuiteAdvisory(t *testing.T) {
	dir, opts := specSnapshot(t)
	r := openSnapshot(t, dir, opts, gate.Config{})
	for _, c := range criteriaOf(r.Declared(t.Context()), gate.CritSuiteAdvisory) {
		if c.Status != gate.Pass {
			t.Errorf("%s: %s %s", c.Bundle.File, c.Status, c.Reason)
		}
	}
	relabel(t, filepath.Join(dir, "evidence", "v2-host-bundles", "myndhyve-2.45.2-coordination.json"), "2.45.2", "2.45.3")
	r = openSnapshot(t, dir, opts, gate.Config{})
	c := suiteCriterion(t, r.Declared(t.Context()), gate.CritSuiteAdvisory, "myndhyve-2.45.2-coordination.json")
	if c.Status != gate.Blocked || !strings.Contains(c.Reason, "false executed-fail for workspace rows") || !strings.Contains(c.Reason, "built-in") {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	for _, b := range r.Accepted(context.Background(), gate.AcceptedRequest{}).Bundles {
		if filepath.Base(b.File) == "myndhyve-2.45.2-coordination.json" && (b.Qualifies || !strings.Contains(strings.Join(b.Why, "\n"), "BLOCKED suite release not under an advisory: suite 2.45.3 is in the advisory range 2.45.3–2.45.6")) {
			t.Fatalf("as a witness: %v %v", b.Qualifies, b.Why)
		}
	}
	adv := filepath.Join(t.TempDir(), "adv.json")
	os.WriteFile(adv, []byte(`{"advisories":[{"from":"2.43.0","to":"2.43.0","problem":"test range","source":"here"}]}`), 0o644)
	r = openSnapshot(t, dir, opts, gate.Config{SuiteAdvisoriesFile: adv})
	if c := suiteCriterion(t, r.Declared(t.Context()), gate.CritSuiteAdvisory, "myndhyve-2.43.0.json"); c.Status != gate.Blocked || !strings.Contains(c.Reason, adv) {
		t.Fatalf("%s %s", c.Status, c.Reason)
	}
	os.WriteFile(adv, []byte(`{"advisories":[{"from":"2.43.0","to":"2.43.0","problem":"x","source":"y","Problem":"z"}]}`), 0o644)
	if _, err := gate.Open(t.Context(), gate.Config{Root: dir, SuiteAdvisoriesFile: adv, Loader: &gate.Loader{Options: opts}}); err == nil || !strings.Contains(err.Error(), "unknown member") {
		t.Fatalf("%v", err)
	}
}
