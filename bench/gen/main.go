// Command gen writes the inputs bench/run.sh measures on, from the OpenWOP corpus:
//
//	go run ./bench/gen -corpus ../shared/corpus/openwop -out DIR -n 10000
//
// DIR/repo is a spec repository (testkit.SpecRepo: tiers, keyring, fixture keys)
// whose evidence/v2-host-bundles holds nothing; DIR/scale holds n distinct
// bundles made from the reference bundle (testkit.ScaleBundles: its rows, signed
// again for builds of their own); DIR/mint holds the inputs of a 500-row mint
// (rows.json, discovery.json, a host key) cut from the workflow-engine bundle.
package main

import (
	"crypto/ed25519"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
)

func main() {
	corpus := flag.String("corpus", "../shared/corpus/openwop", "the OpenWOP corpus `dir`")
	out := flag.String("out", "", "output `dir`")
	n := flag.Int("n", 10000, "how many distinct bundles to write")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: give -out DIR")
		os.Exit(4)
	}
	if err := run(*corpus, *out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(corpus, out string, n int) error {
	repo := filepath.Join(out, "repo")
	if err := testkit.SpecRepo(repo); err != nil {
		return err
	}
	// The fixture bundles stay out: the scale directory is the repository's
	// bundles directory for these runs.
	if err := os.RemoveAll(filepath.Join(repo, "evidence", "v2-host-bundles")); err != nil {
		return err
	}
	ref := filepath.Join(corpus, "evidence", "v2-host-bundles", testkit.ReferenceBundle)
	if err := testkit.ScaleBundles(ref, n, filepath.Join(out, "scale")); err != nil {
		return err
	}
	return mintInputs(corpus, filepath.Join(out, "mint"))
}

// mintInputs writes the first 500 rows of the workflow-engine bundle as native
// rows, its discovery document, and a fresh host key.
func mintInputs(corpus, dir string) error {
	data, err := os.ReadFile(filepath.Join(corpus, "evidence", "v2-host-bundles", "openwop-workflow-engine-2.45.30-7643ddb8e.json"))
	if err != nil {
		return err
	}
	b, _, err := bundle.Parse(data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rows := make([]bundle.Value, 0, 500)
	for _, r := range b.Results.Requirements[:500] {
		rows = append(rows, r.Value())
	}
	text, err := bundle.Indent(bundle.ArrayValue(rows...))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.json"), text, 0o644); err != nil {
		return err
	}
	// The document publishes the bench's host key, as a host's does before it
	// mints: mint refuses a key the document does not publish.
	priv := testkit.Key("bench-mint")
	entry := keys.PublicKey{Key: priv.Public().(ed25519.PublicKey), KeyID: "bench-host-1"}.Entry()
	listed, _ := b.Discovery.Document.Get("signingKeys")
	published := append(listed.Items(), bundle.ObjectValue(
		bundle.Member{Name: "keyId", Value: bundle.StringValue(entry.KeyID)},
		bundle.Member{Name: "alg", Value: bundle.StringValue(entry.Alg)},
		bundle.Member{Name: "publicKey", Value: bundle.StringValue(entry.PublicKey)},
		bundle.Member{Name: "use", Value: bundle.StringValue(entry.Use)},
	))
	doc, err := bundle.Indent(b.Discovery.Document.With("signingKeys", bundle.ArrayValue(published...)))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "discovery.json"), doc, 0o644); err != nil {
		return err
	}
	pemText, err := keys.MarshalPrivatePEM(priv)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "host.key.pem"), pemText, 0o600); err != nil {
		return err
	}
	pub, err := keys.MarshalPublicPEM(priv.Public().(ed25519.PublicKey))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "bench-host-1.pub.pem"), pub, 0o644)
}
