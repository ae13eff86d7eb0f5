package discovery_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
)

func serveDoc(t *testing.T, doc []byte) (*httptest.Server, *http.Header) {
	t.Helper()
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		seen = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestFetchHashesLikeTheBundle(t *testing.T) {
	b := testkit.Signed("https://h.example")
	docBytes, err := bundle.Indent(*b.Discovery.Document)
	if err != nil {
		t.Fatal(err)
	}
	srv, seen := serveDoc(t, docBytes)
	doc, err := discovery.Fetch(context.Background(), srv.URL+discovery.WellKnownPath, discovery.FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Sha256 != b.Discovery.Sha256 {
		t.Errorf("live hash %s, bundle %s", doc.Sha256, b.Discovery.Sha256)
	}
	if got := seen.Get("OpenWOP-Version"); got != "2.0" {
		t.Errorf("OpenWOP-Version %q", got)
	}
	if got := seen.Get("Accept"); got != "application/json" {
		t.Errorf("Accept %q", got)
	}
	if doc.Origin != srv.URL {
		t.Errorf("origin %q, want %q", doc.Origin, srv.URL)
	}
	if _, err := discovery.Fetch(context.Background(), srv.URL+discovery.WellKnownPath, discovery.FetchOptions{Major: 1}); err != nil {
		t.Fatal(err)
	}
	if got := seen.Get("OpenWOP-Version"); got != "" {
		t.Errorf("major 1 sent OpenWOP-Version %q", got)
	}
}

func TestFetchRefusals(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) }))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"x":"` + strings.Repeat("a", 2048) + `"}`))
	})
	mux.HandleFunc("/notjson", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`<html>`)) })
	mux.HandleFunc("/array", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[1]`)) })
	mux.HandleFunc("/dup", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"a":1,"a":2}`)) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL+"/", http.StatusFound) })
	mux.HandleFunc("/here", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/doc", http.StatusFound) })
	mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"protocolVersions":["2.0"]}`)) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	opts := discovery.FetchOptions{MaxBytes: 1024, Timeout: 200 * time.Millisecond}
	for path, want := range map[string]string{
		"/missing": "HTTP 404",
		"/big":     "larger than 1024 bytes",
		"/notjson": "not a discovery document",
		"/array":   "not an object",
		"/dup":     "duplicate",
		"/away":    "redirect to another origin refused",
		"/slow":    "Timeout",
	} {
		_, err := discovery.Fetch(context.Background(), srv.URL+path, opts)
		var fe *discovery.FetchError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a FetchError containing %q", path, err, want)
		}
	}
	if _, err := discovery.Fetch(context.Background(), srv.URL+"/away", opts); !errors.Is(err, discovery.ErrCrossOriginRedirect) {
		t.Errorf("cross-origin redirect: %v", err)
	}
	doc, err := discovery.Fetch(context.Background(), srv.URL+"/here", opts)
	if err != nil || !strings.HasSuffix(doc.FinalURL, "/doc") {
		t.Errorf("same-origin redirect: %+v %v", doc, err)
	}
	if _, err := discovery.Fetch(context.Background(), "ftp://x/", opts); err == nil {
		t.Error("ftp URL accepted")
	}
}

func TestWellKnownURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.example.com":                         "https://api.example.com/.well-known/openwop",
		"https://api.example.com:443/x/y":                 "https://api.example.com/.well-known/openwop",
		"http://127.0.0.1:3838/.well-known/openwop":       "http://127.0.0.1:3838/.well-known/openwop",
		"HTTPS://API.Example.com/.well-known/openwop?x=1": "https://api.example.com/.well-known/openwop",
	} {
		if got, err := discovery.WellKnownURL(in); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	if o, _ := keys.Origin("http://[::1]:80/a"); o != "http://[::1]" {
		t.Errorf("ipv6 origin %q", o)
	}
}
