// Package docs holds certcut's user documentation. This test keeps it true: every
// fenced block marked ```sh in docs/*.md is run, in order, as a shell script.
//
// The rules a doc follows:
//   - ```sh blocks are commands a reader types; they run with bash -eu in a scratch
//     directory that holds a copy of examples/, with the `bundle` binary on PATH,
//     $CORPUS naming ../shared/corpus/openwop and $EXAMPLES the copied examples.
//     Blocks of one file share the directory, so a walk-through builds on itself;
//     a block that changes directory (cd) leaves the next one there, as a reader's
//     shell would. mktemp makes its files under the test's temporary directory.
//   - guide.md is also run from the repository root itself, as its reader runs it
//     (TestGuideLeavesRepositoryClean), and must leave `git status` unchanged.
//   - A block whose first line is "# exit: N" must exit N (for commands that
//     demonstrate a failure); otherwise it must exit 0.
//   - A block that uses $CORPUS is skipped, loudly, when the corpus is absent.
//   - A block that uses $TSA_URL or $TSA_CERT runs against a Time-Stamp Authority
//     the test starts on loopback (OpenSSL's openssl ts, testkit.StartTSA; for
//     the guide run from the repository root, scripts/tsa-local.sh): its URL and
//     its CA's certificate. It is skipped, loudly, without openssl.
//   - A block that sets SOFTHSM2_CONF (keys.md's token walk-through) is skipped,
//     loudly, when SoftHSM 2 or OpenSC is not installed at Debian's paths or the
//     built bundle cannot use PKCS#11 tokens (a build without cgo).
//   - A block that runs slsa-verifier (attestations.md) is skipped, loudly, when
//     slsa-verifier or jq is not on PATH (scripts/interop.sh --ci builds
//     slsa-verifier v2.7.1 and runs this test with it).
//   - Output shown to the reader goes in ```console or ```text blocks, never run.
package docs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/certcut/certcut/internal/testkit"
)

type block struct {
	file string
	line int
	code string
}

// shBlocks returns the ```sh blocks of a Markdown file.
func shBlocks(t *testing.T, path string) []block {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var cur *block
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			cur = &block{file: filepath.Base(path), line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated code block", path, cur.line)
	}
	return out
}

var exitLine = regexp.MustCompile(`^# exit: (\d+)\n`)

func TestDocsCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("docs commands are not run in -short mode")
	}
	root := testkit.ModuleRoot()
	bin := buildBundle(t, root)
	noTSA := testkit.OpenSSLMissing()
	var tsaEnv []string
	if noTSA == "" {
		tsa, err := testkit.StartTSA(filepath.Join(t.TempDir(), "tsa"), testkit.TSAOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer tsa.Close()
		tsaEnv = []string{"TSA_URL=" + tsa.URL, "TSA_CERT=" + tsa.CACert}
	}

	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	ran := 0
	for _, doc := range docs {
		blocks := shBlocks(t, doc)
		if len(blocks) == 0 {
			continue
		}
		t.Run(filepath.Base(doc), func(t *testing.T) {
			dir := t.TempDir()
			examples := filepath.Join(dir, "examples")
			if err := os.CopyFS(examples, os.DirFS(filepath.Join(root, "examples"))); err != nil {
				t.Fatal(err)
			}
			ran += runBlocks(t, blocks, blockEnv{root: root, bin: bin, dir: dir, examples: examples, tsaEnv: tsaEnv, noTSA: noTSA})
		})
	}
	t.Logf("ran %d documented command blocks", ran)
}

// buildBundle builds cmd/bundle into a temporary directory and returns it.
func buildBundle(t *testing.T, root string) string {
	t.Helper()
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "bundle"), "./cmd/bundle")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// blockEnv is where and with what documented blocks run.
type blockEnv struct {
	root, bin string
	// dir is where the first block starts (HOME too, unless home is set);
	// examples is $EXAMPLES.
	dir, examples, home string
	tsaEnv              []string
	noTSA               string
}

