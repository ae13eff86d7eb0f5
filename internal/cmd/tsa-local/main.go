// Command tsa-local runs an RFC 3161 Time-Stamp Authority on 127.0.0.1, for
// trying certcut's trusted time by hand (docs/timestamps.md, docs/guide.md).
// scripts/tsa-local.sh builds and runs it.
//
// OpenSSL does the authority's work: `openssl req`/`openssl x509` make a CA and
// a TSA certificate whose extended key usage is time-stamping alone (critical),
// and `openssl ts -reply` answers each query; this program only carries the
// queries over HTTP (POST application/timestamp-query) on a loopback port.
//
// It prints two shell lines, `export TSA_URL=…` and `export TSA_CERT=…` (the
// CA's certificate, the PEM to pass to --tsa-cert), then serves until
// interrupted. The keys are made fresh at every start, in a temporary directory
// removed on exit (or in --dir, kept). It is for trying things out: its clock
// is this machine's and its keys sit unprotected on disk, so its tokens prove
// nothing to anyone else. Production bundles are stamped by a public or an
// organisation's TSA (docs/timestamps.md names some).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/certcut/certcut/internal/testkit"
)

func main() {
	dir := flag.String("dir", "", "keep the CA, the TSA's key and certificate in this directory (default: a temporary one, removed on exit)")
	name := flag.String("name", "certcut local TSA", "common name of the TSA's certificate (its CA is \"NAME root\")")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "tsa-local: no arguments expected; flags: --dir DIR, --name NAME")
		os.Exit(4)
	}
	os.Exit(run(*dir, *name))
}

func run(dir, name string) int {
	if why := testkit.OpenSSLMissing(); why != "" {
		fmt.Fprintln(os.Stderr, "tsa-local:", why)
		return 3
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "certcut-tsa-local-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "tsa-local:", err)
			return 3
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	tsa, err := testkit.StartTSA(dir, testkit.TSAOptions{Name: name})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tsa-local:", err)
		return 3
	}
	defer tsa.Close()
	fmt.Printf("export TSA_URL=%s\nexport TSA_CERT=%s\n", tsa.URL, tsa.CACert)
	fmt.Fprintf(os.Stderr, "tsa-local: %q answers RFC 3161 queries at %s (loopback only); trust it with --tsa-cert %s. Ctrl-C stops it.\n",
		name, tsa.URL, tsa.CACert)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	fmt.Fprintf(os.Stderr, "tsa-local: stopped after %d queries\n", tsa.Queries())
	return 0
}
