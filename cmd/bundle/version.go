package main

import (
	"fmt"
	"regexp"
	"runtime/debug"

	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

// version and commit are stamped by release builds (.goreleaser.yaml):
// -ldflags "-X main.version=v1.2.3 -X main.commit=<full commit id>". commit also
// names the source commit of a build that could not record it itself (with
// -buildvcs=false, as CI's): go build -ldflags "-X main.commit=$(git rev-parse HEAD)".
var version, commit string

// pseudoRevRE finds the commit in a pseudo-version (v0.0.0-20260101120000-1a2b3c4d5e6f,
// v1.2.4-0.20260101120000-1a2b3c4d5e6f+dirty): go install …@<commit> and builds in a
// checkout record one.
var pseudoRevRE = regexp.MustCompile(`[-.]\d{14}-([0-9a-f]{12})(?:\+.*)?$`)

// versionInfo is what `bundle version --json` prints.
type versionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	// PKCS11 says whether this build can use keys on PKCS#11 tokens (a cgo build).
	PKCS11 bool `json:"pkcs11"`
}

// buildVersion reads the version and the commit: the release stamps first, then
// the build information — "v0.3.0" when installed with go install …@v0.3.0, a
// pseudo-version or "(devel)" for a build from a checkout — and the commit from
// the VCS stamp or the pseudo-version. A build that recorded no commit has none.
func buildVersion() versionInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionFrom(info, version, commit)
}

// versionFrom is buildVersion over given build information (nil: none) and
// stamps.
func versionFrom(info *debug.BuildInfo, stampedVersion, stampedCommit string) versionInfo {
	if stampedCommit == "none" {
		stampedCommit = "" // GoReleaser's word for a commit it could not read
	}
	vi := versionInfo{Module: "github.com/certcut/certcut", Version: stampedVersion, Commit: stampedCommit, PKCS11: keys.PKCS11Available}
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
		if m := pseudoRevRE.FindStringSubmatch(info.Main.Version); m != nil && vi.Commit == "" {
			vi.Commit = m[1]
		}
	}
	if vi.Version == "" {
		vi.Version = "(devel)"
	}
	return vi
}

// versionString returns the module version and, when known, the commit:
// "v0.3.0 commit 1a2b3c4d5e6f", "(devel) commit 1a2b3c4d5e6f", "(devel)".
func versionString() string {
	return versionInfoString(buildVersion())
}

func versionInfoString(vi versionInfo) string {
	v := vi.Version
	if vi.Commit != "" {
		v += " commit " + render.Short(vi.Commit)
		if vi.Modified {
			v += "+dirty"
		}
	}
	return v
}

func newVersionCmd() *cobra.Command {
	var out output
	cmd := command("version", "version", "Print certcut's module version and commit", cobra.NoArgs, func(cmd *cobra.Command, _ []string) error {
		vi := buildVersion()
		if !out.text() {
			return render.WriteJSON(cmd.OutOrStdout(), vi)
		}
		tokens := "PKCS#11 tokens: yes"
		if !vi.PKCS11 {
			tokens = "PKCS#11 tokens: no, they need the cgo build"
		}
		_, err := fmt.Fprintf(cmd.OutOrStdout(), "bundle %s (%s, %s, %s)\n", versionInfoString(vi), vi.Module, vi.Go, tokens)
		return err
	})
	addOutput(cmd, &out, false, render.Text, render.JSON)
	return cmd
}
