package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"go.yaml.in/yaml/v3"
)

// The release configuration builds what README.md and docs/ci.md promise, stamps
// the variables bundle version reads, and the workflow runs the GoReleaser
// version CI checks the configuration with. (scripts/goreleaser-check.sh runs
// GoReleaser's own check; .ci/run calls it.)
func TestReleaseConfig(t *testing.T) {
	root := testkit.ModuleRoot()
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Main    string   `yaml:"main"`
			Binary  string   `yaml:"binary"`
			Env     []string `yaml:"env"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Checksum map[string]string `yaml:"checksum"`
		Sboms    []map[string]any  `yaml:"sboms"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(root, ".goreleaser.yaml"))), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 {
		t.Fatalf("%+v", cfg)
	}
	b := cfg.Builds[0]
	slices.Sort(b.Goos)
	slices.Sort(b.Goarch)
	if b.Main != "./cmd/bundle" || b.Binary != "bundle" || !slices.Contains(b.Env, "CGO_ENABLED=0") ||
		!slices.Equal(b.Goos, []string{"darwin", "linux", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
		t.Errorf("build: %+v", b)
	}
	// The -X targets exist (an -X of a missing variable is silently ignored).
	_, _ = version, commit
	ld := strings.Join(b.Ldflags, " ")
	for _, want := range []string{"-X main.version=v{{ .Version }}", "-X main.commit={{ .FullCommit }}"} {
		if !strings.Contains(ld, want) {
			t.Errorf("ldflags %q lack %q", ld, want)
		}
	}
	if cfg.Checksum["algorithm"] != "sha256" || len(cfg.Sboms) == 0 {
		t.Errorf("checksum %v, sboms %v", cfg.Checksum, cfg.Sboms)
	}

	// README's install line works today, in a checkout (the action runs the same
	// go install); no line installs a release that may not exist.
	readme := readFile(t, filepath.Join(root, "README.md"))
	if !strings.Contains(readme, "```sh\ngo install ./cmd/bundle ") || strings.Contains(readme, "@latest") {
		t.Errorf("README.md's install section must start with go install ./cmd/bundle and name no @latest")
	}
	if !strings.Contains(readFile(t, filepath.Join(root, "action.yml")), "go install -mod=readonly ./cmd/bundle") {
		t.Errorf("action.yml does not build ./cmd/bundle as README says")
	}

	script := readFile(t, filepath.Join(root, "scripts", "goreleaser-check.sh"))
	m := regexp.MustCompile(`(?m)^GORELEASER_VERSION=(v\S+)`).FindStringSubmatch(script)
	if m == nil {
		t.Fatal("scripts/goreleaser-check.sh pins no GORELEASER_VERSION")
	}
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(root, ".github", "workflows", "release.yml"))), &wf); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wf.On.Push.Tags, []string{"v*.*.*"}) {
		t.Errorf("release.yml runs on tags %v", wf.On.Push.Tags)
	}
	var goreleaser, checkout string
	for _, st := range wf.Jobs["release"].Steps {
		switch {
		case strings.HasPrefix(st.Uses, "goreleaser/goreleaser-action@"):
			goreleaser = st.With["version"]
		case strings.HasPrefix(st.Uses, "actions/checkout@"):
			checkout = st.With["fetch-depth"]
		}
	}
	if goreleaser != m[1] || checkout != "0" {
		t.Errorf("release.yml runs GoReleaser %q (the check uses %s), checkout fetch-depth %q", goreleaser, m[1], checkout)
	}
}

// goreleaser check, when GoReleaser is on PATH (scripts/goreleaser-check.sh
// installs the pinned version itself; .ci/run calls it).
func TestGoreleaserCheck(t *testing.T) {
	bin, err := exec.LookPath("goreleaser")
	if err != nil {
		t.Skip("SKIPPED: goreleaser is not on PATH; scripts/goreleaser-check.sh installs the pinned version and runs goreleaser check (CI runs it)")
	}
	cmd := exec.Command(bin, "check")
	cmd.Dir = testkit.ModuleRoot()
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}
}
