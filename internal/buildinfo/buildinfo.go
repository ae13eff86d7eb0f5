// Package buildinfo says which certcut a binary is: its module version and the
// source commit, from the release's stamps or Go's build information.
package buildinfo

import (
	"github.com/certcut/certcut/internal/lazyre"
	"runtime/debug"

	"github.com/certcut/certcut/keys"
)

// pseudoRevRE finds the commit in a pseudo-version (v0.0.0-20260101120000-1a2b3c4d5e6f,
// v1.2.4-0.20260101120000-1a2b3c4d5e6f+dirty): go install …@<commit> and builds in a
// checkout record one.
var pseudoRevRE = lazyre.New(`[-.]\d{14}-([0-9a-f]{12})(?:\+.*)?$`)

// Info is what `bundle version --json` prints.
type Info struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	// PKCS11 says whether this build can use keys on PKCS#11 tokens (a cgo build).
	PKCS11 bool `json:"pkcs11"`
}

// Read reads the version and the commit: the release stamps first, then
// the build information — "v0.3.0" when installed with go install …@v0.3.0, a
// pseudo-version or "(devel)" for a build from a checkout — and the commit from
// the VCS stamp or the pseudo-version. A build that recorded no commit has none.
func Read(stampedVersion, stampedCommit string) Info {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return From(info, stampedVersion, stampedCommit)
}

// From is Read over given build information (nil: none) and
// stamps.
func From(info *debug.BuildInfo, stampedVersion, stampedCommit string) Info {
	if stampedCommit == "none" {
		stampedCommit = "" // GoReleaser's word for a commit it could not read
	}
	vi := Info{Module: "github.com/certcut/certcut", Version: stampedVersion, Commit: stampedCommit, PKCS11: keys.PKCS11Available}
	if info != nil {
		vi.Go = info.GoVersion
		if info.Main.Path != "" {
			vi.Module = info.Main.Path
		}
		if vi.Version == "" {
			vi.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if vi.Commit == "" {
					vi.Commit = s.Value
				}
			case "vcs.modified":
				vi.Modified = s.Value == "true"
			}
		}
		if m := pseudoRevRE().FindStringSubmatch(info.Main.Version); m != nil && vi.Commit == "" {
			vi.Commit = m[1]
		}
	}
	if vi.Version == "" {
		vi.Version = "(devel)"
	}
	return vi
}

// String returns the module version and, when known, the commit:
// "v0.3.0 commit 1a2b3c4d5e6f", "(devel) commit 1a2b3c4d5e6f", "(devel)".
func (vi Info) String() string {
	v := vi.Version
	if vi.Commit != "" {
		v += " commit " + short(vi.Commit)
		if vi.Modified {
			v += "+dirty"
		}
	}
	return v
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
