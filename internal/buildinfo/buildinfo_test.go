package buildinfo

import (
	"runtime/debug"
	"testing"
)

// bundle version names the commit whenever the build had one — stamped by a
// release, recorded by Go's VCS stamping, or named by a pseudo-version — and
// says "(devel)" for a build that recorded neither a version nor a commit.
func TestVersionFrom(t *testing.T) {
	const full = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"
	main := func(v string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/certcut/certcut", Version: v}, Settings: settings}
	}
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for name, tc := range map[string]struct {
		info            *debug.BuildInfo
		version, commit string
		want            string
	}{
		"release stamps":                {info: main("(devel)"), version: "v1.2.3", commit: full, want: "v1.2.3 commit 1a2b3c4d5e6f"},
		"release stamps over vcs":       {info: main("v0.0.0-20260101120000-aaaaaaaaaaaa", vcs("b"+full[1:], "false")...), version: "v1.2.3", commit: full, want: "v1.2.3 commit 1a2b3c4d5e6f"},
		"go install @tag":               {info: main("v1.2.3"), want: "v1.2.3"},
		"go install @commit":            {info: main("v0.0.0-20260101120000-1a2b3c4d5e6f"), want: "v0.0.0-20260101120000-1a2b3c4d5e6f commit 1a2b3c4d5e6f"},
		"pseudo after a tag":            {info: main("v1.2.4-0.20260101120000-1a2b3c4d5e6f+dirty"), want: "v1.2.4-0.20260101120000-1a2b3c4d5e6f+dirty commit 1a2b3c4d5e6f"},
		"checkout with vcs stamping":    {info: main("(devel)", vcs(full, "true")...), want: "(devel) commit 1a2b3c4d5e6f+dirty"},
		"checkout, -buildvcs=false":     {info: main("(devel)"), want: "(devel)"},
		"checkout, -X main.commit only": {info: main("(devel)"), commit: full, want: "(devel) commit 1a2b3c4d5e6f"},
		"empty version":                 {info: main(""), want: "(devel)"},
		"a snapshot without git":        {info: main("(devel)"), version: "v0.0.0-SNAPSHOT-none", commit: "none", want: "v0.0.0-SNAPSHOT-none"},
		"no build information":          {want: "(devel)"},
	} {
		vi := From(tc.info, tc.version, tc.commit)
		if got := vi.String(); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
		if vi.Module != "github.com/certcut/certcut" {
			t.Errorf("%s: module %q", name, vi.Module)
		}
	}
}
