package gate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// withURL returns the bundle file bytes with discovery.url replaced: the
// signature still verifies, because discovery.url is not signed.
func withURL(t testing.TB, data []byte, url string) []byte {
	t.Helper()
	root, err := bundle.ParseIJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	disc, _ := root.Get("discovery")
	out, err := bundle.Indent(root.With("discovery", disc.With("url", bundle.StringValue(url))))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tierCriterion(t testing.TB, rep *gate.Report, file string) gate.Criterion {
	t.Helper()
	for _, c := range rep.Criteria {
		if c.ID == gate.CritTier && c.Bundle != nil && filepath.Base(c.Bundle.File) == file {
			return c
		}
	}
	t.Fatalf("no bundle.tier criterion for %s: %+v", file, rep.Criteria)
	return gate.Criterion{}
}

// The tier of a bundle's discovery.url origin counts only when a binder holds:
// the keyring pin of the key its signature verified under, a live fetch whose
// document hashes to discovery.sha256, or (tested below) git history. Otherwise
// it is BLOCKED, or PASS marked unsigned under TrustUnsignedOrigin; a keyring
// pinning the key to other origins FAILs it whatever else holds.
func TestTierBinding(t *testing.T) {
	dir, opts := fixture(t)
	good := filepath.Join(dir, "evidence", "v2-host-bundles", "good.json")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	pem := keys.Set{testkit.HostPublic()}
	pinned := func(origins ...string) *keys.Keyring {
		k := keys.NewKeyring()
		if _, err := k.TrustKey(keys.PublicKey{Key: testkit.Public("host"), KeyID: testkit.HostKeyID}, keys.KeyringHost{Name: "test-host"}.WithOrigins(origins...), "test", time.Now()); err != nil {
			t.Fatal(err)
		}
		k.Path = "ring.json"
		return k
	}
	match := func(ctx context.Context, url string, major int) (*discovery.Document, error) {
		return &discovery.Document{URL: url, Value: *b.Discovery.Document, Sha256: b.Discovery.Sha256}, nil
	}
	drift := func(ctx context.Context, url string, major int) (*discovery.Document, error) {
		return &discovery.Document{URL: url, Sha256: strings.Repeat("0", 64)}, nil
	}
	down := func(ctx context.Context, url string, major int) (*discovery.Document, error) {
		return nil, errors.New("connection refused")
	}
	for name, tc := range map[string]struct {
		opts    verify.Options
		url     string // discovery.url after the edit ("" keeps it)
		live    bool
		fetch   func(context.Context, string, int) (*discovery.Document, error)
		trust   bool
		status  gate.Status
		contain string
	}{
		"keyring pins the origin":              {opts: opts, status: gate.Pass, contain: "origin bound by keyring " + filepath.Join(dir, "keyring.json") + " entry test-host-1, which pins the signing key with it"},
		"keyring pins it among several":        {opts: verify.Options{HostKeys: pem, Keyring: pinned("https://a.example", testkit.OriginTier1)}, status: gate.Pass, contain: "origin bound by keyring ring.json entry test-host-1"},
		"a PEM key, matched in the keyring":    {opts: verify.Options{HostKeys: pem, Keyring: pinned(testkit.OriginTier1)}, status: gate.Pass, contain: "bound by keyring ring.json"},
		"keyring pins another origin":          {opts: verify.Options{Keyring: pinned(testkit.OriginTier2)}, status: gate.Fail, contain: "discovery.url names origin https://host.example, but keyring ring.json pins the signing key test-host-1"},
		"edited url, keyring pins the real":    {opts: opts, url: testkit.OriginTier2 + "/.well-known/openwop", status: gate.Fail, contain: "the bundle claims another host's origin"},
		"another origin, even when trusted":    {opts: verify.Options{Keyring: pinned(testkit.OriginTier2)}, trust: true, status: gate.Fail, contain: "claims another host's origin"},
		"another origin, even when live":       {opts: verify.Options{Keyring: pinned(testkit.OriginTier2)}, live: true, fetch: match, status: gate.Fail, contain: "claims another host's origin"},
		"keyring pins no origin":               {opts: verify.Options{Keyring: pinned()}, status: gate.Blocked, contain: "keyring: ring.json pins the signing key as test-host-1 with no origin"},
		"a PEM alone":                          {opts: verify.Options{HostKeys: pem}, status: gate.Blocked, contain: "keyring: none given; git: "},
		"a PEM alone, trusting the unsigned":   {opts: verify.Options{HostKeys: pem}, trust: true, status: gate.Pass, contain: "the origin is UNSIGNED: discovery.url is taken as the bundle states it (--trust-unsigned-origin)"},
		"no trusted key":                       {opts: verify.Options{}, trust: true, status: gate.Pass, contain: "keyring: the host signature was not verified under a trusted key"},
		"live fetch matches":                   {opts: verify.Options{HostKeys: pem}, live: true, fetch: match, status: gate.Pass, contain: "origin bound by live fetch: https://host.example/.well-known/openwop hashes to"},
		"live fetch of a path, not the origin": {opts: verify.Options{HostKeys: pem}, url: testkit.OriginTier1 + "/u/someone/.well-known/openwop", live: true, fetch: match, status: gate.Blocked, contain: "the live fetch binds an origin only through https://host.example/.well-known/openwop, and discovery.url is https://host.example/u/someone/.well-known/openwop"},
		"live fetch drifted":                   {opts: verify.Options{HostKeys: pem}, live: true, fetch: drift, status: gate.Blocked, contain: "live: the live fetch did not bind it (fail)"},
		"live fetch failed":                    {opts: verify.Options{HostKeys: pem}, live: true, fetch: down, status: gate.Blocked, contain: "live: the live fetch did not bind it (blocked)"},
		"live fetch failed, trusting unbound":  {opts: verify.Options{HostKeys: pem}, live: true, fetch: down, trust: true, status: gate.Pass, contain: "UNSIGNED"},
	} {
		t.Run(name, func(t *testing.T) {
			d := t.TempDir()
			if err := testkit.SpecRepo(d); err != nil {
				t.Fatal(err)
			}
			if tc.url != "" {
				if err := os.WriteFile(filepath.Join(d, "evidence", "v2-host-bundles", "good.json"), withURL(t, data, tc.url), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o := tc.opts
			o.Registry = profiles.Default()
			repo, err := gate.Open(t.Context(), gate.Config{Root: d, Loader: &gate.Loader{Options: o}, Live: tc.live, Fetch: tc.fetch, TrustUnsignedOrigin: tc.trust})
			if err != nil {
				t.Fatal(err)
			}
			rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{"openwop.requirement.0901.good"}})
			c := tierCriterion(t, rep, "good.json")
			if c.Status != tc.status || !strings.Contains(c.Reason, tc.contain) {
				t.Errorf("%s: %s\n%s\nwant %s containing %q", name, c.Status, c.Reason, tc.status, tc.contain)
			}
			if rep.Settings.TrustUnsignedOrigin != tc.trust {
				t.Errorf("settings.trustUnsignedOrigin %v", rep.Settings.TrustUnsignedOrigin)
			}
		})
	}
}

// gitRepo is a scratch repository for BindByHistory.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newGitRepo(t *testing.T) *gitRepo {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	g := &gitRepo{t: t, dir: t.TempDir()}
	g.git("init", "-q")
	return g
}

