package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/sigstore/sigstore/pkg/signature"
)

// ReferenceBundle is the corpus bundle the performance figures are measured on.
const ReferenceBundle = "openwop-host-v2-reference.json"

// ScaleBundles writes n distinct bundles into dir, made from the bundle file at
// ref (the corpus's reference bundle for the benchmarks): its rows, discovery
// document and suite, each cut from a build of its own (commit <i as 40 hex
// digits>) and signed again by the fixture host key (KeyHost, HostKeyID), with
// discovery.url set to OriginTier1 — so that, in a SpecRepo, every one verifies
// under the fixture keys, binds its origin through the fixture keyring, and takes
// the tier-1 host's tier. Identical copies would be judged once (the loaders
// cache by content); these are n different contents. Files are named
// scale-NNNNNN.json; those already there are kept. The work is spread over the
// CPUs.
func ScaleBundles(ref string, n int, dir string) error {
	data, err := os.ReadFile(ref)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	signer, err := keys.NewSigner(Key(KeyHost.Name))
	if err != nil {
		return err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := scaleBundle(data, i, dir, signer); err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// ScaleFile names the i-th bundle ScaleBundles writes.
func ScaleFile(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("scale-%06d.json", i))
}

func scaleBundle(data []byte, i int, dir string, signer signature.Signer) error {
	path := ScaleFile(dir, i)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	b, _, err := bundle.Parse(data)
	if err != nil {
		return err
	}
	b.Host.Build = bundle.Build{Kind: bundle.BuildCommit, ID: fmt.Sprintf("%040x", i+1)}
	b.Host.SigningKeyID = HostKeyID
	b.Discovery.URL = OriginTier1
	if err := keys.SignBundle(b, signer, HostKeyID); err != nil {
		return err
	}
	out, err := bundle.Indent(b.Raw)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}
