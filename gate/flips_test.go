package gate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// flipRFC is an RFC the fixture spec repository witnesses (0901.good, in
// good.json, tier 1, its key pinned with its origin) with statusRow as its
// header's Status row.
func flipRFC(number, statusRow string) []byte {
	return []byte(`# RFC ` + number + `: a sample

| Field | Value |
| --- | --- |
| **RFC** | ` + number + ` |
` + statusRow + `
| **Updated** | 2026-10-01 — Evidence tier: tier-1. |

## Conformance

| Leg | Assertion |
| --- | --- |
| ` + "`0901.good`" + ` | the fixture row |

### Falsifiability

| Requirement | Observable | Witness | Verdict |
| --- | --- | --- | --- |
| ` + "`0901.good`" + ` | the fixture row | good.json | witnessable |

## Acceptance criteria

- [x] ` + "`0901.good`" + ` is executed-pass in good.json
`)
}

func statusRow(s string) string { return "| **Status** | `" + s + "` |" }

// flipsRepo is the fixture spec repository committed as the base of a change.
type flipsRepo struct {
	*gitRepo
	base string
	opts verify.Options
}

func newFlipsRepo(t *testing.T, rfcs map[string][]byte) *flipsRepo {
	g := newGitRepo(t)
	if err := testkit.SpecRepo(g.dir); err != nil {
		t.Fatal(err)
	}
	ring, err := keys.LoadKeyring(filepath.Join(g.dir, "keyring.json"))
	if err != nil {
		t.Fatal(err)
	}
	g.git("add", "-A")
	files := map[string][]byte{"RFCS/README.md": []byte("# RFCs\n")}
	for name, text := range rfcs {
		files["RFCS/"+name] = text
	}
	base := g.commit(files)
	return &flipsRepo{gitRepo: g, base: base, opts: verify.Options{Keyring: ring, Registry: profiles.Default()}}
}

func (f *flipsRepo) flips(t *testing.T, opts verify.Options) *gate.FlipsReport {
	t.Helper()
	rep, err := gate.Flips(context.Background(), gate.Config{Root: f.dir, Loader: &gate.Loader{Options: opts}, KeyringPath: filepath.Join(f.dir, "keyring.json")}, gate.FlipsRequest{Base: f.base})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func (f *flipsRepo) remove(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		f.git("rm", "-q", n)
	}
}

// transitions maps each listed RFC file's base name to its transition.
func transitions(rep *gate.FlipsReport) map[string]gate.Transition {
	out := map[string]gate.Transition{}
	for _, t := range rep.Transitions {
		out[filepath.Base(t.File)] = t
	}
	return out
}

func criterion(rep *gate.Report, id string) (gate.Criterion, bool) {
	for _, c := range rep.Criteria {
		if string(c.ID) == id {
			return c, true
		}
	}
	return gate.Criterion{}, false
}

