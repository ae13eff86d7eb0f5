package gate

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// historyIndex is the history of a spec repository's evidence directories read
// once: every version of every file under them committed on the reviewed base
// or on HEAD, with the signed payload (bundle.Attestation) and discovery.url of
// each distinct blob. Two git log runs (the reviewed base; what HEAD adds to it)
// and one git cat-file --batch build it, whatever the number of bundles; every
// bundle is then bound from it (bind) under the rules of BindByHistory.
type historyIndex struct {
	// notTree is set when the directory is not in a git work tree; treeWhy then
	// says more than "not a git repository" (dubious ownership, a broken .git).
	notTree bool
	treeWhy string
	// unavailable, when set, is why the history cannot be consulted for any file.
	unavailable string
	top         string
	base        string
	// head maps each git path under the indexed directories to its blob at HEAD.
	head map[string]string
	// renamedFrom maps a path to the paths git saw renamed into it.
	renamedFrom map[string][]string
	// versions lists, per path, the committed versions, newest first (seq).
	versions map[string][]pathVersion
	facts    map[string]blobFacts
	// sites lists, per signed payload, every committed version carrying it.
	sites map[string][]pathVersion
}

// pathVersion is one commit's version of one path.
type pathVersion struct {
	commit, path, blob string
	// reviewed: the commit is on the reviewed base (listed by the log of the base).
	reviewed bool
	// seq orders versions newest first: the commits HEAD adds to the base, then
	// the base's, each log in topological order.
	seq int
}

// blobFacts is what the index keeps of one blob.
type blobFacts struct {
	sha256 string
	bundle bool // a bundle with a signed payload
	url    string
	// payload is the signed payload (bundle.Attestation), as a string.
	payload string
}

// knownFacts returns the URL and signed payload of content already judged,
// looked up by its SHA-256, so the index parses only the versions no longer on
// disk.
type knownFacts func(sha256Hex string) (url, payload string, ok bool)