// runBlocks runs one file's blocks in order, as one reader's shell would: each
// starts in the directory the previous one ended in. It returns how many ran.
func runBlocks(t *testing.T, blocks []block, e blockEnv) int {
	t.Helper()
	corpus := filepath.Join(e.root, "..", "shared", "corpus", "openwop")
	_, corpusErr := os.Stat(corpus)
	noToken := tokenMissing(filepath.Join(e.bin, "bundle"))
	home := e.home
	if home == "" {
		home = e.dir
	}
	tmp := t.TempDir()
	pwdFile := filepath.Join(t.TempDir(), "pwd")
	cwd := e.dir
	ran := 0
	for _, b := range blocks {
		if strings.Contains(b.code, "$CORPUS") && corpusErr != nil {
			t.Logf("SKIPPED %s:%d: it reads $CORPUS, which is absent (%s)", b.file, b.line, corpus)
			continue
		}
		if strings.Contains(b.code, "$TSA_") && e.noTSA != "" {
			t.Logf("SKIPPED %s:%d: it needs a Time-Stamp Authority: %s", b.file, b.line, e.noTSA)
			continue
		}
		if strings.Contains(b.code, "slsa-verifier ") {
			if missing := toolsMissing("slsa-verifier", "jq"); missing != "" {
				t.Logf("SKIPPED %s:%d: %s is not on PATH (scripts/interop.sh --ci builds slsa-verifier v2.7.1 and runs this block)", b.file, b.line, missing)
				continue
			}
		}
		if strings.Contains(b.code, "SOFTHSM2_CONF") && noToken != "" {
			t.Logf("SKIPPED %s:%d: it needs a SoftHSM token: %s", b.file, b.line, noToken)
			continue
		}
		want := 0
		if m := exitLine.FindStringSubmatch(b.code); m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		// The EXIT trap records where the block ended, for the next one.
		cmd := exec.Command("bash", "-eu", "-c", `trap 'pwd > "$CERTCUT_DOCS_PWD"' EXIT`+"\n"+b.code)
		cmd.Dir = cwd
		cmd.Env = append(os.Environ(),
			"PATH="+e.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"CORPUS="+corpus, "EXAMPLES="+e.examples, "NO_COLOR=1", "HOME="+home, "TMPDIR="+tmp,
			"CERTCUT_DOCS_PWD="+pwdFile)
		cmd.Env = append(cmd.Env, e.tsaEnv...)
		os.Remove(pwdFile)
		out, err := cmd.CombinedOutput()
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s:%d: %v", b.file, b.line, err)
		}
		if got != want {
			t.Errorf("%s:%d: exit %d, want %d\n--- block\n%s--- output\n%s", b.file, b.line, got, want, b.code, out)
		}
		if p, err := os.ReadFile(pwdFile); err == nil && len(strings.TrimSpace(string(p))) > 0 {
			cwd = strings.TrimSpace(string(p))
		}
		ran++
	}
	return ran
}

// toolsMissing names the first of tools that is not on PATH ("" when all are).
func toolsMissing(tools ...string) string {
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			return tool
		}
	}
	return ""
}

// debianSoftHSM is where keys.md's walk-through finds the SoftHSM 2 module.
const debianSoftHSM = "/usr/lib/softhsm/libsofthsm2.so"

// tokenMissing says why keys.md's token blocks cannot run here ("" when they can).
func tokenMissing(bundleBin string) string {
	for _, tool := range []string{"softhsm2-util", "pkcs11-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " is not installed (apt-get install softhsm2 opensc)"
		}
	}
	if _, err := os.Stat(debianSoftHSM); err != nil {
		return debianSoftHSM + " is absent (apt-get install softhsm2)"
	}
	out, err := exec.Command(bundleBin, "version").Output()
	if err != nil || !strings.Contains(string(out), "PKCS#11 tokens: yes") {
		return "the bundle built for the docs has no PKCS#11 (a build without cgo)"
	}
	return ""
}

// checkedMarker, on the line before a ```console block, makes TestDocsOutputs run
// the block's "$ " commands in the corpus and compare what they print with the
// lines shown.
const checkedMarker = "<!-- output checked in $CORPUS -->"

// outputBlocks returns the ```console blocks of a Markdown file that follow
// checkedMarker.
func outputBlocks(t *testing.T, path string) []block {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	lines := strings.Split(string(data), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != checkedMarker || strings.TrimSpace(lines[i+1]) != "```console" {
			continue
		}
		b := block{file: filepath.Base(path), line: i + 2}
		for j := i + 2; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			b.code += lines[j] + "\n"
		}
		out = append(out, b)
	}
	return out
}

