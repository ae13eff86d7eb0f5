package main

import (
	"fmt"

	"github.com/certcut/certcut/internal/buildinfo"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

// version and commit are stamped by release builds (.goreleaser.yaml):
// -ldflags "-X main.version=v1.2.3 -X main.commit=<full commit id>". commit also
// names the source commit of a build that could not record it itself (with
// -buildvcs=false, as CI's): go build -ldflags "-X main.commit=$(git rev-parse HEAD)".
var version, commit string

func buildVersion() buildinfo.Info { return buildinfo.Read(version, commit) }

// versionString is "v0.3.0 commit 1a2b3c4d5e6f", "(devel)": see buildinfo.
func versionString() string { return buildVersion().String() }

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
		_, err := fmt.Fprintf(cmd.OutOrStdout(), "bundle %s (%s, %s, %s)\n", vi.String(), vi.Module, vi.Go, tokens)
		return err
	})
	addOutput(cmd, &out, false, render.Text, render.JSON)
	return cmd
}
