package gate

import (
	"fmt"
	"strings"
)

// This file is gate flips' reading of the repository: plumbing commands only
// (rev-parse, merge-base, diff-tree, cat-file, and status --porcelain for the
// work tree), run as history.go runs git — no hooks, fsmonitor, pager, prompt,
// replace objects, external diff or textconv — with pathspecs taken literally.

// run runs a git command and returns its standard output; an error quotes the
// first line git wrote to standard error, naming the subcommand.
func (g gitRunner) run(args ...string) ([]byte, error) {
	return g.output(nil, append([]string{"--literal-pathspecs", "--no-optional-locks"}, args...)...)
}

// commitOf resolves a revision to its full commit id; ok is false when the
// revision names no commit in this clone.
func (g gitRunner) commitOf(rev string) (string, bool) {
	out, err := g.run("rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}

// treeChange is one record of `git diff-tree -r -z --raw -M`.
type treeChange struct {
	// Status is the change letter: A added, D deleted, M modified, R renamed
	// (with or without edits), T type changed.
	Status           byte
	SrcMode, DstMode string
	SrcBlob, DstBlob string
	// SrcPath is the path at base (empty for A); DstPath at head (empty for D).
	SrcPath, DstPath string
}

// path is the change's path at head, or at base for a deletion.
func (c treeChange) path() string {
	if c.DstPath != "" {
		return c.DstPath
	}
	return c.SrcPath
}

// regular reports whether a mode is a regular file (not a symbolic link, a
// submodule or absent).
func regular(mode string) bool { return mode == "100644" || mode == "100755" }

// diffTree lists what changed between two commits under the given paths,
// renames detected (-M, git's default similarity of 50%).
func (g gitRunner) diffTree(from, to string, paths []string) ([]treeChange, error) {
	args := append([]string{"diff-tree", "-r", "-z", "--raw", "--no-abbrev", "-M", "--no-ext-diff", "--no-textconv", from, to, "--"}, paths...)
	out, err := g.run(args...)
	if err != nil {
		return nil, err
	}
	return parseRawDiff(out)
}

// parseRawDiff reads -z --raw records: ":srcmode dstmode src dst STATUS\0path\0"
// with a second path for renames and copies.
func parseRawDiff(out []byte) ([]treeChange, error) {
	fields := strings.Split(string(out), "\x00")
	var changes []treeChange
	for i := 0; i < len(fields); i++ {
		head := fields[i]
		if head == "" {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(head, ":"))
		if !strings.HasPrefix(head, ":") || len(f) != 5 || f[4] == "" || i+1 >= len(fields) {
			return nil, fmt.Errorf("git diff-tree: unexpected output %q", head)
		}
		c := treeChange{Status: f[4][0], SrcMode: f[0], DstMode: f[1], SrcBlob: f[2], DstBlob: f[3]}
		i++
		switch c.Status {
		case 'R', 'C':
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("git diff-tree: a rename without its new path")
			}
			c.SrcPath, c.DstPath = fields[i], fields[i+1]
			i++
			if c.Status == 'C' {
				c.Status, c.SrcPath, c.SrcBlob, c.SrcMode = 'A', "", "", "000000"
			}
		case 'A':
			c.DstPath = fields[i]
		case 'D':
			c.SrcPath = fields[i]
		default: // M, T, and anything newer git invents: read as a modification
			c.Status = 'M'
			c.SrcPath, c.DstPath = fields[i], fields[i]
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// dirty lists the paths under paths whose work-tree or index content differs
// from HEAD, untracked files included (git status --porcelain).
func (g gitRunner) dirty(paths []string) ([]string, error) {
	args := append([]string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all", "--no-renames", "--"}, paths...)
	out, err := g.run(args...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) > 3 {
			files = append(files, rec[3:])
		}
	}
	return files, nil
}
