package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/rogpeppe/go-internal/testscript"
)

// specrepo DIR: write the fixture spec repository of testkit.SpecRepo under DIR.
func cmdSpecRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: specrepo DIR")
	}
	ts.Check(testkit.SpecRepo(ts.MkAbs(args[0])))
}

// livehost DIR match|drift VAR: start a loopback host serving a discovery
// document, write DIR/evidence/v2-host-bundles/live.json (a bundle that captured
// that document, carrying 0930.live-only), list the host at tier 1 in
// DIR/evidence/host-tiers.json beside the fixture hosts, and set $VAR to its
// origin. With drift the host serves a changed document; with down the host is
// closed before anything is fetched (a refused loopback connection, no DNS).
func cmdLiveHost(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || (args[1] != "match" && args[1] != "drift" && args[1] != "down") {
		ts.Fatalf("usage: livehost DIR match|drift|down VAR")
	}
	var served []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.WellKnownPath || r.Header.Get("OpenWOP-Version") != "2.0" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(served)
	}))
	ts.Defer(srv.Close)
	b := testkit.BuildBundle(srv.URL, testkit.KeyHost, []bundle.Row{testkit.Pass("0930.live-only")}, nil)
	doc := *b.Discovery.Document
	if args[1] == "drift" {
		doc = doc.With("preferredVersion", bundle.StringValue("2.1"))
	}
	var err error
	served, err = bundle.Indent(doc)
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.WriteFile(filepath.Join(dir, "evidence", "v2-host-bundles", "live.json"), testkit.Encode(b), 0o644))
	ts.Check(testkit.WriteTiers(filepath.Join(dir, "evidence", "host-tiers.json"), map[string]int{testkit.OriginTier1: 1, testkit.OriginTier2: 2, srv.URL: 1}))
	ts.Setenv(args[2], srv.URL)
	if args[1] == "down" {
		srv.Close()
	}
}

// servedisco FILE VAR: serve FILE as /.well-known/openwop on a loopback host and
// set $VAR to its origin.
func cmdServeDisco(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: servedisco FILE VAR")
	}
	data := []byte(ts.ReadFile(args[0]))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[1], srv.URL)
}
