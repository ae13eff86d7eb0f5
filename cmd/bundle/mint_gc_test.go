package main

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
)

// bundle mint collects at mintGCPercent while it runs, unless GOGC sets the
// collector, and puts the setting back when it returns (a process may run more
// than one command: the tests do).
func TestMintCollectorSetting(t *testing.T) {
	dir := t.TempDir()
	der, err := x509.MarshalPKCS8PrivateKey(testkit.Key("host"))
	if err != nil {
		t.Fatal(err)
	}
	rowItems := make([]bundle.Value, 0)
	for _, r := range testkit.Rows() {
		rowItems = append(rowItems, r.Value())
	}
	doc := testkit.Discovery("https://host.example", keys.SigningKey{KeyID: testkit.HostKeyID, Alg: "ed25519", Use: keys.UseCertificationBundle, PublicKey: testkit.HostPublic().Base64URL()})
	files := map[string][]byte{"host.key.pem": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})}
	for name, v := range map[string]bundle.Value{"rows.json": bundle.ArrayValue(rowItems...), "discovery.json": doc} {
		if files[name], err = bundle.Indent(v); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"mint", "--force", "--out", filepath.Join(dir, "out.json"), "--key", filepath.Join(dir, "host.key.pem"),
		"--key-id", testkit.HostKeyID, "--build", "commit:4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39", "--suite-version", "2.45.30",
		"--discovery-file", filepath.Join(dir, "discovery.json"), "--discovery-url", "https://host.example", "--rows", filepath.Join(dir, "rows.json")}

	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, tc := range []struct {
		gogc string
		want int // while mint runs
	}{{"", mintGCPercent}, {"100", 100}} {
		t.Setenv("GOGC", tc.gogc)
		during := -2
		look := func(point string) {
			if point == "mint" {
				during = debug.SetGCPercent(-1)
				debug.SetGCPercent(during)
			}
		}
		testHook.Store(&look)
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		testHook.Store(nil)
		if code != 0 {
			t.Fatalf("GOGC=%q: exit %d: %s", tc.gogc, code, stderr.String())
		}
		if during != tc.want {
			t.Errorf("GOGC=%q: the collector was at %d while mint ran, want %d", tc.gogc, during, tc.want)
		}
		if after := debug.SetGCPercent(100); after != 100 {
			t.Errorf("GOGC=%q: the collector is at %d after mint, want it put back at 100", tc.gogc, after)
		}
	}
}
