// Package docs holds certcut's user documentation. This test keeps it true: every
// fenced block marked ```sh in docs/*.md is run, in order, as a shell script.
//
// The rules a doc follows:
//   - ```sh blocks are commands a reader types; they run with bash -eu in a scratch
//     directory that holds a copy of examples/, with the `bundle` binary on PATH,
//     $CORPUS naming ../shared/corpus/openwop and $EXAMPLES the copied examples.
//     Blocks of one file share the directory, so a walk-through builds on itself.
//   - A block whose first line is "# exit: N" must exit N (for commands that
//     demonstrate a failure); otherwise it must exit 0.
//   - A block that uses $CORPUS is skipped, loudly, when the corpus is absent.
//   - A block that uses $TSA_URL or $TSA_CERT runs against a Time-Stamp Authority
//     the test starts on loopback (OpenSSL's openssl ts, testkit.StartTSA): its
//     URL and its CA's certificate. It is skipped, loudly, without openssl.
//   - A block that sets SOFTHSM2_CONF (keys.md's token walk-through) is skipped,
//     loudly, when SoftHSM 2 or OpenSC is not installed at Debian's paths or the
//     built bundle cannot use PKCS#11 tokens (a build without cgo).
//   - Output shown to the reader goes in ```console or ```text blocks, never run.
package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

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
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "bundle"), "./cmd/bundle")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	corpus := filepath.Join(root, "..", "shared", "corpus", "openwop")
	_, corpusErr := os.Stat(corpus)
	noToken := tokenMissing(filepath.Join(bin, "bundle"))
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
			for _, b := range blocks {
				if strings.Contains(b.code, "$CORPUS") && corpusErr != nil {
					t.Logf("SKIPPED %s:%d: it reads $CORPUS, which is absent (%s)", b.file, b.line, corpus)
					continue
				}
				if strings.Contains(b.code, "$TSA_") && noTSA != "" {
					t.Logf("SKIPPED %s:%d: it needs a Time-Stamp Authority: %s", b.file, b.line, noTSA)
					continue
				}
				if strings.Contains(b.code, "SOFTHSM2_CONF") && noToken != "" {
					t.Logf("SKIPPED %s:%d: it needs a SoftHSM token: %s", b.file, b.line, noToken)
					continue
				}
				want := 0
				if m := exitLine.FindStringSubmatch(b.code); m != nil {
					want, _ = strconv.Atoi(m[1])
				}
				cmd := exec.Command("bash", "-eu", "-c", b.code)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(),
					"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
					"CORPUS="+corpus, "EXAMPLES="+examples, "NO_COLOR=1", "HOME="+dir)
				cmd.Env = append(cmd.Env, tsaEnv...)
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
				ran++
			}
		})
	}
	t.Logf("ran %d documented command blocks", ran)
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
