package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// CutFile reads the bundle once: the key it takes from the discovery document
// and the verdict come from the same content, even when the file is replaced
// while the gate runs.
func TestCutFileReadsOnce(t *testing.T) {
	dir := t.TempDir()
	first := testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, nil, nil)
	doc, err := bundle.Canonical(*first.Discovery.Document)
	if err != nil {
		t.Fatal(err)
	}
	disco := filepath.Join(dir, "disco.json")
	if err := os.WriteFile(disco, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "b.json")
	data := testkit.Encode(first)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Replaced by a bundle signed with another key under the same key id.
	second := testkit.Encode(testkit.BuildBundle(testkit.OriginTier1, testkit.FixtureKey{Name: "stranger", ID: testkit.KeyHost.ID}, []bundle.Row{testkit.Pass("0999.swapped")}, nil))
	loadHook = func(p string) {
		if p == file {
			os.WriteFile(file, second, 0o644)
		}
	}
	defer func() { loadHook = nil }()
	rep, err := CutFile(CutFileRequest{File: file, Root: dir, HostDiscovery: disco, Options: verify.Options{Registry: profiles.Default()}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	for _, c := range rep.Criteria {
		if c.Bundle == nil || c.Bundle.Sha256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("%s judged other content than the key was chosen from: %+v", c.ID, c.Bundle)
		}
	}
	if len(rep.Criteria) == 0 {
		t.Fatal("no criteria")
	}
	// A bundle that cannot be read is an input error, whatever the discovery
	// document.
	if _, err := CutFile(CutFileRequest{File: filepath.Join(dir, "absent.json"), Root: dir, HostDiscovery: disco}); err == nil {
		t.Fatal("no error for a missing bundle")
	} else if _, ok := err.(*InputError); !ok || err.Error() != filepath.Join(dir, "absent.json")+": no such file" {
		t.Fatalf("%T %v", err, err)
	}
}
