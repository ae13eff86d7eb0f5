package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
			repo, err := gate.Open(gate.Config{Root: d, Loader: &gate.Loader{Options: opts}, Live: true, Fetch: live})
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
