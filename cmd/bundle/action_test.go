package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"go.yaml.in/yaml/v3"
)

// actionFile is the part of action.yml a composite action's runner reads.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
}

// actionRun is what one run of the action produced.
type actionRun struct {
	exit    int    // the exit code of the step that ended the run
	stdout  string // every run step's standard output, in order (annotations)
	stderr  string
	outputs map[string]string // the action's outputs
}

// actionRunner runs action.yml's composite steps as a GitHub runner would: uses:
// steps (actions/setup-go: Go is already here) are skipped, each run: step is
// written to a file and run with `bash --noprofile --norc -eo pipefail FILE` in
// the workspace, with the GITHUB_* and RUNNER_* variables a runner sets, its
// env: and with: evaluated from the inputs, the github context (the event file)
// and earlier steps' outputs; $GITHUB_PATH additions reach later steps.
type actionRunner struct {
	t        *testing.T
	action   actionFile
	path     string // GITHUB_ACTION_PATH: this module
	temp     string // RUNNER_TEMP, shared by the runs (the built bundle is reused)
	baseEnv  []string
	baseDirs string // PATH
}

func newActionRunner(t *testing.T) *actionRunner {
	t.Helper()
	root := testkit.ModuleRoot()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs.using is %q, want composite", a.Runs.Using)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") && !strings.HasPrefix(kv, "INPUT_") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return &actionRunner{t: t, action: a, path: root, temp: t.TempDir(), baseEnv: env, baseDirs: os.Getenv("PATH")}
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// eval replaces each ${{ path }} in s: inputs.NAME, github.action_path,
// github.workspace, github.event.…, steps.ID.outputs.NAME. Anything else fails
// the test: the action must stay within what this runner (and a reviewer)
// can read at a glance.
func (r *actionRunner) eval(s string, ctx map[string]any) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		expr := exprRE.FindStringSubmatch(m)[1]
		if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$`).MatchString(expr) {
			r.t.Fatalf("action.yml: unsupported expression %q (use a plain context path)", m)
		}
		var cur any = ctx
		for _, part := range strings.Split(expr, ".") {
			obj, ok := cur.(map[string]any)
			if !ok {
				return ""
			}
			if cur, ok = obj[part]; !ok {
				return ""
			}
		}
		switch v := cur.(type) {
		case string:
			return v
		case nil:
			return ""
		default:
			return fmt.Sprint(v)
		}
	})
}

// run runs the action in workspace with the given event (the pull_request
// payload's part the action reads) and inputs (with:, over the defaults).
func (r *actionRunner) run(workspace string, event map[string]any, with map[string]string) actionRun {
	t := r.t
	t.Helper()
	dir := t.TempDir()
	eventPath := filepath.Join(dir, "event.json")
	data, _ := json.Marshal(event)
	if err := os.WriteFile(eventPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	github := map[string]any{"action_path": r.path, "workspace": workspace, "event": event, "event_name": "pull_request"}
	ctx := map[string]any{"github": github, "inputs": map[string]any{}, "steps": map[string]any{}}
	inputs := ctx["inputs"].(map[string]any)
	for name, in := range r.action.Inputs {
		inputs[name] = r.eval(in.Default, ctx)
	}
	for name, v := range with {
		if _, ok := r.action.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
		inputs[name] = v
	}
	pathFile := filepath.Join(dir, "path")
	env := append(append([]string{}, r.baseEnv...),
		"CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+workspace, "GITHUB_ACTION_PATH="+r.path,
		"GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH="+eventPath, "GITHUB_PATH="+pathFile,
		"GITHUB_ENV="+filepath.Join(dir, "env"), "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "summary"),
		"GITHUB_REPOSITORY=openwop/openwop", "GITHUB_REF=refs/pull/1/merge", "RUNNER_OS=Linux", "RUNNER_TEMP="+r.temp)
	var res actionRun
	var stdout, stderr strings.Builder
	for i, st := range r.action.Runs.Steps {
		if st.Uses != "" {
			if !strings.HasPrefix(st.Uses, "actions/setup-go@") {
				t.Fatalf("action.yml step %d uses %s: only actions/setup-go is expected (Go is set up here already)", i, st.Uses)
			}
			for k, v := range st.With {
				st.With[k] = r.eval(v, ctx)
			}
			if gomod := st.With["go-version-file"]; gomod != filepath.Join(r.path, "go.mod") {
				t.Fatalf("setup-go reads %q, want the action's own go.mod", gomod)
			}
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("action.yml step %q: shell %q (composite run steps need shell: bash)", st.Name, st.Shell)
		}
		script := filepath.Join(dir, fmt.Sprintf("step%d.sh", i))
		if err := os.WriteFile(script, []byte(st.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		outputFile := filepath.Join(dir, fmt.Sprintf("output%d", i))
		if strings.Contains(st.Run, "${{") {
			t.Fatalf("action.yml step %q has an expression in its script (the runner would splice it in): pass values through env:", st.Name)
		}
		stepEnv := append(append([]string{}, env...), "GITHUB_OUTPUT="+outputFile, "PATH="+r.pathVar(pathFile))
		for k, v := range st.Env {
			stepEnv = append(stepEnv, k+"="+r.eval(v, ctx))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = workspace
		if st.WorkingDirectory != "" {
			cmd.Dir = filepath.Join(workspace, r.eval(st.WorkingDirectory, ctx))
		}
		cmd.Env = stepEnv
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		stdout.Write(so.Bytes())
		stderr.Write(se.Bytes())
		if st.ID != "" {
			ctx["steps"].(map[string]any)[st.ID] = map[string]any{"outputs": readOutputs(t, outputFile)}
		}
		if err != nil {
			exit, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("step %q: %v", st.Name, err)
			}
			res.exit = exit.ExitCode()
			break
		}
	}
	res.stdout, res.stderr = stdout.String(), stderr.String()
	res.outputs = map[string]string{}
	for name, o := range r.action.Outputs {
		res.outputs[name] = r.eval(o.Value, ctx)
	}
	return res
}

// pathVar is PATH with the directories earlier steps added to $GITHUB_PATH
// first, as the runner prepends them.
func (r *actionRunner) pathVar(pathFile string) string {
	data, _ := os.ReadFile(pathFile)
	dirs := strings.Fields(string(data))
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return strings.Join(append(dirs, r.baseDirs), string(os.PathListSeparator))
}

// readOutputs reads a $GITHUB_OUTPUT file of name=value lines.
func readOutputs(t *testing.T, file string) map[string]any {
	out := map[string]any{}
	data, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "<<") {
			t.Fatalf("a multi-line output (%q): the runner here reads name=value only", line)
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// corpusRepo builds a throwaway spec repository from the real OpenWOP corpus:
// the base commit (branch main) has RFC 0211 as Draft and a keyring pinning
// each witness host's key with its origin, built offline as docs/ci.md says;
// branch flip-0211 flips it to Accepted, flip-0236 flips RFC 0236 (Active),
// regress replaces the committed myndhyve-2.45.25.json with the older, genuinely
// signed myndhyve-2.43.0 cut, and ci-example (docs/ci.md's) does the last two and
// moves RFC 0212 back to Draft. It returns the repository and the base commit.
func corpusRepo(t *testing.T) (string, string) {
	t.Helper()
	corpus := testkit.CorpusDir(t)
	dir := testkit.CopyTree(t, corpus, "spec")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Reviewer", "GIT_AUTHOR_EMAIL=reviewer@example.com", "GIT_COMMITTER_NAME=Reviewer",
			"GIT_COMMITTER_EMAIL=reviewer@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	rfc0211 := filepath.Join(dir, "RFCS", "0211-a2a-error-details-are-errorinfo.md")
	rfc0236 := filepath.Join(dir, "RFCS", "0236-host-events.md")
	accepted0211 := readFile(t, rfc0211)
	replaceStatus := func(file, from, to string) {
		t.Helper()
		text := readFile(t, file)
		re := regexp.MustCompile("(?m)^(\\| \\*\\*Status\\*\\* +\\| )`" + from + "`")
		if !re.MatchString(text) {
			t.Fatalf("%s: no Status row `%s`", file, from)
		}
		if err := os.WriteFile(file, []byte(re.ReplaceAllString(text, "${1}`"+to+"`")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	replaceStatus(rfc0211, "Accepted", "Draft")
	keyring := filepath.Join(dir, "keyring.json")
	for _, args := range [][]string{
		{"--from-pem", filepath.Join(corpus, "keys", "v2-reference-4.pub.pem"), "--key-id", "v2-reference-4", "--host-name", "openwop-host-v2-reference", "--origin", "http://127.0.0.1:3838"},
		{"--from-bundle", filepath.Join(corpus, "evidence", "v2-host-bundles", "myndhyve-2.45.25.json"), "--origin", "https://api.myndhyve.ai"},
		{"--from-bundle", filepath.Join(corpus, "evidence", "v2-host-bundles", "openwop-workflow-engine-image-digest.json"), "--origin", "https://app.openwop.dev", "--origin", "https://api.openwop.dev"},
	} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"keys", "trust", "--keyring", keyring}, args...), nil, &out, &errOut); code != 0 {
			t.Fatalf("keys trust %v: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base: RFC 0211 Draft, the committed evidence, the keyring")
	base := git("rev-parse", "HEAD")

	git("checkout", "-q", "-b", "flip-0211")
	if err := os.WriteFile(rfc0211, []byte(accepted0211), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "RFC 0211: Draft → Accepted")

	git("checkout", "-q", "-b", "flip-0236", "main")
	replaceStatus(rfc0236, "Active", "Accepted")
	git("commit", "-q", "-am", "RFC 0236: Active → Accepted")

	git("checkout", "-q", "-b", "regress", "main")
	older := readFile(t, filepath.Join(corpus, "evidence", "v2-host-bundles", "myndhyve-2.43.0.json"))
	if err := os.WriteFile(filepath.Join(dir, "evidence", "v2-host-bundles", "myndhyve-2.45.25.json"), []byte(older), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-q", "-am", "myndhyve: re-cut")

	// docs/ci.md's example: all three at once, and RFC 0212 back to Draft.
	git("checkout", "-q", "-b", "ci-example", "regress")
	replaceStatus(rfc0236, "Active", "Accepted")
	replaceStatus(filepath.Join(dir, "RFCS", "0212-canonical-json-is-jcs.md"), "Active", "Draft")
	git("commit", "-q", "-am", "RFC 0236 Accepted, RFC 0212 Draft, myndhyve re-cut")
	git("checkout", "-q", "main")
	return dir, base
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lineOf returns the 1-based line of the first line of file containing all of
// subs.
func lineOf(t *testing.T, file string, subs ...string) int {
	t.Helper()
lines:
	for i, l := range strings.Split(readFile(t, file), "\n") {
		for _, s := range subs {
			if !strings.Contains(l, s) {
				continue lines
			}
		}
		return i + 1
	}
	t.Fatalf("%s: no line with %q", file, subs)
	return 0
}

// The action, run as a GitHub runner runs it, over a throwaway repository built
// from the real corpus: flipping RFC 0211 to Accepted PASSes, flipping RFC 0236
// FAILs with its reasons annotated on the RFC's lines, a regressed bundle FAILs
// the run with annotations on the bundle file, and without a base or with a
// shallow clone it stops with the remedy.
//
// The keyring pins each witness host's key with its origin (bundle keys trust
// --from-pem / --from-bundle --origin), as a CI keyring should: it binds the
// origin whatever the history. The throwaway repository's history would bind
// the unchanged reference bundle too, but gate flips lets only history up to
// the merge base bind, so a bundle the pull request itself adds or re-cuts is
// never bound by history its author wrote; the keyring is what a pull request
// that brings new evidence relies on (gate/flips_test.go TestFlipsHistoryBinder).
func TestActionOnCorpus(t *testing.T) {
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIPPED: %s is not installed, and the action needs it", tool)
		}
	}
	repo, base := corpusRepo(t)
	r := newActionRunner(t)
	pr := map[string]any{"pull_request": map[string]any{"base": map[string]any{"sha": base}, "number": 1}}
	checkout := func(branch string) {
		t.Helper()
		cmd := exec.Command("git", "checkout", "-q", branch)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("checkout %s: %v\n%s", branch, err, out)
		}
	}
	rfc0236 := filepath.Join(repo, "RFCS", "0236-host-events.md")

	t.Run("flip RFC 0211", func(t *testing.T) {
		checkout("flip-0211")
		res := r.run(repo, pr, map[string]string{"sarif-file": "certcut.sarif"})
		if res.exit != 0 || res.outputs["exit-code"] != "0" || res.outputs["status"] != "PASS" {
			t.Fatalf("exit %d, outputs %v\n%s\n%s", res.exit, res.outputs, res.stdout, res.stderr)
		}
		for _, want := range []string{
			"gate accepted RFC 0211: PASS (18 pass, 0 fail, 0 blocked, 1 warning)\n",
			"gate flips " + base[:12] + "..",
			": PASS — 1 flip(s) to Accepted gated, 0 Status change(s) not gated, 2 check(s) on the change's evidence and policy\n",
		} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
			}
		}
		// The corpus layout lacks docs/WAIVER-RETROSPECTIVE-REGISTER.md, and RFC
		// 0211's window was waived: one warning says so (waiver.register-absent,
		// a warning-severity rule), and nothing else is annotated.
		const absent = "::warning file=RFCS/0211-a2a-error-details-are-errorinfo.md,line=10,title=waiver.register-absent::"
		if rest := strings.Replace(res.stdout, absent, "", 1); !strings.Contains(res.stdout, absent) || strings.Contains(rest, "::error") || strings.Contains(rest, "::warning") {
			t.Errorf("annotations on a passing flip other than the one absent-register warning:\n%s", res.stdout)
		}
		if !regexp.MustCompile(`(?m)^bundle \S+`).MatchString(res.stdout) {
			t.Errorf("the build step did not print bundle version:\n%s", res.stdout)
		}
		var sarif struct {
			Runs []struct {
				Results []struct {
					Kind   string `json:"kind"`
					RuleID string `json:"ruleId"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(repo, "certcut.sarif"))), &sarif); err != nil {
			t.Fatal(err)
		}
		// 21 results: the predicate's 19 criteria, the change's Stable-banner
		// check and its repository-rules check (flips.corpus-rules), both PASS.
		if len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 21 {
			t.Fatalf("SARIF: %+v", sarif)
		}
		corpusRules := false
		for _, res := range sarif.Runs[0].Results {
			if res.Kind != "pass" && res.RuleID != "waiver.register-absent" {
				t.Errorf("SARIF result %+v", res)
			}
			corpusRules = corpusRules || res.RuleID == "flips.corpus-rules"
		}
		if !corpusRules {
			t.Errorf("no flips.corpus-rules result: %+v", sarif)
		}
		os.Remove(filepath.Join(repo, "certcut.sarif"))
	})

	t.Run("flip RFC 0236", func(t *testing.T) {
		checkout("flip-0236")
		res := r.run(repo, pr, nil)
		if res.exit != 1 || res.outputs["status"] != "FAIL" || res.outputs["exit-code"] != "1" {
			t.Fatalf("exit %d, outputs %v\n%s\n%s", res.exit, res.outputs, res.stdout, res.stderr)
		}
		updated := lineOf(t, rfc0236, "| **Updated**")
		envelope := lineOf(t, rfc0236, "| ", "host-event.envelope")
		box := lineOf(t, rfc0236, "- [ ] `Accepted`")
		for _, want := range []string{
			fmt.Sprintf("::error file=RFCS/0236-host-events.md,line=%d,title=rfc.updated::FAIL: Updated declares `Evidence tier: tier-N` or `Evidence tier: corpus gate` — Updated declares no evidence tier: write \"Evidence tier: tier-N\" (1–3) or \"Evidence tier: corpus gate\"\n", updated),
			fmt.Sprintf("::error file=RFCS/0236-host-events.md,line=%d,title=rfc.acceptance::unticked acceptance box without reason: or deferred: - [ ] `Accepted`", box),
			fmt.Sprintf("::error file=RFCS/0236-host-events.md,line=%d,title=requirement openwop.requirement.0236.host-event.envelope::FAIL: witnessed executed-pass in a qualifying bundle — carried executed-pass only by bundles that do not qualify: evidence/v2-host-bundles/openwop-workflow-engine-2.45.30-7643ddb8e.json: FAIL host tier 1 or higher: origin https://api.openwop.dev is not listed in evidence/host-tiers.json", envelope),
			"::error file=evidence/v2-host-bundles/openwop-workflow-engine-2.45.30-7643ddb8e.json,title=bundle.tier::FAIL: host tier 1 or higher — origin https://api.openwop.dev is not listed in evidence/host-tiers.json: an unknown host never qualifies (sha256 ",
			"gate accepted RFC 0236: FAIL (",
			": FAIL — 1 flip(s) to Accepted gated, 0 Status change(s) not gated",
		} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
			}
		}
	})

	t.Run("regressed bundle", func(t *testing.T) {
		checkout("regress")
		res := r.run(repo, pr, map[string]string{"format": "github"})
		if res.exit != 1 || res.outputs["status"] != "FAIL" {
			t.Fatalf("exit %d, outputs %v\n%s\n%s", res.exit, res.outputs, res.stdout, res.stderr)
		}
		for _, want := range []string{
			"::error file=evidence/v2-host-bundles/myndhyve-2.45.25.json,title=flips.regressions::regression: row openwop.requirement.0235.if-none-match.rfc9110-match was executed-pass and is gone\n",
			"::error file=evidence/v2-host-bundles/myndhyve-2.45.25.json,title=flips.regressions::… and ",
			"gate flips the change's evidence and policy: FAIL (0 pass, 1 fail, 0 blocked)\n",
			": FAIL — 0 flip(s) to Accepted gated, 0 Status change(s) not gated, 1 check(s) on the change's evidence and policy\n",
		} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
			}
		}
	})

	t.Run("no base outside a pull request", func(t *testing.T) {
		checkout("flip-0211")
		res := r.run(repo, map[string]any{}, nil)
		if res.exit != 4 || res.outputs["status"] != "ERROR" || !strings.Contains(res.stdout, "::error title=certcut gate flips::no base revision: outside a pull_request event, set the action's base input") {
			t.Fatalf("exit %d, outputs %v\n%s\n%s", res.exit, res.outputs, res.stdout, res.stderr)
		}
	})

	t.Run("shallow clone", func(t *testing.T) {
		shallow := filepath.Join(t.TempDir(), "shallow")
		cmd := exec.Command("git", "clone", "-q", "--depth", "1", "--branch", "flip-0211", "file://"+repo, shallow)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		res := r.run(shallow, pr, nil)
		if res.exit != 3 || res.outputs["status"] != "ERROR" || !strings.Contains(res.stderr, "is not in this clone, which is shallow: fetch the whole history (in GitHub Actions, actions/checkout with fetch-depth: 0") {
			t.Fatalf("exit %d, outputs %v\n%s\n%s", res.exit, res.outputs, res.stdout, res.stderr)
		}
	})
}