// Status is read with the RFC reader the gate uses, whatever the spelling of
// the header row: padded, tight, CRLF, indented, without bold or backticks,
// with text after the value. A row it cannot read is BLOCKED, never skipped.
func TestFlipsStatusVariants(t *testing.T) {
	for name, tc := range map[string]struct {
		row  string
		crlf bool
		want gate.Status // of the change: PASS when gated and passing
		to   string
	}{
		"canonical":              {row: statusRow("Accepted"), want: gate.Pass, to: "Accepted"},
		"padded":                 {row: "| **Status**        | `Accepted`                                                      |", want: gate.Pass, to: "Accepted"},
		"tight":                  {row: "|**Status**|`Accepted`|", want: gate.Pass, to: "Accepted"},
		"CRLF":                   {row: statusRow("Accepted"), crlf: true, want: gate.Pass, to: "Accepted"},
		"indented three spaces":  {row: "   " + statusRow("Accepted"), want: gate.Pass, to: "Accepted"},
		"no backticks":           {row: "| **Status** | Accepted |", want: gate.Pass, to: "Accepted"},
		"no bold, colon, bold":   {row: "| Status: | **Accepted** (provisional, RFC 0156 §B review owed) |", want: gate.Pass, to: "Accepted"},
		"text after the value":   {row: "| **Status** | `Accepted` — provisional |", want: gate.Pass, to: "Accepted"},
		"not a table row":        {row: "**Status:** Accepted", want: gate.Blocked, to: ""},
		"empty cell":             {row: "| **Status** |  |", want: gate.Blocked, to: ""},
		"still Draft, respelled": {row: "|**Status**|Draft|", want: gate.Pass, to: "Draft"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
			text := flipRFC("0901", tc.row)
			if tc.crlf {
				text = []byte(strings.ReplaceAll(string(text), "\n", "\r\n"))
			}
			f.commit(map[string][]byte{"RFCS/0901-sample.md": text})
			rep := f.flips(t, f.opts)
			if rep.Status != tc.want {
				t.Fatalf("status %s, want %s: %+v %+v", rep.Status, tc.want, rep.Transitions, rep.Changes.Criteria)
			}
			tr := transitions(rep)
			switch tc.to {
			case "Draft":
				if len(rep.Transitions) != 0 {
					t.Fatalf("a respelled Draft is no Status change: %+v", rep.Transitions)
				}
			case "Accepted":
				x := tr["0901-sample.md"]
				if !x.Gated || x.From != "Draft" || x.To != "Accepted" || x.Line != 6 || len(rep.Reports) != 1 || rep.Reports[0].Status != gate.Pass {
					t.Fatalf("not gated as a flip: %+v", rep.Transitions)
				}
			default:
				c, ok := criterion(rep.Changes, gate.CritStatusUnreadable)
				if !ok || c.Status != gate.Blocked || !strings.Contains(c.Reason, "| **Status** | `Accepted` |") || c.Location == nil || filepath.Base(c.Location.File) != "0901-sample.md" {
					t.Fatalf("unreadable Status not BLOCKED: %+v", rep.Changes.Criteria)
				}
				if x := tr["0901-sample.md"]; x.Gated || x.From != "Draft" || x.To != "" {
					t.Fatalf("%+v", x)
				}
			}
		})
	}
}

