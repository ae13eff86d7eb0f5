package mint

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// DirtyTreeError is a git work tree with uncommitted changes: HEAD does not name
// what was built.
type DirtyTreeError struct {
	Dir     string
	Changes int
}

func (e *DirtyTreeError) Error() string {
	return fmt.Sprintf("%s has %d uncommitted change(s), so its HEAD commit does not name what ran; commit them, or pass --allow-dirty to record HEAD anyway", e.Dir, e.Changes)
}

// BuildFromGit returns {kind: commit, id: HEAD} of the git work tree at dir. A tree
// with uncommitted changes (untracked files included) is refused with
// *DirtyTreeError unless allowDirty; then dirty reports it, so the caller can say so.
func BuildFromGit(dir string, allowDirty bool) (b bundle.Build, dirty bool, err error) {
	head, err := git(dir, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return b, false, err
	}
	status, err := git(dir, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return b, false, err
	}
	if status != "" {
		n := strings.Count(status, "\n") + 1
		if !allowDirty {
			return b, true, &DirtyTreeError{Dir: dir, Changes: n}
		}
		dirty = true
	}
	return bundle.Build{Kind: bundle.BuildCommit, ID: head}, dirty, nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s in %s: %s", args[0], dir, msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}
