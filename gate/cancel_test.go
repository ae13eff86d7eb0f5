package gate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// TestCancelledLoadJudgesNothing: a context cancelled before the bundles are
// read stops Open and LoadFiles before any bundle is judged, with the cause.
func TestCancelledLoadJudgesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := testkit.SpecRepo(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	l := &gate.Loader{Options: verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}}
	if _, err := gate.Open(ctx, gate.Config{Root: dir, Loader: l}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open under a cancelled context: %v, want context.Canceled", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "v2-host-bundles", "*.json"))
	entries, err := l.LoadFiles(ctx, files)
	if !errors.Is(err, context.Canceled) || entries != nil {
		t.Fatalf("LoadFiles under a cancelled context: %d entries, %v", len(entries), err)
	}
	if n := l.Judged(); n != 0 {
		t.Fatalf("%d bundles judged under a cancelled context", n)
	}
}

// TestCancelStopsHistoryBinder: the git binder's subprocesses run under the
// request's context. A git that never answers is stopped when the request is
// cancelled (before, the binder ran git under context.Background and the gate
// waited for it), and what the cancelled request read is not kept: the next
// request, with git answering, binds the origin by history.
func TestCancelStopsHistoryBinder(t *testing.T) {
	g := newGitRepo(t)
	if err := testkit.SpecRepo(g.dir); err != nil {
		t.Fatal(err)
	}
	g.git("add", "evidence")
	g.git("commit", "-q", "-m", "evidence")

	// A git that says it started, then hangs.
	bin := t.TempDir()
	started := filepath.Join(bin, "started")
	script := "#!/bin/sh\n: > '" + started + "'\nexec sleep 120\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	realPath := os.Getenv("PATH")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+realPath)

	repo, err := gate.Open(t.Context(), gate.Config{Root: g.dir, HistoryBase: "HEAD", Loader: &gate.Loader{Options: verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}}})
	if err != nil {
		t.Fatal(err)
	}
	req := gate.AcceptedRequest{Require: []string{"openwop.requirement.0901.good"}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		repo.Accepted(ctx, req)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("the binder never started git")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Accepted did not return within 60 s of the cancel: the binder's git was not stopped")
	}

	t.Setenv("PATH", realPath)
	rep := repo.Accepted(t.Context(), req)
	c := tierCriterion(t, rep, "good.json")
	if c.Status != gate.Pass || !strings.Contains(c.Reason, "origin bound by git history") {
		t.Fatalf("after a cancelled request the binder must read the history again: %s %s", c.Status, c.Reason)
	}
}