// Every kind of Status change is listed; only a change to Accepted (of an RFC
// numbered 0167 or later) is gated, whether it is a flip, an addition or a
// rename; the others say why not.
func TestFlipsTransitions(t *testing.T) {
	long := func(number, status string) []byte {
		return append(flipRFC(number, statusRow(status)), []byte(strings.Repeat("Rationale paragraph that the rename below rewrites.\n", 40))...)
	}
	f := newFlipsRepo(t, map[string][]byte{
		"0901-flip.md":          flipRFC("0901", statusRow("Draft")),
		"0902-renamed.md":       flipRFC("0902", statusRow("Active")),
		"0903-rewritten.md":     long("0903", "Active"),
		"0904-deleted.md":       flipRFC("0904", statusRow("Accepted")),
		"0905-leaves.md":        flipRFC("0905", statusRow("Accepted")),
		"0906-draft-active.md":  flipRFC("0906", statusRow("Draft")),
		"0148-grandfathered.md": flipRFC("0148", statusRow("Draft")),
		"0907-edited.md":        flipRFC("0907", statusRow("Accepted")),
		"0908-moved-only.md":    flipRFC("0908", statusRow("Active")),
		"0911-archived.md":      flipRFC("0911", statusRow("Active")),
	})
	f.git("mv", "RFCS/0911-archived.md", "RFCS/README-0911-archived.md") // out of the RFC files
	f.git("mv", "RFCS/0902-renamed.md", "RFCS/0902-new-name.md")
	f.git("mv", "RFCS/0908-moved-only.md", "RFCS/0908-moved.md")
	f.remove(t, "RFCS/0903-rewritten.md", "RFCS/0904-deleted.md")
	f.commit(map[string][]byte{
		"RFCS/0901-flip.md":                flipRFC("0901", statusRow("Accepted")),
		"RFCS/0902-new-name.md":            flipRFC("0902", statusRow("Accepted")),
		"RFCS/0903-rewritten-as.md":        append(flipRFC("0903", statusRow("Accepted")), "A new text, nothing like the old.\n"...),
		"RFCS/0905-leaves.md":              flipRFC("0905", statusRow("Active")),
		"RFCS/0906-draft-active.md":        flipRFC("0906", statusRow("Active")),
		"RFCS/0148-grandfathered.md":       flipRFC("0148", statusRow("Accepted")),
		"RFCS/0907-edited.md":              append(flipRFC("0907", statusRow("Accepted")), "An edit.\n"...),
		"RFCS/0909-added.md":               flipRFC("0909", statusRow("Accepted")),
		"RFCS/0910-added-draft.md":         flipRFC("0910", statusRow("Draft")),
		"RFCS/registers/0901-flip.gaps.md": []byte("| G1 | `closed` |\n"),
	})
	rep := f.flips(t, f.opts)
	tr := transitions(rep)
	type want struct {
		gated            bool
		from, to, change string
		baseFile, why    string
	}
	for file, w := range map[string]want{
		"0901-flip.md":          {gated: true, from: "Draft", to: "Accepted", change: "modified", why: "flipped to Accepted"},
		"0902-new-name.md":      {gated: true, from: "Active", to: "Accepted", change: "renamed", baseFile: "0902-renamed.md", why: "flipped to Accepted"},
		"0903-rewritten-as.md":  {gated: true, from: "Active", to: "Accepted", change: "renamed", baseFile: "0903-rewritten.md", why: "flipped to Accepted"},
		"0904-deleted.md":       {from: "Accepted", to: "", change: "deleted", why: "the change deletes the RFC file"},
		"0905-leaves.md":        {from: "Accepted", to: "Active", change: "modified", why: "leaves Accepted"},
		"0906-draft-active.md":  {from: "Draft", to: "Active", change: "modified", why: "only a flip to Accepted is gated"},
		"0148-grandfathered.md": {from: "Draft", to: "Accepted", change: "modified", why: "numbered below 0167"},
		"0909-added.md":         {gated: true, from: "", to: "Accepted", change: "added", why: "added already Accepted"},
		"0910-added-draft.md":   {from: "", to: "Draft", change: "added", why: "only a flip to Accepted is gated"},
		"0911-archived.md":      {from: "Active", to: "", change: "deleted", why: "the change deletes the RFC file"},
	} {
		got, ok := tr[file]
		if !ok {
			t.Errorf("%s: not listed", file)
			continue
		}
		if got.Gated != w.gated || got.From != w.from || got.To != w.to || got.Change != w.change || filepath.Base(got.BaseFile) != filepath.Base(w.baseFile) && w.baseFile != "" || !strings.Contains(got.Why, w.why) {
			t.Errorf("%s: %+v, want %+v", file, got, w)
		}
		if got.Gated && got.Status != gate.Pass {
			t.Errorf("%s: gated %s", file, got.Status)
		}
		if w.baseFile == "" && got.BaseFile != "" {
			t.Errorf("%s: base file %s", file, got.BaseFile)
		}
	}
	for _, quiet := range []string{"0907-edited.md", "0908-moved.md", "README.md", "0901-flip.gaps.md"} {
		if _, ok := tr[quiet]; ok {
			t.Errorf("%s listed, but its Status did not change", quiet)
		}
	}
	if len(rep.Transitions) != 10 || len(rep.Reports) != 4 || rep.Status != gate.Pass || rep.ExitCode != 0 {
		t.Fatalf("%d transitions, %d reports, %s", len(rep.Transitions), len(rep.Reports), rep.Status)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "1 Accepted RFC(s) edited without a Status change") {
		t.Errorf("notes: %q", rep.Notes)
	}
	for i := 1; i < len(rep.Transitions); i++ {
		if rep.Transitions[i-1].Number > rep.Transitions[i].Number {
			t.Fatalf("not in RFC order: %+v", rep.Transitions)
		}
	}
}

// A flip whose evidence does not hold FAILs with the Accepted report's reasons.
func TestFlipsFailingFlip(t *testing.T) {
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
	text := strings.Replace(string(flipRFC("0901", statusRow("Accepted"))), "Evidence tier: tier-1.", "no tier named", 1)
	f.commit(map[string][]byte{"RFCS/0901-sample.md": []byte(text)})
	rep := f.flips(t, f.opts)
	if rep.Status != gate.Fail || rep.ExitCode != 1 || len(rep.Reports) != 1 {
		t.Fatalf("%s %d", rep.Status, len(rep.Reports))
	}
	c, ok := criterion(rep.Reports[0], gate.CritUpdated)
	if !ok || c.Status != gate.Fail || c.Location == nil || c.Location.Line != 7 {
		t.Fatalf("%+v", c)
	}
}