func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes each file and commits them, returning the commit id.
func (g *gitRepo) commit(files map[string][]byte) string {
	g.t.Helper()
	for name, data := range files {
		p := filepath.Join(g.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			g.t.Fatal(err)
		}
		g.git("add", name)
	}
	g.git("commit", "-q", "-m", fmt.Sprintf("change %d", len(g.git("log", "--oneline", "--all"))))
	return g.git("rev-parse", "HEAD")
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func TestBindByHistory(t *testing.T) {
	p := testkit.Encode(testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, nil, nil))
	q := testkit.Encode(testkit.BuildBundle(testkit.OriginTier2, testkit.KeyHost, []bundle.Row{testkit.Pass("0990.other")}, nil))
	pMoved := withURL(t, p, testkit.OriginTier2+"/.well-known/openwop")
	qMoved := withURL(t, q, testkit.OriginTier1+"/.well-known/openwop")
	const f = "evidence/b.json"
	type step = map[string][]byte
	for name, tc := range map[string]struct {
		steps []step
		// after the commits: a work-tree edit (nil: none)
		worktree []byte
		file     string
		// bound: the commit index that binds (-1: refused or unavailable)
		bound       int
		edit        bool
		unavailable string
	}{
		"added once":             {steps: []step{{f: p}}, bound: 0},
		"untouched by others":    {steps: []step{{f: p}, {"other.txt": []byte("x")}}, bound: 0},
		"re-minted with its url": {steps: []step{{f: p}, {f: q}}, bound: 1},
		"url edited alone":       {steps: []step{{f: p}, {f: pMoved}}, bound: -1, edit: true},
		"url edited, re-minted":  {steps: []step{{f: p}, {f: pMoved}, {f: q}}, bound: -1, edit: true},
		// The payload of an earlier cut reverted under a later URL: each commit
		// changed the payload, yet that payload was committed with another URL.
		"payload reverted":      {steps: []step{{f: q}, {f: p}, {f: qMoved}}, bound: -1, edit: true},
		"modified in work tree": {steps: []step{{f: p}}, worktree: pMoved, bound: -1, unavailable: "differs from its committed version"},
		"untracked":             {steps: []step{{"other.txt": []byte("x")}}, worktree: p, bound: -1, unavailable: "is not committed"},
		"not a bundle":          {steps: []step{{f: []byte("not json")}}, bound: -1, unavailable: "no signed payload"},
	} {
		t.Run(name, func(t *testing.T) {
			g := newGitRepo(t)
			var commits []string
			for _, s := range tc.steps {
				commits = append(commits, g.commit(s))
			}
			path := filepath.Join(g.dir, f)
			if tc.worktree != nil {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, tc.worktree, 0o644)
			}
			data, _ := os.ReadFile(path)
			hb, err := gate.BindByHistory(context.Background(), path, sha(data), "HEAD")
			var edit *gate.HistoryEditError
			var un *gate.HistoryUnavailableError
			switch {
			case tc.bound >= 0:
				if err != nil || hb.Commit != commits[tc.bound] {
					t.Fatalf("%v %+v, want bound since %s", err, hb, commits[tc.bound])
				}
			case tc.edit:
				if !errors.As(err, &edit) || !strings.Contains(err.Error(), "edited without a re-mint") {
					t.Fatalf("%v %+v, want a *HistoryEditError", err, hb)
				}
			default:
				if !errors.As(err, &un) || !strings.Contains(un.Reason, tc.unavailable) {
					t.Fatalf("%v %+v, want unavailable: %s", err, hb, tc.unavailable)
				}
			}
		})
	}

	t.Run("renamed after the edit", func(t *testing.T) {
		g := newGitRepo(t)
		g.commit(map[string][]byte{f: p})
		g.commit(map[string][]byte{f: pMoved})
		g.git("mv", f, "evidence/renamed.json")
		g.git("commit", "-q", "-m", "rename")
		path := filepath.Join(g.dir, "evidence", "renamed.json")
		_, err := gate.BindByHistory(context.Background(), path, sha(pMoved), "HEAD")
		var edit *gate.HistoryEditError
		if !errors.As(err, &edit) {
			t.Fatalf("%v, want the edit found through the rename", err)
		}
	})
	t.Run("not a work tree", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "b.json"), p, 0o644)
		_, err := gate.BindByHistory(context.Background(), filepath.Join(dir, "b.json"), sha(p), "HEAD")
		var un *gate.HistoryUnavailableError
		if !errors.As(err, &un) || !strings.Contains(un.Reason, "is not in a git work tree") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("shallow clone", func(t *testing.T) {
		g := newGitRepo(t)
		g.commit(map[string][]byte{f: p})
		g.commit(map[string][]byte{f: pMoved})
		clone := filepath.Join(t.TempDir(), "clone")
		g.git("clone", "-q", "--depth", "1", "file://"+g.dir, clone)
		_, err := gate.BindByHistory(context.Background(), filepath.Join(clone, f), sha(pMoved), "HEAD")
		var un *gate.HistoryUnavailableError
		if !errors.As(err, &un) || !strings.Contains(un.Reason, "shallow") {
			t.Fatalf("%v: a shallow clone hides the edit, so it must not bind", err)
		}
	})
	t.Run("the gate names the binding commit", func(t *testing.T) {
		g := newGitRepo(t)
		if err := testkit.SpecRepo(g.dir); err != nil {
			t.Fatal(err)
		}
		g.git("add", "evidence")
		g.git("commit", "-q", "-m", "evidence")
		head := g.git("rev-parse", "HEAD")
		repo, err := gate.Open(t.Context(), gate.Config{Root: g.dir, HistoryBase: "HEAD", Loader: &gate.Loader{Options: verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}}})
		if err != nil {
			t.Fatal(err)
		}
		rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{"openwop.requirement.0901.good"}})
		c := tierCriterion(t, rep, "good.json")
		if c.Status != gate.Pass || !strings.Contains(c.Reason, "origin bound by git history: discovery.url unchanged since commit "+head[:12]+" on the reviewed base HEAD added it") {
			t.Errorf("%s %s", c.Status, c.Reason)
		}
	})
	// A pull request's own commits are its author's word: a bundle added on a
	// branch is not bound until the commit that added it is on the reviewed base.
	t.Run("added on a branch, not on the base", func(t *testing.T) {
		g := newGitRepo(t)
		base := g.commit(map[string][]byte{"README": []byte("spec")})
		g.git("branch", "-q", "reviewed")
		added := g.commit(map[string][]byte{f: pMoved})
		path := filepath.Join(g.dir, f)
		_, err := gate.BindByHistory(context.Background(), path, sha(pMoved), "reviewed")
		var un *gate.HistoryUnavailableError
		if !errors.As(err, &un) || !strings.Contains(un.Reason, "commit "+added[:12]+", which added this discovery.url with the signed payload, is not on the reviewed base reviewed") {
			t.Fatalf("%v (base %s)", err, base)
		}
		if _, err := gate.BindByHistory(context.Background(), path, sha(pMoved), ""); !errors.As(err, &un) || !strings.Contains(un.Reason, "no reviewed base") {
			t.Fatalf("no base: %v", err)
		}
		if _, err := gate.BindByHistory(context.Background(), path, sha(pMoved), "no-such-branch"); !errors.As(err, &un) || !strings.Contains(un.Reason, "is not a commit of this repository") {
			t.Fatalf("unknown base: %v", err)
		}
		if _, err := gate.BindByHistory(context.Background(), path, sha(pMoved), "--output=/tmp/x"); !errors.As(err, &un) || !strings.Contains(un.Reason, "is not a revision") {
			t.Fatalf("option as base: %v", err)
		}
		// Once merged into the base, the same commit binds.
		g.git("branch", "-q", "-f", "reviewed", "HEAD")
		if hb, err := gate.BindByHistory(context.Background(), path, sha(pMoved), "reviewed"); err != nil || hb.Commit != added {
			t.Fatalf("merged: %v %+v", err, hb)
		}
	})
	// A copy of a committed bundle under another name and another URL, made so
	// that git does not see it as a copy: the payload it shares with the original
	// binds neither URL, whatever the base.
	t.Run("a copy with another url", func(t *testing.T) {
		g := newGitRepo(t)
		if err := testkit.SpecRepo(g.dir); err != nil {
			t.Fatal(err)
		}
		good := filepath.Join(g.dir, "evidence", "v2-host-bundles", "good.json")
		data, err := os.ReadFile(good)
		if err != nil {
			t.Fatal(err)
		}
		copied := withURL(t, data, testkit.OriginTier2+"/.well-known/openwop")
		os.WriteFile(filepath.Join(g.dir, "evidence", "v2-host-bundles", "copy.json"), copied, 0o644)
		g.git("add", "evidence")
		g.git("commit", "-q", "-m", "evidence and a copy")
		repo, err := gate.Open(t.Context(), gate.Config{Root: g.dir, HistoryBase: "HEAD", MinTier: 1, Loader: &gate.Loader{Options: verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}}})
		if err != nil {
			t.Fatal(err)
		}
		rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{"openwop.requirement.0901.good"}})
		for _, file := range []string{"good.json", "copy.json"} {
			c := tierCriterion(t, rep, file)
			if c.Status == gate.Pass || !strings.Contains(c.Reason, "carries the same signed payload with discovery.url") {
				t.Errorf("%s: %s %s", file, c.Status, c.Reason)
			}
		}
	})
}
