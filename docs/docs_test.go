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
