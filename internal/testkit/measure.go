package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ScaleDir returns a directory holding n bundles from ScaleBundles, and nothing
// else, for benchmarks over many distinct bundles: the bundles are written once
// into a cache under the system's temporary directory (named by the reference
// bundle's digest, kept between runs, since 10,000 of them take a while to make),
// and each n gets a directory of hard links to the first n. It skips when the
// corpus is absent.
func ScaleDir(b testing.TB, n int) string {
	b.Helper()
	ref := filepath.Join(CorpusDir(b), "evidence", "v2-host-bundles", ReferenceBundle)
	data, err := os.ReadFile(ref)
	if err != nil {
		b.Fatal(err)
	}
	sum := sha256.Sum256(data)
	cache := filepath.Join(os.TempDir(), "certcut-scale-"+hex.EncodeToString(sum[:6]))
	all := filepath.Join(cache, "all")
	if err := ScaleBundles(ref, n, all); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(cache, "n", strconvItoa(n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		dst := ScaleFile(dir, i)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		if err := os.Link(ScaleFile(all, i), dst); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func strconvItoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// Usage measures a run: the peak of the live heap (sampled every few
// milliseconds from runtime/metrics, without stopping the world) and the CPU the
// process spent against the wall-clock time (2.0 is two cores kept busy).
type Usage struct {
	stop     chan struct{}
	done     sync.WaitGroup
	peak     uint64
	start    time.Time
	cpuStart time.Duration
}

// StartUsage starts measuring.
func StartUsage() *Usage {
	u := &Usage{stop: make(chan struct{}), start: time.Now(), cpuStart: cpuTime()}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	u.done.Add(1)
	go func() {
		defer u.done.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > u.peak {
				u.peak = v
			}
			select {
			case <-u.stop:
				return
			case <-t.C:
			}
		}
	}()
	return u
}

// Stop ends the measure and returns the peak live heap in bytes and the cores
// kept busy on average.
func (u *Usage) Stop() (peakHeap uint64, cores float64) {
	close(u.stop)
	u.done.Wait()
	wall := time.Since(u.start)
	return u.peak, float64(cpuTime()-u.cpuStart) / float64(wall)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