// The annotations docs/ci.md shows are what gate flips --format github prints
// for the pull request it describes (branch ci-example): the lines of its
// "### Annotations" text block, in order, where "…" inside a line stands for
// any text and a line "…" for lines left out; commit ids are compared as
// <base>..<head>.
func TestCIDocAnnotations(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIPPED: git is not installed")
	}
	doc := readFile(t, filepath.Join(testkit.ModuleRoot(), "docs", "ci.md"))
	_, after, ok := strings.Cut(doc, "### Annotations")
	if !ok {
		t.Fatal("docs/ci.md has no ### Annotations section")
	}
	_, after, _ = strings.Cut(after, "```text\n")
	shown, _, _ := strings.Cut(after, "```")
	repo, base := corpusRepo(t)
	cmd := exec.Command("git", "checkout", "-q", "ci-example")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Chdir(repo)
	var stdout, stderr bytes.Buffer
	code := run([]string{"gate", "flips", "--base", base, "--keyring", "keyring.json", "--format", "github"}, nil, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	commits := regexp.MustCompile(`[0-9a-f]{12}\.\.[0-9a-f]{12}`)
	got := strings.Split(strings.TrimSuffix(commits.ReplaceAllString(stdout.String(), "<base>..<head>"), "\n"), "\n")
	want := strings.Split(strings.TrimSuffix(commits.ReplaceAllString(shown, "<base>..<head>"), "\n"), "\n")
	if !testkit.MatchShown(want, got) {
		t.Errorf("docs/ci.md's annotations are not what gate flips prints:\n--- the doc shows\n%s\n--- it prints\n%s", strings.Join(want, "\n"), stdout.String())
	}
}
