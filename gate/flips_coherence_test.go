package gate_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
)

// withHeader adds header rows after an RFC's Status row.
func withHeader(text []byte, rows ...string) []byte {
	lines := strings.SplitN(string(text), "\n", -1)
	var out []string
	for _, l := range lines {
		out = append(out, l)
		if strings.HasPrefix(l, "| **Status**") {
			out = append(out, rows...)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

// A flip to Accepted of an RFC that supersedes another needs the partner
// Superseded, pointing back, in the same change; the partner is checked even
// when the change does not touch it.
func TestFlipsSupersession(t *testing.T) {
	succ := func(status string) []byte {
		return withHeader(flipRFC("0901", statusRow(status)), "| **Supersedes** | RFC 0902 |", "| **Superseded by** | — |")
	}
	pred := func(status, by string) []byte {
		return withHeader(flipRFC("0902", statusRow(status)), "| **Supersedes** | — |", "| **Superseded by** | "+by+" |")
	}
	f := newFlipsRepo(t, map[string][]byte{"0901-new.md": succ("Draft"), "0902-old.md": pred("Accepted", "—")})
	f.commit(map[string][]byte{"RFCS/0901-new.md": succ("Accepted")})
	rep := f.flips(t, f.opts)
	if len(rep.Reports) != 1 {
		t.Fatalf("%d reports", len(rep.Reports))
	}
	sup, ok := criterion(rep.Reports[0], string(gate.CritSupersession))
	if !ok || sup.Status != gate.Fail || rep.Status != gate.Fail || !findingAt(sup, "0902-old.md", 6) || !strings.Contains(sup.Reason, "RFC 0902 is `Accepted`, not `Superseded`") {
		t.Fatalf("partner untouched: %s %+v", rep.Status, sup)
	}
	// The same change records the partner: PASS.
	f.commit(map[string][]byte{"RFCS/0902-old.md": pred("Superseded", "RFC 0901")})
	rep = f.flips(t, f.opts)
	if sup, _ := criterion(rep.Reports[0], string(gate.CritSupersession)); sup.Status != gate.Pass || rep.Status != gate.Pass {
		t.Fatalf("both recorded: %s %+v %+v", rep.Status, sup, rep.Changes.Criteria)
	}
	if by, ok := criterion(rep.Changes, string(gate.CritSupersededBy)); !ok || by.Status != gate.Pass {
		t.Fatalf("the Superseded partner's pointer is checked: %+v", rep.Changes.Criteria)
	}
}

// A change that moves the superseded RFC back out of Superseded, leaving its
// Accepted successor untouched, fails on the successor's supersession.
func TestFlipsSupersessionPartnerUntouched(t *testing.T) {
	succ := withHeader(flipRFC("0901", statusRow("Accepted")), "| **Supersedes** | RFC 0902 |", "| **Superseded by** | — |")
	pred := func(status, by string) []byte {
		return withHeader(flipRFC("0902", statusRow(status)), "| **Supersedes** | — |", "| **Superseded by** | "+by+" |")
	}
	f := newFlipsRepo(t, map[string][]byte{"0901-new.md": succ, "0902-old.md": pred("Superseded", "RFC 0901")})
	f.commit(map[string][]byte{"RFCS/0902-old.md": pred("Active", "—")})
	rep := f.flips(t, f.opts)
	sup, ok := criterion(rep.Changes, string(gate.CritSupersession))
	if !ok || sup.Status != gate.Fail || rep.Status != gate.Fail || sup.Location == nil || !strings.HasSuffix(sup.Location.File, "0901-new.md") {
		t.Fatalf("%s %+v", rep.Status, rep.Changes.Criteria)
	}
	// A Superseded RFC pointing at a successor that is not Accepted.
	f = newFlipsRepo(t, map[string][]byte{"0901-new.md": withHeader(flipRFC("0901", statusRow("Active")), "| **Supersedes** | RFC 0902 |"), "0902-old.md": pred("Accepted", "—")})
	f.commit(map[string][]byte{"RFCS/0902-old.md": pred("Superseded", "RFC 0901")})
	rep = f.flips(t, f.opts)
	by, ok := criterion(rep.Changes, string(gate.CritSupersededBy))
	if !ok || by.Status != gate.Fail || !strings.Contains(by.Reason, "RFC 0902 is `Superseded by` RFC 0901, which is `Active`") {
		t.Fatalf("%+v", rep.Changes.Criteria)
	}
}

// A change that takes an RFC out of Accepted while a spec/v2 Stable banner
// cites it fails, on the banner's line.
func TestFlipsStableBanner(t *testing.T) {
	f := newFlipsRepo(t, map[string][]byte{"0901-cited.md": flipRFC("0901", statusRow("Accepted"))})
	f.commit(map[string][]byte{"spec/v2/core/page.md": []byte("# A page\n\n> **Status: Stable · 2026-11-01 · RFC 0901 §A, 0174.**\n")})
	f.base = f.git("rev-parse", "HEAD")
	f.commit(map[string][]byte{"RFCS/0901-cited.md": flipRFC("0901", statusRow("Active"))})
	rep := f.flips(t, f.opts)
	ban, ok := criterion(rep.Changes, string(gate.CritStableBanner))
	if !ok || ban.Status != gate.Fail || rep.Status != gate.Fail || !findingAt(ban, "page.md", 3) || !strings.Contains(ban.Reason, "cites RFC 0901, which is `Active`") {
		t.Fatalf("%s %+v", rep.Status, rep.Changes.Criteria)
	}
}

// The repository's governance rules run on the merge base and on the head, both
// read from git: a finding the change introduces FAILs flips.corpus-rules, one
// already at the base does not (even when an edit moves its line), and an
// uncommitted file in the work tree is never read.
func TestFlipsCorpusRules(t *testing.T) {
	banner := func(lead string) []byte {
		return []byte("# A page\n\n" + lead + "> **Status: Stable · 2026-11-01 · RFC 0902 §A.**\n")
	}
	start := func(t *testing.T) *flipsRepo {
		f := newFlipsRepo(t, map[string][]byte{"0901-a.md": flipRFC("0901", statusRow("Accepted")), "0902-b.md": flipRFC("0902", statusRow("Draft"))})
		f.commit(map[string][]byte{"spec/v2/core/old.md": banner("")})
		f.base = f.git("rev-parse", "HEAD")
		return f
	}
	t.Run("introduced", func(t *testing.T) {
		f := start(t)
		f.commit(map[string][]byte{"spec/v2/core/new.md": banner("")})
		rep := f.flips(t, f.opts)
		c, ok := criterion(rep.Changes, gate.CritCorpusRules)
		if !ok || c.Status != gate.Fail || rep.Status != gate.Fail || len(c.Findings) != 1 || !findingAt(c, "new.md", 3) ||
			!strings.HasPrefix(c.Findings[0].Message, string(gate.CritStableBanner)+": ") {
			t.Fatalf("%s %+v", rep.Status, rep.Changes.Criteria)
		}
		if !strings.HasPrefix(c.Findings[0].Location.File, f.dir) {
			t.Fatalf("the finding names a file outside the work tree: %s", c.Findings[0].Location.File)
		}
	})
	t.Run("already at the base, line moved", func(t *testing.T) {
		f := start(t)
		f.commit(map[string][]byte{"spec/v2/core/old.md": banner("Some words first.\n\n")})
		rep := f.flips(t, f.opts)
		c, ok := criterion(rep.Changes, gate.CritCorpusRules)
		if !ok || c.Status != gate.Pass || rep.Status != gate.Pass || !strings.Contains(c.Reason, "finding(s) at head were already at the merge base") {
			t.Fatalf("%s %+v", rep.Status, rep.Changes.Criteria)
		}
	})
	t.Run("a stale status in schemas/README.md", func(t *testing.T) {
		f := start(t)
		f.commit(map[string][]byte{"schemas/README.md": []byte("| a.json | RFC 0902 (`Accepted`) |\n")})
		rep := f.flips(t, f.opts)
		c, ok := criterion(rep.Changes, gate.CritCorpusRules)
		if !ok || c.Status != gate.Fail || len(c.Findings) != 1 || !findingAt(c, "README.md", 1) ||
			!strings.HasPrefix(c.Findings[0].Message, string(gate.CritSchemasReadme)+": ") {
			t.Fatalf("%s %+v", rep.Status, rep.Changes.Criteria)
		}
	})
	t.Run("nothing the rules read changed", func(t *testing.T) {
		f := start(t)
		f.commit(map[string][]byte{"README.md": []byte("words\n")})
		rep := f.flips(t, f.opts)
		if c, ok := criterion(rep.Changes, gate.CritCorpusRules); ok {
			t.Fatalf("run on a change that touches none of its inputs: %+v", c)
		}
	})
	t.Run("an uncommitted file the rules read is refused", func(t *testing.T) {
		f := start(t)
		f.commit(map[string][]byte{"spec/v2/core/old.md": banner("Some words first.\n\n")})
		if err := os.WriteFile(filepath.Join(f.dir, "spec", "v2", "core", "dirty.md"), banner(""), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := gate.Flips(t.Context(), gate.Config{Root: f.dir, Loader: &gate.Loader{Options: f.opts}}, gate.FlipsRequest{Base: f.base})
		var in *gate.InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), "uncommitted changes the gate would read: spec/v2/core/dirty.md") {
			t.Fatalf("%v", err)
		}
	})
}

// The coherence rules of a status flip read the head commit's banners, and an
// uncommitted page or waiver register beside the change is refused (before,
// the rules read the work tree, where such a page passed or failed the flip).
func TestFlipsCoherenceReadsHeadCommit(t *testing.T) {
	f := newFlipsRepo(t, map[string][]byte{"0901-cited.md": flipRFC("0901", statusRow("Accepted"))})
	f.commit(map[string][]byte{"RFCS/0901-cited.md": flipRFC("0901", statusRow("Active"))})
	for _, p := range []string{"spec/v2/core/page.md", "docs/WAIVER-RETROSPECTIVE-REGISTER.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(f.dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.dir, p), []byte("# A page\n\n> **Status: Stable · 2026-11-01 · RFC 0901 §A.**\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := gate.Flips(t.Context(), gate.Config{Root: f.dir, Loader: &gate.Loader{Options: f.opts}}, gate.FlipsRequest{Base: f.base})
		if err == nil || !strings.Contains(err.Error(), "uncommitted changes the gate would read: "+p) {
			t.Fatalf("%s: %v", p, err)
		}
		os.Remove(filepath.Join(f.dir, p))
	}
	rep := f.flips(t, f.opts)
	if ban, ok := criterion(rep.Changes, string(gate.CritStableBanner)); !ok || ban.Status != gate.Pass {
		t.Fatalf("%+v", rep.Changes.Criteria)
	}
}