// Output a doc shows is what the command prints: each ```console block marked
// checkedMarker runs its "$ " commands (with the `bundle` built here) in the
// corpus, and the output must match the lines shown (MatchShown). Skipped,
// loudly, without the corpus.
func TestDocsOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("docs commands are not run in -short mode")
	}
	root := testkit.ModuleRoot()
	corpus := filepath.Join(root, "..", "shared", "corpus", "openwop")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("SKIPPED: the documented outputs run in the corpus, which is absent (%s)", corpus)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "bundle"), "./cmd/bundle")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	checked := 0
	for _, doc := range docs {
		for _, b := range outputBlocks(t, doc) {
			var cmds []string
			var shown [][]string
			for _, l := range strings.Split(strings.TrimSuffix(b.code, "\n"), "\n") {
				switch {
				case strings.HasPrefix(l, "$ "):
					cmds = append(cmds, strings.TrimPrefix(l, "$ "))
					shown = append(shown, nil)
				case len(cmds) > 0 && strings.HasSuffix(cmds[len(cmds)-1], "\\") && shown[len(shown)-1] == nil:
					cmds[len(cmds)-1] = strings.TrimSuffix(cmds[len(cmds)-1], "\\") + " " + strings.TrimSpace(l)
				case len(cmds) > 0:
					shown[len(shown)-1] = append(shown[len(shown)-1], l)
				}
			}
			if len(cmds) == 0 {
				t.Errorf("%s:%d: a checked block with no \"$ \" command", b.file, b.line)
			}
			for i, c := range cmds {
				cmd := exec.Command("bash", "-c", c)
				cmd.Dir = corpus
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
				out, _ := cmd.Output()
				got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
				if !testkit.MatchShown(shown[i], got) {
					t.Errorf("%s:%d: $ %s\n--- the doc shows\n%s\n--- it prints\n%s", b.file, b.line, c, strings.Join(shown[i], "\n"), out)
				}
				checked++
			}
		}
	}
	t.Logf("checked %d documented outputs", checked)
}

func TestMatchShown(t *testing.T) {
	got := []string{"a 1", "b 2", "c 3", "d 4"}
	for _, c := range []struct {
		shown string
		want  bool
	}{
		{"a 1\nb 2\nc 3\nd 4", true},
		{"a …\n…\nd 4", true},
		{"…\nc 3\nd 4", true},
		{"a 1\n…", true},
		{"a 1\nc 3\n…", false},
		{"a 1\nb 2\nc 3", false},
		{"…\nb … \n…", true},
		{"b 2\n…", false},
	} {
		if testkit.MatchShown(strings.Split(c.shown, "\n"), got) != c.want {
			t.Errorf("testkit.MatchShown(%q) = %v", c.shown, !c.want)
		}
	}
}

// README's data-flow line is true of the code: no package imports one that the
// line puts before it (upstream), and bundle imports nothing of ours but
// internal/limitedfile.
func TestReadmeDataFlow(t *testing.T) {
	root := testkit.ModuleRoot()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("Data flows one way: `([^`]+)`").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no \"Data flows one way: `…`\" line")
	}
	level := map[string]int{}
	for i, step := range strings.Split(strings.Join(strings.Fields(string(m[1])), " "), " → ") {
		for _, p := range strings.Split(step, ",") {
			level[strings.TrimSpace(p)] = i
		}
	}
	list := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Skipf("SKIPPED: go list: %v", err)
	}
	const mod = "github.com/certcut/certcut/"
	top := func(path string) string { // gate/rfc counts as gate
		if strings.HasPrefix(path, "gate/") {
			return "gate"
		}
		return path
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := top(strings.TrimPrefix(f[0], mod))
		from, listed := level[pkg]
		for _, imp := range f[1:] {
			dep, ours := strings.CutPrefix(imp, mod)
			if !ours {
				continue
			}
			dep = top(dep)
			if pkg == "bundle" && dep != "internal/limitedfile" {
				t.Errorf("bundle imports %s: it imports nothing of ours but internal/limitedfile", imp)
			}
			to, inFlow := level[dep]
			if inFlow && listed && to < from {
				t.Errorf("%s imports %s, upstream of it in README's data flow", f[0], imp)
			}
			if pkg == "schemas" && inFlow {
				t.Errorf("schemas imports %s: the README says it imports none of the flow", imp)
			}
		}
	}
}

// The guide is followed as its reader follows it: from the repository root, in
// one shell, with the Time-Stamp Authority it tells the reader to start
// (scripts/tsa-local.sh). It must work there and leave the checkout as it was:
// `git status --porcelain --ignored` and the bytes of every file it lists are
// the same before and after. Skipped outside a git work tree.
func TestGuideLeavesRepositoryClean(t *testing.T) {
	if testing.Short() {
		t.Skip("docs commands are not run in -short mode")
	}
	root := testkit.ModuleRoot()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIPPED: git is not installed: the guide's run from the repository root is checked with git status")
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		t.Skipf("SKIPPED: %s is not a git work tree: the guide's run from the repository root is checked with git status", root)
	}
	bin := buildBundle(t, root)
	noTSA := testkit.OpenSSLMissing()
	var tsaEnv []string
	if noTSA == "" {
		tsaEnv = startTSALocal(t, root)
	}
	before := worktreeState(t, root)
	ran := runBlocks(t, shBlocks(t, filepath.Join(root, "docs", "guide.md")),
		blockEnv{root: root, bin: bin, dir: root, examples: filepath.Join(root, "examples"), home: t.TempDir(), tsaEnv: tsaEnv, noTSA: noTSA})
	if after := worktreeState(t, root); after != before {
		t.Errorf("following docs/guide.md from the repository root changed the checkout: write only in the scratch copy it makes\n--- git status before\n%s--- after\n%s", before, after)
	}
	t.Logf("ran %d blocks of guide.md from %s", ran, root)
}

