package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// The Loader judges each distinct content exactly once, however many workers
// read files with that content at the same time: the judge calls are counted,
// not the cache entries.
func TestLoaderJudgesOnceUnderConcurrency(t *testing.T) {
	dir := t.TempDir()
	one := testkit.Encode(testkit.BuildBundle(testkit.OriginTier1, testkit.KeyHost, nil, nil))
	two := testkit.Encode(testkit.BuildBundle(testkit.OriginTier2, testkit.KeyTier2, nil, nil))
	var files []string
	for i := range 64 {
		data := one
		if i%2 == 1 {
			data = two
		}
		p := filepath.Join(dir, "copy-"+string(rune('a'+i%26))+string(rune('a'+i/26))+".json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for round := range 3 {
		l := &Loader{Workers: 16, Options: verify.Options{Registry: profiles.Default()}}
		entries, err := l.LoadFiles(t.Context(), files)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.judgeRuns.Load(); got != 2 || l.Judged() != 2 {
			t.Fatalf("round %d: %d judge calls, %d cached, for 2 distinct contents", round, got, l.Judged())
		}
		for _, e := range entries {
			if e.Verdict == nil || e.Bundle == nil {
				t.Fatalf("%s: no verdict", e.File)
			}
		}
	}
}
