package gate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// A host that embeds a copy of a tier-1 origin's public discovery document and
// signs its own rows with its own key (given by --host-key, or pinned with no
// origin) is not bound to that origin by the live fetch: the live document
// hashes to discovery.sha256, but it does not publish the key that verified the
// signature.
func TestLiveBindsOnlyThePublishedSigner(t *testing.T) {
	stranger := testkit.FixtureKey{Name: "stranger", ID: "stranger-1"}
	tier1Doc := testkit.Discovery(testkit.OriginTier1, testkit.KeyHost.Public().Entry())
	forged := testkit.BuildBundle(testkit.OriginTier1, stranger, []bundle.Row{testkit.Pass("0901.good")}, func(b *bundle.Bundle) {
		b.Discovery.Document = &tier1Doc
	})
	live := func(ctx context.Context, url string, major int) (*discovery.Document, error) {
		return &discovery.Document{URL: url, Value: *forged.Discovery.Document, Sha256: forged.Discovery.Sha256}, nil
	}
	ring := keys.NewKeyring()
	if _, err := ring.TrustKey(stranger.Public(), keys.KeyringHost{Name: "stranger"}, "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]verify.Options{
		"--host-key":               {HostKeys: keys.Set{stranger.Public()}},
		"pinned without an origin": {Keyring: ring},
	} {
		t.Run(name, func(t *testing.T) {
			d := t.TempDir()
			if err := testkit.SpecRepo(d); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "evidence", "v2-host-bundles", "good.json"), testkit.Encode(forged), 0o644); err != nil {
				t.Fatal(err)
			}
			opts.Registry = profiles.Default()
			repo, err := gate.Open(t.Context(), gate.Config{Root: d, Loader: &gate.Loader{Options: opts}, Live: true, Fetch: live})
			if err != nil {
				t.Fatal(err)
			}
			rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{"openwop.requirement.0901.good"}})
			c := tierCriterion(t, rep, "good.json")
			if c.Status != gate.Blocked || !strings.Contains(c.Reason, "does not publish the key the signature verified under (stranger-1") || strings.Contains(c.Reason, "bound by live fetch") {
				t.Fatalf("%s %s", c.Status, c.Reason)
			}
			if rep.Status == gate.Pass {
				t.Fatalf("the gate passed on a forged origin")
			}
		})
	}
}

// Concurrent Accepted calls with --live over one Repo read one settled
// assessment per bundle: each report is the one a fresh Repo gives for that
// request alone, whichever request triggered the live fetch (run with -race).
func TestLiveAssessmentConcurrent(t *testing.T) {
	dir, _ := fixture(t)
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "v2-host-bundles", "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(ctx context.Context, url string, major int) (*discovery.Document, error) {
		return &discovery.Document{URL: url, Value: *b.Discovery.Document, Sha256: b.Discovery.Sha256}, nil
	}
	open := func() *gate.Repo {
		opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic(), testkit.KeyTier2.Public()}, Registry: profiles.Default()}
		repo, err := gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}, Live: true, Fetch: fetch})
		if err != nil {
			t.Fatal(err)
		}
		return repo
	}
	ids := []string{"openwop.requirement.0901.good", "openwop.requirement.0901.shared", "openwop.requirement.0902.tier2-only", "openwop.requirement.0903.relaxed-only", "openwop.requirement.0907.unlisted-only"}
	want := map[string]string{}
	for _, id := range ids {
		rep := open().Accepted(context.Background(), gate.AcceptedRequest{Require: []string{id}})
		out, _ := json.Marshal(rep)
		want[id] = string(out)
	}
	for round := range 3 {
		repo := open()
		got := make([]string, len(ids)*4)
		var wg sync.WaitGroup
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep := repo.Accepted(context.Background(), gate.AcceptedRequest{Require: []string{ids[(i+round)%len(ids)]}})
				out, _ := json.Marshal(rep)
				got[i] = string(out)
			}()
		}
		wg.Wait()
		for i, g := range got {
			if id := ids[(i+round)%len(ids)]; g != want[id] {
				t.Fatalf("round %d, %s: the report depends on the other requests:\n%s\nwant\n%s", round, id, g, want[id])
			}
		}
	}
}
