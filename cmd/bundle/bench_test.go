package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/certcut/certcut/internal/testkit"
)

// BenchmarkScaleVerify: `bundle verify` over n distinct bundles (testkit.ScaleDir)
// in the process, output discarded: time per bundle (flat as n grows), peak live
// heap (bounded: each verdict is printed when ready and dropped) and the cores
// kept busy. Only with -bench:
//
//	go test ./cmd/bundle -run '^$' -bench ScaleVerify -benchtime 1x
func BenchmarkScaleVerify(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := testkit.ScaleDir(b, n)
			repo := b.TempDir()
			if err := testkit.SpecRepo(repo); err != nil {
				b.Fatal(err)
			}
			args := []string{"verify", "--host-key", filepath.Join(repo, "keys")}
			for i := range n {
				args = append(args, testkit.ScaleFile(dir, i))
			}
			u := testkit.StartUsage()
			for b.Loop() {
				if code := run(args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			peak, cores := u.Stop()
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(cores, "cores")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/bundle")
		})
	}
}

// BenchmarkProcessVerifyReference: the whole process, `bundle verify --host-key
// KEY openwop-host-v2-reference.json`, start-up included, built as `go build`
// builds it; reports the peak resident set size. bench/run.sh compares it with
// the Node verifier side by side.
func BenchmarkProcessVerifyReference(b *testing.B) {
	corpus := testkit.CorpusDir(b)
	bin := filepath.Join(b.TempDir(), "bundle")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatal(err)
	}
	key := filepath.Join(corpus, "keys", "v2-reference-4.pub.pem")
	ref := filepath.Join(corpus, "evidence", "v2-host-bundles", testkit.ReferenceBundle)
	var maxRSS int64
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "verify", "--host-key", key, ref)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		maxRSS = max(maxRSS, ru.Maxrss)
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
