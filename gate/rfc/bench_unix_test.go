//go:build unix

package rfc_test

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/certcut/certcut/gate/rfc"
)

// BenchmarkParseManyIDs pins the id reader's linear time: one line naming
// 400,000 distinct ids (about 4.5 MB, inside the 8 MiB cap) parses in under
// 2 s of CPU per op (the process's user and system time, so a loaded CI
// machine does not fail it), on an acceptance line and on a Falsifiability
// row. The reader was quadratic: 138 s for such a line. Set MANYIDS to try
// another count.
func BenchmarkParseManyIDs(b *testing.B) {
	n := 400_000
	if s := os.Getenv("MANYIDS"); s != "" {
		fmt.Sscan(s, &n)
	}
	for _, where := range []string{"acceptance-line", "falsifiability-row"} {
		b.Run(where, func(b *testing.B) {
			text := manyIDs(n, where == "falsifiability-row")
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			start, cpu0 := time.Now(), cpuTime(b)
			for b.Loop() {
				r := rfc.Parse("RFCS/0901-x.md", text)
				if len(r.Requirements) != n {
					b.Fatalf("%d ids, want %d", len(r.Requirements), n)
				}
			}
			wall := time.Since(start) / time.Duration(b.N)
			cpu := (cpuTime(b) - cpu0) / time.Duration(b.N)
			b.ReportMetric(cpu.Seconds(), "cpu-s/op")
			if cpu > 2*time.Second {
				b.Fatalf("%v of CPU (%v wall) per parse of a line naming %d ids (%d bytes): the id reader is no longer linear (bound 2 s)", cpu, wall, n, len(text))
			}
		})
	}
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
