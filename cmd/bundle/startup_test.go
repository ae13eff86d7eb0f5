package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Every command starts by initialising every package the binary links, so the
// binary links no package that only a few commands need and that costs at start:
// HashiCorp's Vault API client (hashivault:// keys go through
// internal/vaulttransit) and a Markdown engine (bundle man renders its pages
// itself). docs/performance.md has the start-up figures.
func TestStartupLinksNoHeavyPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("SKIPPED: go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{
			"github.com/hashicorp/",
			"github.com/sigstore/sigstore/pkg/signature/kms",
			"github.com/russross/blackfriday",
			"github.com/cpuguy83/go-md2man",
			"github.com/spf13/cobra/doc",
		} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("bundle links %s: its initialisation runs at every start of every command", dep)
			}
		}
	}
}