// buildHistoryIndex reads the history of dirs (absolute paths inside one work
// tree) with git plumbing only, as BindByHistory does. from is a directory to
// start git in; base the reviewed revision.
func buildHistoryIndex(ctx context.Context, from string, dirs []string, base string, known knownFacts) *historyIndex {
	ix := &historyIndex{base: base}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		ix.unavailable = "git is not installed"
		return ix
	}
	g := gitRunner{ctx: ctx, path: gitPath, dir: from}
	where, err := g.output(nil, "rev-parse", "--show-toplevel")
	if err != nil {
		ix.notTree = true
		if !strings.Contains(err.Error(), "not a git repository") {
			ix.treeWhy = " (" + err.Error() + ")"
		}
		return ix
	}
	if shallow, err := g.output(nil, "rev-parse", "--is-shallow-repository"); err != nil || strings.TrimSpace(string(shallow)) != "false" {
		ix.unavailable = "the clone is shallow, so the history is incomplete (fetch it whole: git fetch --unshallow, or actions/checkout fetch-depth: 0)"
		return ix
	}
	if base == "" {
		ix.unavailable = "no reviewed base was given (--history-base REF, the branch pull requests merge into): a file's own commits are only its author's word"
		return ix
	}
	if strings.HasPrefix(base, "-") || strings.ContainsAny(base, "\n\r\x00") {
		ix.unavailable = fmt.Sprintf("--history-base %q is not a revision", base)
		return ix
	}
	ix.top = strings.TrimRight(string(where), "\n")
	g.dir = ix.top
	baseCommit, err := g.output(nil, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}")
	if err != nil {
		ix.unavailable = fmt.Sprintf("the reviewed base %s is not a commit of this repository (fetch it: git fetch origin %s, or actions/checkout fetch-depth: 0)", base, base)
		return ix
	}
	bc := strings.TrimSpace(string(baseCommit))
	var specs []string
	for _, d := range dirs {
		if rel, ok := ix.gitPath(d); ok {
			if rel == "" {
				rel = "."
			}
			specs = append(specs, rel)
		}
	}
	if len(specs) == 0 {
		ix.unavailable = "the bundles are not inside the work tree at " + ix.top
		return ix
	}
	ix.head, ix.renamedFrom, ix.versions, ix.facts, ix.sites = map[string]string{}, map[string][]string{}, map[string][]pathVersion{}, map[string]blobFacts{}, map[string][]pathVersion{}
	pathArgs := append([]string{"--"}, specs...)
	if out, err := g.run(append([]string{"ls-tree", "-r", "-z", "--full-tree", "HEAD"}, pathArgs...)...); err == nil {
		for _, rec := range strings.Split(string(out), "\x00") {
			meta, p, ok := strings.Cut(rec, "\t")
			if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" && regular(f[0]) {
				ix.head[p] = f[2]
			}
		}
	}
	logArgs := []string{"log", "--format=commit %H", "--raw", "-z", "--no-abbrev", "-M", "--full-history", "-m", "--topo-order", "--no-ext-diff", "--no-textconv", "--end-of-options"}
	seq := 0
	for _, part := range []struct {
		revs     []string
		reviewed bool
	}{{[]string{"HEAD", "^" + bc}, false}, {[]string{bc}, true}} {
		out, err := g.run(append(append(append([]string(nil), logArgs...), part.revs...), pathArgs...)...)
		if err != nil {
			if !part.reviewed {
				continue // no HEAD (an empty repository): only the base's history
			}
			ix.unavailable = err.Error()
			return ix
		}
		if err := ix.readLog(out, part.reviewed, &seq); err != nil {
			ix.unavailable = err.Error()
			return ix
		}
	}
	want := map[string]bool{}
	for _, vs := range ix.versions {
		for _, v := range vs {
			want[v.blob] = true
		}
	}
	for _, b := range ix.head {
		want[b] = true
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	err = g.eachBlob(ids, func(i int, data []byte) {
		if data == nil {
			ix.facts[ids[i]] = blobFacts{}
			return
		}
		sum := sha256.Sum256(data)
		f := blobFacts{sha256: hex.EncodeToString(sum[:])}
		if url, payload, ok := known(f.sha256); ok {
			f.bundle, f.url, f.payload = true, url, payload
		} else if root, err := bundle.ParseIJSON(data); err == nil {
			if v, ok := payloadOf(root); ok {
				f.bundle, f.url, f.payload = true, v.url, v.payload
			}
		}
		ix.facts[ids[i]] = f
	})
	if err != nil {
		ix.unavailable = err.Error()
		return ix
	}
	for _, vs := range ix.versions {
		for _, v := range vs {
			if f := ix.facts[v.blob]; f.bundle {
				ix.sites[f.payload] = append(ix.sites[f.payload], v)
			}
		}
	}
	for p := range ix.versions {
		sort.SliceStable(ix.versions[p], func(i, j int) bool { return ix.versions[p][i].seq < ix.versions[p][j].seq })
	}
	for k := range ix.sites {
		sort.SliceStable(ix.sites[k], func(i, j int) bool { return ix.sites[k][i].seq < ix.sites[k][j].seq })
	}
	return ix
}

