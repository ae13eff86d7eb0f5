package main

import (
	"os"
	"strconv"
	"sync"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/timestamp"
	"github.com/rogpeppe/go-internal/testscript"
)

// testTSAs are the TSAs scripts started, by work directory and name.
var testTSAs sync.Map

// tsa NAME [-no-timestamping]: start a Time-Stamp Authority on loopback for the
// rest of the script: OpenSSL's `openssl ts -reply` behind an HTTP handler, with
// a CA and a TSA certificate made fresh under NAME/ (NAME/ca.pem, NAME/tsa.pem).
// $NAME is its URL. -no-timestamping issues its certificate without the
// time-stamping usage (OpenSSL will not sign with it, so the library's responder
// answers then). Scripts that use it start with [!openssl] skip.
func cmdTSA(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "-no-timestamping") {
		ts.Fatalf("usage: tsa NAME [-no-timestamping]")
	}
	opts := testkit.TSAOptions{Name: "certcut test TSA", WithoutTimeStamping: len(args) == 2}
	if args[0] != "TSA" {
		opts.Name = "certcut test " + args[0]
	}
	tsa, err := testkit.StartTSA(ts.MkAbs(args[0]), opts)
	ts.Check(err)
	ts.Defer(tsa.Close)
	testTSAs.Store(ts.Getenv("WORK")+"|"+args[0], tsa)
	ts.Setenv(args[0], tsa.URL)
}

// tsastamp NAME BUNDLE [OUT]: ask TSA NAME for a token of BUNDLE's host signature
// and write its reply to OUT (default BUNDLE.tsr) as it comes, unchecked: for
// tokens certcut's own timestamp command refuses to write.
func cmdTSAStamp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: tsastamp NAME BUNDLE [OUT]")
	}
	v, ok := testTSAs.Load(ts.Getenv("WORK") + "|" + args[0])
	if !ok {
		ts.Fatalf("no TSA %s: start it with tsa %s", args[0], args[0])
	}
	sig := hostSignature(ts, args[1])
	req, err := timestamp.NewRequest(sig)
	ts.Check(err)
	reply, err := v.(*testkit.TSA).Reply(req.DER)
	ts.Check(err)
	out := timestamp.HostFile(args[1])
	if len(args) == 3 {
		out = args[2]
	}
	ts.Check(os.WriteFile(ts.MkAbs(out), reply, 0o644))
}

// sigfile BUNDLE OUT: write the decoded bytes of BUNDLE's host signature to OUT
// (what its token stamps), for openssl ts -verify -data.
func cmdSigFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sigfile BUNDLE OUT")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), hostSignature(ts, args[0]), 0o644))
}

func hostSignature(ts *testscript.TestScript, file string) []byte {
	b, _, err := bundle.Parse([]byte(ts.ReadFile(file)))
	ts.Check(err)
	sig, err := timestamp.SignatureOf(b, timestamp.HostRole)
	ts.Check(err)
	return sig
}

// truncate FILE N: keep the first N bytes of FILE; a negative N drops -N bytes
// from its end.
func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	if n < 0 {
		n += len(data)
	}
	if n < 0 || n > len(data) {
		ts.Fatalf("%s has %d bytes", args[0], len(data))
	}
	ts.Check(os.WriteFile(path, data[:n], 0o644))
}