// Bundles under evidence/'s subdirectories: a modified one is compared with its
// base version (a regression FAILs), an added one must verify, one renamed with
// the same bytes is listed; evidence/'s top-level files are not bundles.
func TestFlipsBundles(t *testing.T) {
	f := newFlipsRepo(t, nil)
	bundles := "evidence/v2-host-bundles/"
	// good.json re-cut without 0901.good: a genuinely signed regression.
	regressed := testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, []bundle.Row{testkit.Pass("0901.shared")}, nil)
	improved := testkit.BuildBundle(testkit.OriginTier2, testkit.KeyTier2, []bundle.Row{testkit.Pass("0902.tier2-only"), testkit.Pass("0902.more")}, nil)
	stranger := testkit.BuildBundle(testkit.OriginTier1, testkit.FixtureKey{Name: "stranger", ID: "stranger-1"}, nil, nil)
	f.git("mv", bundles+"relaxed.json", bundles+"relaxed-renamed.json")
	f.commit(map[string][]byte{
		bundles + "good.json":           testkit.Encode(regressed),
		bundles + "tier2.json":          testkit.Encode(improved),
		bundles + "new-good.json":       testkit.Encode(testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, []bundle.Row{testkit.Pass("0911.new")}, nil)),
		bundles + "new-stranger.json":   testkit.Encode(stranger),
		"evidence/rfc-witnesses/x.json": []byte(`{"bundleVersion": 3}`),
		bundles + "not-json.json":       []byte("{"),
		"evidence/corpus-ledger.json":   []byte(`{"requirements":{}}`),
	})
	rep := f.flips(t, f.opts)
	got := map[string]gate.BundleChange{}
	for _, b := range rep.Bundles {
		got[filepath.Base(b.File)] = b
	}
	for file, want := range map[string]struct {
		change string
		status gate.Status
	}{
		"good.json":            {"modified", gate.Fail},
		"tier2.json":           {"modified", gate.Pass},
		"new-good.json":        {"added", gate.Pass},
		"new-stranger.json":    {"added", gate.Blocked},
		"x.json":               {"added", gate.Fail},
		"not-json.json":        {"added", gate.Fail},
		"relaxed-renamed.json": {"renamed", ""},
	} {
		if b := got[file]; b.Change != want.change || b.Status != want.status {
			t.Errorf("%s: %+v, want %s %s", file, b, want.change, want.status)
		}
	}
	if len(rep.Bundles) != 7 {
		t.Errorf("%d bundle changes: %+v", len(rep.Bundles), rep.Bundles)
	}
	var regression gate.Criterion
	for _, c := range rep.Changes.Criteria {
		if c.ID == gate.CritRegressions && c.Status == gate.Fail {
			regression = c
		}
	}
	if !strings.Contains(regression.Reason, "row openwop.requirement.0901.good was executed-pass and is gone") || len(regression.Findings) == 0 || regression.Findings[0].Location == nil || regression.Findings[0].Location.File != filepath.Join(f.dir, bundles+"good.json") {
		t.Fatalf("regression: %+v", regression)
	}
	if d := got["good.json"].Diff; d == nil || len(d.Regressions) == 0 || !strings.HasPrefix(d.A.File, f.base[:12]+":") {
		t.Fatalf("diff: %+v", d)
	}
	if rep.Status != gate.Fail || rep.ExitCode != 1 || len(rep.Transitions) != 0 || len(rep.Reports) != 0 {
		t.Fatalf("%s %d", rep.Status, rep.ExitCode)
	}
}