// readLog reads `git log --format="commit %H" --raw -z -M`: each commit, then
// its raw records ":srcmode dstmode src dst STATUS\0path\0[newpath\0]".
func (ix *historyIndex) readLog(out []byte, reviewed bool, seq *int) error {
	tokens := strings.Split(string(out), "\x00")
	commit := ""
	seen := map[string]bool{}
	for i := 0; i < len(tokens); i++ {
		t := strings.TrimLeft(tokens[i], "\n")
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "commit "):
			commit = strings.TrimPrefix(t, "commit ")
			continue
		case !strings.HasPrefix(t, ":"):
			return fmt.Errorf("git log: unexpected output %q", t)
		}
		f := strings.Fields(strings.TrimPrefix(t, ":"))
		if len(f) != 5 || f[4] == "" || i+1 >= len(tokens) {
			return fmt.Errorf("git log: unexpected output %q", t)
		}
		src, dst := tokens[i+1], tokens[i+1]
		i++
		if f[4][0] == 'R' || f[4][0] == 'C' {
			if i+1 >= len(tokens) {
				return fmt.Errorf("git log: a rename without its new path")
			}
			dst = tokens[i+1]
			i++
			if f[4][0] == 'R' && src != dst && !slices.Contains(ix.renamedFrom[dst], src) {
				ix.renamedFrom[dst] = append(ix.renamedFrom[dst], src)
			}
		}
		if !regular(f[1]) || strings.Trim(f[3], "0") == "" || commit == "" {
			continue // deleted here, or not a regular file
		}
		key := commit + "\x00" + dst
		if seen[key] {
			continue // a merge listed against each parent
		}
		seen[key] = true
		*seq++
		ix.versions[dst] = append(ix.versions[dst], pathVersion{commit: commit, path: dst, blob: f[3], reviewed: reviewed, seq: *seq})
	}
	return nil
}

// gitPath returns an absolute path as a path from the top of the work tree.
func (ix *historyIndex) gitPath(abs string) (string, bool) {
	p, ok := gitPathOf(ix.top, abs)
	if p == "." {
		p = ""
	}
	return p, ok
}

// bind decides whether the history binds the discovery.url of the committed
// file (see BindByHistory for the rules and errors).
func (ix *historyIndex) bind(file, sha256Hex string) (*HistoryBinding, error) {
	if ix.notTree {
		return nil, &HistoryUnavailableError{Reason: filepath.Dir(file) + " is not in a git work tree" + ix.treeWhy}
	}
	if ix.unavailable != "" {
		return nil, &HistoryUnavailableError{Reason: ix.unavailable}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, &HistoryUnavailableError{Reason: err.Error()}
	}
	rel, ok := ix.gitPath(abs)
	if !ok {
		return nil, &HistoryUnavailableError{Reason: file + " is outside the work tree at " + ix.top}
	}
	blob, ok := ix.head[rel]
	if !ok {
		return nil, &HistoryUnavailableError{Reason: file + " is not committed (untracked, or added but not committed)"}
	}
	cur := ix.facts[blob]
	if cur.sha256 != sha256Hex {
		return nil, &HistoryUnavailableError{Reason: file + " differs from its committed version (modified since HEAD)"}
	}
	if !cur.bundle {
		return nil, &HistoryUnavailableError{Reason: file + " has no signed payload to compare"}
	}
	// The file's versions: its path and every path renamed into it, transitively.
	lineage := map[string]bool{rel: true}
	for queue := []string{rel}; len(queue) > 0; queue = queue[1:] {
		for _, src := range ix.renamedFrom[queue[0]] {
			if !lineage[src] {
				lineage[src] = true
				queue = append(queue, src)
			}
		}
	}
	var vs []pathVersion
	for p := range lineage {
		vs = append(vs, ix.versions[p]...)
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].seq < vs[j].seq })
	type seen struct{ commit, url string }
	byPayload := map[string]seen{}
	res := &HistoryBinding{}
	var binding *pathVersion
	// Newest first: any two versions with one payload and two URLs refute; the
	// oldest version carrying the current payload is the one that added it.
	for i, v := range vs {
		f := ix.facts[v.blob]
		if !f.bundle {
			continue
		}
		res.Versions++
		if s, dup := byPayload[f.payload]; dup && s.url != f.url {
			return nil, &HistoryEditError{Path: rel, Commit: s.commit, URL: s.url, Other: v.commit, OtherURL: f.url}
		}
		byPayload[f.payload] = seen{v.commit, f.url}
		if f.payload == cur.payload {
			binding = &vs[i]
		}
	}
	if binding == nil {
		return nil, &HistoryUnavailableError{Reason: "no committed version carries the current signed payload"}
	}
	res.Commit = binding.commit
	if !binding.reviewed {
		return nil, &HistoryUnavailableError{Reason: fmt.Sprintf("commit %s, which added this discovery.url with the signed payload, is not on the reviewed base %s: only reviewed history binds", short(res.Commit), ShortRev(ix.base))}
	}
	// The payload committed anywhere else under another URL: a copy whose URL
	// was changed, in reviewed history or not, at HEAD or since deleted.
	for _, s := range ix.sites[cur.payload] {
		if f := ix.facts[s.blob]; f.url != cur.url {
			return nil, &HistoryCopyError{Path: rel, URL: cur.url, Commit: s.commit, OtherPath: s.path, OtherURL: f.url}
		}
	}
	return res, nil
}

