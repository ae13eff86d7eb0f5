package gate_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

// The Loader reads the token beside each bundle and caches verdicts by the
// bundle's content and its tokens': the same bytes with and without a token,
// or with another token, are judged apart.
func TestLoaderReadsTokens(t *testing.T) {
	tsa := testkit.NewStamper("gate TSA", false)
	b := testkit.Signed("https://h.example")
	sig, err := keys.DecodeSignature(b.Signature.Sig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := testkit.Encode(b)
	for _, name := range []string{"a.json", "b.json", "c.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 11, 1, 12, 5, 0, 0, time.UTC)
	os.WriteFile(timestamp.HostFile(filepath.Join(dir, "b.json")), tsa.Reply(sig, at, false), 0o644)
	os.WriteFile(timestamp.HostFile(filepath.Join(dir, "c.json")), tsa.Reply(sig, at.Add(time.Hour), false), 0o644)
	l := &gate.Loader{Options: verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default(), TSA: timestamp.NewTrust(tsa.CA)}}
	entries, err := l.LoadDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || l.Judged() != 3 {
		t.Fatalf("%d entries, %d judged", len(entries), l.Judged())
	}
	want := []string{"2026-11-01T12:00:00.000Z", "2026-11-01T12:05:00Z", "2026-11-01T13:05:00Z"}
	for i, e := range entries {
		if e.Verdict == nil || e.Verdict.SigningTime.Time != want[i] {
			t.Errorf("%s: %+v", e.File, e.Verdict.SigningTime)
		}
	}
	// A token file that cannot be read makes the entry unreadable.
	os.Remove(timestamp.HostFile(filepath.Join(dir, "a.json")))
	if err := os.Mkdir(timestamp.HostFile(filepath.Join(dir, "a.json")), 0o755); err != nil {
		t.Fatal(err)
	}
	if e := l.LoadFile(filepath.Join(dir, "a.json")); e.Err == nil {
		t.Fatal("a directory as the token file was not reported")
	}
}