// A bundle moved and re-cut is compared with its old version (renames are
// followed, for bundles of the same host); a deleted one is noted.
func TestFlipsBundleRenames(t *testing.T) {
	bundles := "evidence/v2-host-bundles/"
	f := newFlipsRepo(t, nil)
	f.git("mv", bundles+"good.json", bundles+"good-2026-11.json")
	rows := testkit.SpecRepoBundles()["good.json"].Results.Requirements
	recut := testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, nil, func(b *bundle.Bundle) {
		b.Results.Requirements = nil
		for _, r := range rows {
			if r.ID != "openwop.requirement.0901.good" { // lost in the re-cut
				b.Results.Requirements = append(b.Results.Requirements, r)
			}
		}
	})
	f.commit(map[string][]byte{bundles + "good-2026-11.json": testkit.Encode(recut)})
	rep := f.flips(t, f.opts)
	if len(rep.Bundles) != 1 || rep.Bundles[0].Change != "renamed" || filepath.Base(rep.Bundles[0].BaseFile) != "good.json" || rep.Bundles[0].Status != gate.Fail {
		t.Fatalf("%+v", rep.Bundles)
	}
	if c := rep.Changes.Criteria[0]; !strings.Contains(c.Reason, "1 regression(s) against "+f.base[:12]+":evidence/v2-host-bundles/good.json") {
		t.Fatalf("%s", c.Reason)
	}

	f = newFlipsRepo(t, nil)
	f.remove(t, bundles+"guard-open.json")
	f.commit(nil)
	rep = f.flips(t, f.opts)
	if len(rep.Bundles) != 1 || rep.Bundles[0].Change != "deleted" || rep.Status != gate.Pass ||
		!strings.Contains(strings.Join(rep.Notes, "\n"), "the change deletes "+filepath.Join(f.dir, bundles+"guard-open.json")) {
		t.Fatalf("%+v %q", rep.Bundles, rep.Notes)
	}
}

// The git binder of a change under review counts only history up to the merge
// base: an untouched committed bundle is bound by it, one the change adds is
// not (its author wrote that history), whatever its commits say.
func TestFlipsHistoryBinder(t *testing.T) {
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
	pems := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}
	f.commit(map[string][]byte{"RFCS/0901-sample.md": flipRFC("0901", statusRow("Accepted"))})
	rep := f.flips(t, pems)
	if rep.Status != gate.Pass {
		t.Fatalf("%s: %+v", rep.Status, rep.Reports[0].Criteria)
	}
	tier := tierCriterion(t, rep.Reports[0], "good.json")
	if !strings.Contains(tier.Reason, "origin bound by git history") || !strings.Contains(tier.Reason, "on the reviewed base "+f.base[:12]+" added it") {
		t.Fatalf("%s", tier.Reason)
	}
	// The change replaces good.json with a re-cut carrying the same row: its
	// history starts in the change.
	rows := testkit.SpecRepoBundles()["good.json"].Results.Requirements
	recut := testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, nil, func(b *bundle.Bundle) {
		b.Results.Requirements = append(append([]bundle.Row{}, rows...), testkit.Pass("0901.extra"))
	})
	f.commit(map[string][]byte{"evidence/v2-host-bundles/good.json": testkit.Encode(recut)})
	rep = f.flips(t, pems)
	tier = tierCriterion(t, rep.Reports[0], "good.json")
	if rep.Status != gate.Blocked || tier.Status != gate.Blocked || !strings.Contains(tier.Reason, "is not on the reviewed base "+f.base[:12]+": only reviewed history binds") {
		t.Fatalf("%s: %s", rep.Status, tier.Reason)
	}
	// The keyring pin binds it.
	rep = f.flips(t, f.opts)
	if rep.Status != gate.Pass {
		t.Fatalf("with the keyring: %s", rep.Status)
	}
}

