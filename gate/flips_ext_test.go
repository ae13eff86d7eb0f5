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

// TestFlipsExtStatus: a change to the real snapshot that edits extension
// READMEs' Status is gated as status flips with spec.ext-status: chat
// Draft → Stable FAILs (its declaration says experimental), grpc-transport
// Draft → Note (not a declared family, and the README is made to say so)
// passes; an edit of kanban's README that keeps its Status is not a flip; a
// README the change deletes is listed, not gated.
func TestFlipsExtStatus(t *testing.T) {
	dir, opts := specSnapshot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	g := &gitRepo{t: t, dir: dir}
	g.git("init", "-q")
	g.git("add", "-A")
	g.git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base")
	base := g.git("rev-parse", "HEAD")
	ext := filepath.Join(dir, "spec", "v2", "ext")
	editFile(t, filepath.Join(ext, "chat", "README.md"), "Status: Draft", "Status: Stable")
	editFile(t, filepath.Join(ext, "grpc-transport", "README.md"), "Status: Draft", "Status: Note (not a declared family)")
	editFile(t, filepath.Join(ext, "kanban", "README.md"), "Status: Draft", "Status: Draft\n\nAn edit that keeps the Status.")
	if err := os.Remove(filepath.Join(ext, "brand", "README.md")); err != nil {
		t.Fatal(err)
	}
	g.git("add", "-A")
	g.git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "flip")

	rep, err := gate.Flips(context.Background(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}}, gate.FlipsRequest{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]gate.ExtTransition{}
	for _, x := range rep.ExtTransitions {
		got[x.Dir] = x
	}
	if len(got) != 3 {
		t.Fatalf("ext transitions: %+v", rep.ExtTransitions)
	}
	if c := got["chat"]; !c.Gated || c.Status != gate.Fail || c.From != "Draft" || c.To != "Stable" || !strings.Contains(c.Why, "maturity.technical for chat is experimental") {
		t.Errorf("chat: %+v", c)
	}
	if c := got["grpc-transport"]; !c.Gated || c.Status != gate.Pass || c.Outcome != "ok" || c.To != "Note" {
		t.Errorf("grpc-transport: %+v", c)
	}
	if c := got["brand"]; c.Gated || c.Change != "deleted" || c.From != "Draft" {
		t.Errorf("brand: %+v", c)
	}
	crit := criteriaOf(rep.Changes, gate.CritExtStatus)
	if len(crit) != 2 || rep.Status != gate.Fail {
		t.Fatalf("%s; ext-status criteria: %+v", rep.Status, crit)
	}
	for _, c := range crit {
		if strings.Contains(c.Title, "chat") && (c.Status != gate.Fail || c.Location == nil || !strings.HasSuffix(c.Location.File, filepath.Join("ext", "chat", "README.md"))) {
			t.Errorf("chat criterion: %+v", c)
		}
	}
}
