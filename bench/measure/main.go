// Command measure runs commands side by side and reports, for each, the wall
// time, the CPU time (user + system) and the peak resident set size of its
// process, as the median with the minimum and maximum over the runs:
//
//	go run ./bench/measure -runs 21 -- certcut bundle verify … --- node node peer-verify.mjs …
//
// Commands are separated by "---"; the first word of each is its label. Each
// round runs every command once, in turn, so that a change in the machine's load
// falls on all of them alike. Standard output and error of the commands are
// discarded; a command that exits with a status other than those given with
// -ok (default 0) is an error. Output, one line per command:
//
//	label runs wall_median_ms wall_min_ms wall_max_ms cpu_median_ms rss_median_kib rss_min_kib rss_max_kib cores_median
//
// cores is CPU time over wall time: 2.0 is two cores kept busy. Linux only (the
// peak RSS is the process's ru_maxrss).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	wall, cpu time.Duration
	rss       int64 // KiB
}

func main() {
	runs := flag.Int("runs", 11, "rounds to run")
	okCodes := flag.String("ok", "0", "comma-separated exit `codes` that count as success")
	flag.Parse()
	ok := map[int]bool{}
	for _, c := range strings.Split(*okCodes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			fail("bad -ok %q", *okCodes)
		}
		ok[n] = true
	}
	var cmds [][]string
	cur := []string{}
	for _, a := range flag.Args() {
		if a == "---" {
			cmds = append(cmds, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, a)
	}
	cmds = append(cmds, cur)
	for _, c := range cmds {
		if len(c) < 2 {
			fail("each command needs a label and a program")
		}
	}
	samples := make([][]sample, len(cmds))
	for range *runs {
		for i, c := range cmds {
			samples[i] = append(samples[i], runOnce(c[1:], ok))
		}
	}
	for i, c := range cmds {
		s := samples[i]
		wall := pick(s, func(x sample) float64 { return float64(x.wall) / 1e6 })
		cpu := pick(s, func(x sample) float64 { return float64(x.cpu) / 1e6 })
		rss := pick(s, func(x sample) float64 { return float64(x.rss) })
		cores := pick(s, func(x sample) float64 { return float64(x.cpu) / float64(x.wall) })
		fmt.Printf("%s %d %.2f %.2f %.2f %.2f %.0f %.0f %.0f %.2f\n", c[0], len(s), wall[1], wall[0], wall[2], cpu[1], rss[1], rss[0], rss[2], cores[1])
	}
}

// pick returns the minimum, median and maximum of f over the samples.
func pick(s []sample, f func(sample) float64) [3]float64 {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return [3]float64{v[0], med, v[len(v)-1]}
}

func runOnce(argv []string, ok map[int]bool) sample {
	cmd := exec.Command(argv[0], argv[1:]...)
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fail("%v", err)
	}
	defer devnull.Close()
	cmd.Stdout, cmd.Stderr = devnull, devnull
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fail("%s: %v", strings.Join(argv, " "), err)
	}
	if code := cmd.ProcessState.ExitCode(); !ok[code] {
		fail("%s: exit status %d", strings.Join(argv, " "), code)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu, rss: ru.Maxrss}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "measure: "+format+"\n", args...)
	os.Exit(1)
}