// A change that edits the keyring or the host-tier table while it flips an RFC
// is BLOCKED: the verdict would rest on policy it wrote itself. Without a flip
// the edit is only noted.
func TestFlipsPolicyEdit(t *testing.T) {
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
	ring, err := os.ReadFile(filepath.Join(f.dir, "keyring.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.commit(map[string][]byte{"keyring.json": append(ring, '\n')})
	rep := f.flips(t, f.opts)
	if rep.Status != gate.Pass || !strings.Contains(strings.Join(rep.Notes, "\n"), "keyring.json (the keyring); it flips no RFC") {
		t.Fatalf("%s %q", rep.Status, rep.Notes)
	}
	f.commit(map[string][]byte{"RFCS/0901-sample.md": flipRFC("0901", statusRow("Accepted")), "evidence/host-tiers.json": []byte(`{"hosts":[]}`)})
	rep = f.flips(t, f.opts)
	c, ok := criterion(rep.Changes, gate.CritPolicy)
	if !ok || c.Status != gate.Blocked || len(c.Findings) != 2 || !strings.Contains(c.Reason, "(the keyring)") || !strings.Contains(c.Reason, "(the host-tier table)") {
		t.Fatalf("%+v", rep.Changes.Criteria)
	}
	// The flip itself fails (the edited table lists no host), so the run FAILs.
	if rep.Status != gate.Fail {
		t.Fatalf("%s", rep.Status)
	}
}

// Inputs the gate cannot use are *gate.InputError (exit 3), each naming the
// remedy: not a work tree, an unknown revision, a shallow clone lacking the
// base, another commit checked out, uncommitted changes.
func TestFlipsInputErrors(t *testing.T) {
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
	head := f.commit(map[string][]byte{"RFCS/0901-sample.md": flipRFC("0901", statusRow("Accepted"))})
	clone := t.TempDir()
	f.git("clone", "-q", "--depth", "1", "file://"+f.dir, clone)
	try := func(root string, req gate.FlipsRequest) error {
		_, err := gate.Flips(context.Background(), gate.Config{Root: root, Loader: &gate.Loader{Options: f.opts}}, req)
		return err
	}
	for name, tc := range map[string]struct {
		root string
		req  gate.FlipsRequest
		want string
	}{
		"no base":              {f.dir, gate.FlipsRequest{}, "no base revision"},
		"an option":            {f.dir, gate.FlipsRequest{Base: "--output=x"}, `"--output=x" is not a revision`},
		"not a work tree":      {t.TempDir(), gate.FlipsRequest{Base: "HEAD"}, "is not in a git work tree: run gate flips in a clone of the spec repository (in GitHub Actions, actions/checkout with fetch-depth: 0)"},
		"unknown base":         {f.dir, gate.FlipsRequest{Base: "no-such-branch"}, "base revision no-such-branch names no commit in this clone: fetch it (git fetch origin no-such-branch)"},
		"shallow":              {clone, gate.FlipsRequest{Base: f.base}, "is not in this clone, which is shallow: fetch the whole history (in GitHub Actions, actions/checkout with fetch-depth: 0"},
		"head not checked out": {f.dir, gate.FlipsRequest{Base: f.base, Head: f.base}, "but the work tree has " + head[:12] + " checked out"},
	} {
		err := try(tc.root, tc.req)
		var in *gate.InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an InputError containing %q", name, err, tc.want)
		}
	}
	if err := os.WriteFile(filepath.Join(f.dir, "RFCS", "0901-sample.md"), flipRFC("0901", statusRow("Draft")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "evidence", "v2-host-bundles", "untracked.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := try(f.dir, gate.FlipsRequest{Base: f.base})
	if err == nil || !strings.Contains(err.Error(), "uncommitted changes the gate would read: RFCS/0901-sample.md; evidence/v2-host-bundles/untracked.json") {
		t.Errorf("dirty: %v", err)
	}
}

// BindByHistory with a base binds only a payload that the base's history already
// carried.
func TestBindByHistoryOnBase(t *testing.T) {
	f := newFlipsRepo(t, nil)
	good := filepath.Join(f.dir, "evidence", "v2-host-bundles", "good.json")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gate.BindByHistory(context.Background(), good, sha(data), ""); err == nil {
		t.Fatal("no base: bound")
	}
	hb, err := gate.BindByHistory(context.Background(), good, sha(data), f.base)
	if err != nil || hb.Commit != f.base {
		t.Fatalf("%+v %v", hb, err)
	}
	recut := testkit.Encode(testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, []bundle.Row{testkit.Pass("0901.good")}, nil))
	head := f.commit(map[string][]byte{"evidence/v2-host-bundles/good.json": recut})
	_, err = gate.BindByHistory(context.Background(), good, sha(recut), f.base)
	var un *gate.HistoryUnavailableError
	if !errors.As(err, &un) || !strings.Contains(un.Reason, "commit "+head[:12]+", which added this discovery.url with the signed payload, is not on the reviewed base "+f.base[:12]) {
		t.Fatalf("%v", err)
	}
	// Once the base moves past it, the same history binds.
	if hb, err := gate.BindByHistory(context.Background(), good, sha(recut), head); err != nil || hb.Commit != head {
		t.Fatalf("%+v %v", hb, err)
	}
}