// HistoryCopyError says the signed payload of the file is committed under
// another discovery.url elsewhere in the history (another file, at HEAD or since
// deleted): one payload binds one URL, so history binds neither.
type HistoryCopyError struct {
	Path, URL                   string
	Commit, OtherPath, OtherURL string
}

func (e *HistoryCopyError) Error() string {
	return fmt.Sprintf("the signed payload of %s is committed under another discovery.url: commit %s has it in %s with %s, where this file has %s; a payload binds one URL, so history binds neither",
		e.Path, short(e.Commit), e.OtherPath, e.OtherURL, e.URL)
}

// eachBlob reads each object id with one `git cat-file --batch` and calls fn
// with its content, one at a time; an object that is missing, not a blob, or
// larger than a bundle may be is passed as nil.
func (g gitRunner) eachBlob(ids []string, fn func(i int, data []byte)) error {
	if len(ids) == 0 {
		return nil
	}
	var in strings.Builder
	for _, s := range ids {
		if strings.ContainsAny(s, "\n") {
			return fmt.Errorf("an object name with a newline")
		}
		in.WriteString(s + "\n")
	}
	cmd := g.command("cat-file", "--batch")
	cmd.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	r := bufio.NewReaderSize(stdout, 1<<16)
	var buf []byte
	readErr := func() error {
		for i := range ids {
			header, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			f := strings.Fields(header)
			if len(f) == 2 && f[1] == "missing" || len(f) >= 2 && f[len(f)-1] == "ambiguous" {
				fn(i, nil)
				continue
			}
			if len(f) != 3 {
				return fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(header))
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || size < 0 {
				return fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(header))
			}
			if f[1] != "blob" || size > limitedfile.MaxBundle {
				if _, err := io.CopyN(io.Discard, r, size+1); err != nil {
					return fmt.Errorf("git cat-file: %w", err)
				}
				fn(i, nil)
				continue
			}
			if int64(cap(buf)) < size+1 {
				buf = make([]byte, size+1)
			}
			data := buf[:size+1]
			if _, err := io.ReadFull(r, data); err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			fn(i, data[:size])
		}
		return nil
	}()
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = fmt.Errorf("git cat-file: %s", strings.TrimSpace(stderr.String()+" "+err.Error()))
	}
	return readErr
}

// bundleFacts is knownFacts over loaded entries: the URL and signed payload
// the Loader read from each one's parse tree.
func bundleFacts(entries []*Entry) knownFacts {
	bySha := map[string]*Entry{}
	for _, e := range entries {
		if e.Bundle != nil && e.Sha256 != "" && e.signed.ok {
			bySha[e.Sha256] = e
		}
	}
	return func(sha string) (string, string, bool) {
		e, ok := bySha[sha]
		if !ok {
			return "", "", false
		}
		return e.signed.url, e.signed.payload, true
	}
}

// payloadOf reads a bundle's discovery.url and signed payload from its parse
// tree; false when it has no signed payload.
func payloadOf(root bundle.Value) (version, bool) {
	p, err := bundle.Attestation(root)
	if err != nil {
		return version{}, false
	}
	u, _ := root.Path("discovery", "url")
	url, _ := u.Str()
	return version{url: url, payload: string(p)}, true
}
