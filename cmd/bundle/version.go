package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/certcut/certcut/keys"
	"github.com/spf13/cobra"
)

// commit names the source commit when the build could not stamp it itself (builds
// with -buildvcs=false, as CI's): go build -ldflags "-X main.commit=$(git rev-parse HEAD)".
var commit string

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

// buildVersion reads the module version and the commit from the build information:
// "v0.3.0" when installed with go install …@v0.3.0, "(devel)" for a local build.
func buildVersion() versionInfo {
	vi := versionInfo{Module: "github.com/certcut/certcut", Version: "(unknown)", Commit: commit, PKCS11: keys.PKCS11Available}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return vi
	}
	vi.Go = info.GoVersion
	if info.Main.Path != "" {
		vi.Module = info.Main.Path
	}
	vi.Version = info.Main.Version
	if vi.Version == "" {
		vi.Version = "(devel)"
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
	return vi
}

// versionString returns the module version and, when known, the commit:
// "v0.3.0", "(devel) commit 1a2b3c4d5e6f".
func versionString() string {
	vi := buildVersion()
	v := vi.Version
	if len(vi.Commit) >= 12 {
		v += " commit " + vi.Commit[:12]
		if vi.Modified {
			v += "+dirty"
		}
	}
	return v
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print certcut's module version and commit",
		Long: `version prints the module version ("(devel)" for a build from a checkout, the tag
for go install …@vX.Y.Z), the source commit when the build recorded one, and the
Go version it was built with, and whether the build can sign with keys on PKCS#11
tokens (only a cgo build can). A build with -buildvcs=false records no commit;
stamp it with -ldflags "-X main.commit=$(git rev-parse HEAD)".

Exit codes: 0; 4 bad flags.`,
		Example: `  bundle version
  bundle version --json | jq -r .commit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(buildVersion())
			}
			vi := buildVersion()
			tokens := "PKCS#11 tokens: yes"
			if !vi.PKCS11 {
				tokens = "PKCS#11 tokens: no, they need the cgo build"
			}
			fmt.Fprintf(out, "bundle %s (%s, %s, %s)\n", versionString(), vi.Module, vi.Go, tokens)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print module, version, commit and Go version as JSON")
	return cmd
}