// worktreeState is `git status --porcelain --ignored --untracked-files=all` of
// root, each listed file followed by the SHA-256 of its bytes, then the
// permission bits of every file under examples/ (git records no more than the
// executable bit, and a private key's mode is part of what the guide shows).
func worktreeState(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "status", "--porcelain=v1", "-z", "--ignored", "--untracked-files=all").Output()
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	var b strings.Builder
	for _, entry := range strings.Split(string(out), "\x00") {
		if len(entry) < 4 {
			continue
		}
		fmt.Fprintf(&b, "%s", entry)
		if data, err := os.ReadFile(filepath.Join(root, entry[3:])); err == nil {
			fmt.Fprintf(&b, " sha256:%x", sha256.Sum256(data))
		}
		b.WriteString("\n")
	}
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(&b, "%v %s\n", info.Mode().Perm(), rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// startTSALocal runs scripts/tsa-local.sh as the guide tells its reader to, and
// returns the TSA_URL and TSA_CERT it prints. The script is stopped (SIGTERM,
// as Ctrl-C) when the test ends, and must then have deleted its keys.
func startTSALocal(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "scripts", "tsa-local.sh"))
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var env []string
	vars := map[string]string{}
	timeout := time.After(3 * time.Minute) // it builds its Go carrier first
	for len(env) < 2 {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("scripts/tsa-local.sh ended before printing TSA_URL and TSA_CERT\n%s", stderr.String())
			}
			k, v, found := strings.Cut(strings.TrimPrefix(l, "export "), "=")
			if !strings.HasPrefix(l, "export ") || !found || (k != "TSA_URL" && k != "TSA_CERT") {
				t.Fatalf("scripts/tsa-local.sh printed %q, want export TSA_URL=… and export TSA_CERT=…", l)
			}
			vars[k] = v
			env = append(env, k+"="+v)
		case <-timeout:
			cmd.Process.Kill()
			t.Fatalf("scripts/tsa-local.sh printed no TSA_URL and TSA_CERT in 3 minutes\n%s", stderr.String())
		}
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("scripts/tsa-local.sh, stopped: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("scripts/tsa-local.sh did not stop on SIGTERM\n%s", stderr.String())
		}
		if _, err := os.Stat(filepath.Dir(vars["TSA_CERT"])); err == nil {
			t.Errorf("scripts/tsa-local.sh left its keys in %s", filepath.Dir(vars["TSA_CERT"]))
		}
	})
	if !strings.HasPrefix(vars["TSA_URL"], "http://127.0.0.1:") {
		t.Errorf("TSA_URL=%s: the local TSA must listen on 127.0.0.1 only", vars["TSA_URL"])
	}
	return env
}

// scripts/tsa-local.sh is an RFC 3161 TSA that OpenSSL itself accepts: a query
// made by `openssl ts -query`, sent to the URL it prints, comes back as a reply
// that `openssl ts -verify` verifies under the CA file it prints.
func TestTSALocalScript(t *testing.T) {
	if testing.Short() {
		t.Skip("scripts/tsa-local.sh is not run in -short mode")
	}
	if why := testkit.OpenSSLMissing(); why != "" {
		t.Skip("SKIPPED: " + why)
	}
	root := testkit.ModuleRoot()
	env := map[string]string{}
	for _, kv := range startTSALocal(t, root) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	dir := t.TempDir()
	data, query, reply := filepath.Join(dir, "data"), filepath.Join(dir, "q.tsq"), filepath.Join(dir, "r.tsr")
	if err := os.WriteFile(data, []byte("certcut\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("openssl", "ts", "-query", "-data", data, "-sha256", "-cert", "-out", query).CombinedOutput(); err != nil {
		t.Fatalf("openssl ts -query: %v\n%s", err, out)
	}
	q, err := os.ReadFile(query)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(env["TSA_URL"], "application/timestamp-query", bytes.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %v %s\n%s", env["TSA_URL"], err, resp.Status, body)
	}
	if err := os.WriteFile(reply, body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("openssl", "ts", "-verify", "-in", reply, "-queryfile", query, "-CAfile", env["TSA_CERT"]).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Verification: OK") {
		t.Fatalf("openssl ts -verify of the local TSA's reply under TSA_CERT: %v\n%s", err, out)
	}
}
