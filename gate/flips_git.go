package gate

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// This file is gate flips' reading of the repository: plumbing commands only
// (rev-parse, merge-base, diff-tree, cat-file, and status --porcelain for the
// work tree), run as history.go runs git — no hooks, fsmonitor, pager, prompt,
// replace objects, external diff or textconv — with pathspecs taken literally —
// and the helpers that place and pair the changed paths (RFCs, bundles,
// renames).

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

// gitPathOf returns p as a path from the top of the work tree, when it lies
// inside it.
func gitPathOf(top, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// isRFCPath: RFCS/NNNN-*.md directly in the RFCS directory.
func isRFCPath(p, rfcsDir string) bool {
	if p == "" || !strings.HasPrefix(p, rfcsDir) {
		return false
	}
	name := strings.TrimPrefix(p, rfcsDir)
	return !strings.Contains(name, "/") && rfcFileRE().MatchString(name)
}

// isBundlePath: a *.json file in a subdirectory of evidence/ (the top-level
// files there, host-tiers.json and corpus-ledger.json, are policy and ledger).
func isBundlePath(p, evidenceDir string) bool {
	rest, ok := strings.CutPrefix(p, evidenceDir)
	return ok && strings.Contains(rest, "/") && strings.HasSuffix(rest, ".json")
}

func rfcNumber(p string) string {
	if m := rfcFileRE().FindStringSubmatch(path.Base(p)); m != nil {
		return m[1]
	}
	return ""
}

// splitRenames turns each rename keep refuses into a deletion and an addition.
func splitRenames(cs []treeChange, keep func(treeChange) bool) []treeChange {
	var out []treeChange
	for _, c := range cs {
		if c.Status != 'R' || keep(c) {
			out = append(out, c)
			continue
		}
		out = append(out,
			treeChange{Status: 'D', SrcMode: c.SrcMode, SrcBlob: c.SrcBlob, SrcPath: c.SrcPath, DstMode: "000000"},
			treeChange{Status: 'A', DstMode: c.DstMode, DstBlob: c.DstBlob, DstPath: c.DstPath, SrcMode: "000000"})
	}
	return out
}

// pairRenamedRFCs joins an RFC deleted under one name and added under another
// with the same number into one rename, for renames git's similarity missed.
func pairRenamedRFCs(cs []treeChange) []treeChange {
	added := map[string][]int{}
	for i, c := range cs {
		if c.Status == 'A' {
			n := rfcNumber(c.DstPath)
			added[n] = append(added[n], i)
		}
	}
	drop := map[int]bool{}
	var out []treeChange
	for i, c := range cs {
		if c.Status != 'D' {
			continue
		}
		n := rfcNumber(c.SrcPath)
		if len(added[n]) != 1 || drop[added[n][0]] {
			continue
		}
		j := added[n][0]
		a := cs[j]
		drop[i], drop[j] = true, true
		out = append(out, treeChange{Status: 'R', SrcMode: c.SrcMode, SrcBlob: c.SrcBlob, SrcPath: c.SrcPath, DstMode: a.DstMode, DstBlob: a.DstBlob, DstPath: a.DstPath})
	}
	for i, c := range cs {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}

func changeWord(c treeChange) string {
	switch {
	case c.SrcPath == "":
		return "added"
	case c.DstPath == "":
		return "deleted"
	case c.SrcPath != c.DstPath:
		return "renamed"
	}
	return "modified"
}
