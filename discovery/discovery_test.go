package discovery_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
)

const doc = `{"protocolVersions":["1.1","2.0"],"preferredVersion":"1.1","implementation":{"name":"h","version":"1.0","vendor":"v"},"limits":{"backoffFactor":0.5}}`

func TestFetch(t *testing.T) {
	var gotAccept, gotVersion, gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAccept, gotVersion, gotPath = r.Header.Get("Accept"), r.Header.Get("OpenWOP-Version"), r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(doc))
	}))
	defer srv.Close()

	d, err := discovery.Fetch(context.Background(), srv.URL, discovery.Options{TargetMajor: 2})
	if err != nil {
		t.Fatal(err)
	}
	if gotAccept != "application/json" || gotVersion != "2.0" || gotPath != "/.well-known/openwop" {
		t.Errorf("request: Accept %q, OpenWOP-Version %q, path %q", gotAccept, gotVersion, gotPath)
	}
	if d.URL != srv.URL+"/.well-known/openwop" {
		t.Errorf("URL %s", d.URL)
	}
	want, _ := bundle.ParseIJSON([]byte(doc))
	sum, _ := bundle.DiscoveryDigest(want)
	if d.Sha256 != sum || !bundle.Equal(d.Value, want) {
		t.Error("document or digest differs from what was served")
	}
	if d.PreferredVersion() != "1.1" || strings.Join(d.ProtocolVersions(), ",") != "1.1,2.0" {
		t.Error("versions")
	}
	if n, v, vendor := d.Implementation(); n != "h" || v != "1.0" || vendor != "v" {
		t.Error("implementation")
	}
	// At major 1 the header is not sent; a full discovery URL is used as given.
	if _, err := discovery.Fetch(context.Background(), srv.URL+"/.well-known/openwop", discovery.Options{TargetMajor: 1}); err != nil || gotVersion != "" {
		t.Errorf("major 1: %v, header %q", err, gotVersion)
	}
}

func TestFetchRefusals(t *testing.T) {
	mux := http.NewServeMux()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(doc)) }))
	defer other.Close()
	release := make(chan struct{})
	mux.HandleFunc("/500/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	mux.HandleFunc("/html/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Welcome</title>"))
	})
	mux.HandleFunc("/markup/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("<html></html>"))
	})
	mux.HandleFunc("/big/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 1<<20))
		w.Write([]byte("["))
		for range 50 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/array/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[1]`)) })
	mux.HandleFunc("/dup/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"a":1,"a":2}`)) })
	mux.HandleFunc("/slow/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/away/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/.well-known/openwop", http.StatusFound)
	})
	mux.HandleFunc("/moved/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok/.well-known/openwop", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/ok/.well-known/openwop", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(doc)) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(release)

	ctx := context.Background()
	// Every refusal but the slow host's must come from what the server sends,
	// not from the clock: a loaded machine may take longer than the slow case's
	// 300 ms to read the 8 MiB the size cap lets in.
	fetchWithin := func(path string, timeout time.Duration) error {
		_, err := discovery.Fetch(ctx, srv.URL+path, discovery.Options{TargetMajor: 2, Timeout: timeout})
		return err
	}
	fetch := func(path string) error { return fetchWithin(path, time.Minute) }
	var httpErr *discovery.HTTPError
	if err := fetch("/500"); !errors.As(err, &httpErr) || httpErr.Status != 500 || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("500: %v", err)
	}
	var notJSON *discovery.NotJSONError
	if err := fetch("/html"); !errors.As(err, &notJSON) || !strings.Contains(err.Error(), "HTML page") {
		t.Errorf("HTML: %v", err)
	}
	if err := fetch("/markup"); !errors.As(err, &notJSON) || !strings.Contains(err.Error(), "markup") {
		t.Errorf("markup with a JSON content type: %v", err)
	}
	var tooLarge *discovery.TooLargeError
	if err := fetch("/big"); !errors.As(err, &tooLarge) {
		t.Errorf("50 MB: %v", err)
	}
	if err := fetch("/array"); !errors.As(err, &notJSON) || !strings.Contains(err.Error(), "not an object") {
		t.Errorf("array: %v", err)
	}
	if err := fetch("/dup"); !errors.As(err, &notJSON) || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate member: %v", err)
	}
	var timeout *discovery.TimeoutError
	start := time.Now()
	if err := fetchWithin("/slow", 300*time.Millisecond); !errors.As(err, &timeout) {
		t.Errorf("slow: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the timeout was not honoured")
	}
	var redirect *discovery.RedirectError
	if err := fetch("/away"); !errors.As(err, &redirect) || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("cross-origin redirect: %v", err)
	}
	if err := fetch("/moved"); err != nil {
		t.Errorf("same-origin redirect refused: %v", err)
	}
	if _, err := discovery.Fetch(ctx, "ftp://host/x", discovery.Options{}); err == nil {
		t.Error("ftp URL accepted")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "doc.json")
	os.WriteFile(p, []byte(doc), 0o644)
	d, err := discovery.Load(p, "https://host.example")
	if err != nil {
		t.Fatal(err)
	}
	if d.URL != "https://host.example/.well-known/openwop" {
		t.Errorf("URL %s", d.URL)
	}
	os.WriteFile(p, []byte("<html/>"), 0o644)
	if _, err := discovery.Load(p, "https://host.example"); err == nil || !strings.Contains(err.Error(), "is not a JSON discovery document") {
		t.Errorf("markup file: %v", err)
	}
	if _, err := discovery.Load(filepath.Join(dir, "none.json"), "https://host.example"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// The embedded documents of the corpus hash, through Load, to their bundles'
// discovery.sha256.
func TestCorpusDocumentsHash(t *testing.T) {
	dir := testkit.CorpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "evidence", "*", "*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b, _, err := bundle.Parse(data)
		if err != nil || b.Discovery.Document == nil {
			t.Fatalf("%s: %v", f, err)
		}
		d, err := discovery.FromValue(*b.Discovery.Document, b.Discovery.URL)
		if err != nil || d.Sha256 != b.Discovery.Sha256 {
			t.Errorf("%s: %v %s", filepath.Base(f), err, d.Sha256)
		}
	}
}

// A URL with credentials never reaches a request, a bundle or a message: Fetch and
// Load refuse it, and every error shows it redacted.
func TestCredentialsRefused(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Write([]byte(doc))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	p := filepath.Join(dir, "doc.json")
	os.WriteFile(p, []byte(doc), 0o644)
	for _, raw := range []string{
		"http://alice:hunter2-secret@" + host,
		"http://hunter2-secret@" + host + "/.well-known/openwop",
		"http://" + host + "/?access_token=hunter2-secret",
		"http://" + host + "/.well-known/openwop?x=1&Token=hunter2-secret",
		"http://" + host + "?API_KEY=hunter2-secret",
		"http://" + host + "?apikey=hunter2-secret",
		"http://" + host + "?key=hunter2-secret",
		"http://" + host + "?secret=hunter2-secret",
		"http://" + host + "?password=hunter2-secret",
		"http://" + host + "?sig=hunter2-secret",
		"http://" + host + "?X-Amz-Signature=hunter2-secret",
		"http://" + host + "#access_token=hunter2-secret",
	} {
		var ce *discovery.CredentialsError
		_, err := discovery.Fetch(context.Background(), raw, discovery.Options{})
		if !errors.As(err, &ce) || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "REDACTED") {
			t.Errorf("Fetch %s: %v", raw, err)
		}
		if _, err := discovery.Load(p, raw); !errors.As(err, &ce) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Load %s: %v", raw, err)
		}
		if r := discovery.Redact(raw); strings.Contains(r, "hunter2") || !strings.Contains(r, host) {
			t.Errorf("Redact(%s) = %s", raw, r)
		}
	}
	if requests != 0 {
		t.Errorf("%d request(s) sent with credentials", requests)
	}
	// Parameters that name no secret are kept, and left alone by Redact.
	clean := srv.URL + "/.well-known/openwop?tenant=acme&v=2"
	if err := discovery.CheckURL(clean); err != nil {
		t.Errorf("clean URL refused: %v", err)
	}
	if r := discovery.Redact(clean); r != clean {
		t.Errorf("Redact changed a clean URL: %s", r)
	}
	if r := discovery.Redact("http://u:hunter2@[::1:80/x?token=hunter2"); strings.Contains(r, "hunter2") {
		t.Errorf("unparseable URL redacted as %s", r)
	}
	if _, err := discovery.NormalizeURL("http://u:hunter2@[::1:80/x"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("NormalizeURL of an unparseable URL: %v", err)
	}
}

// Load reads through limitedfile: a FIFO is refused at once (not waited on), and a
// file is capped whatever its size says.
func TestLoadRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := testkit.Mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := discovery.Load(fifo, "https://host.example"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load waited on a FIFO")
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"a":"`+strings.Repeat("x", 9<<20)+`"}`), 0o644)
	if _, err := discovery.Load(big, "https://host.example"); err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
		t.Errorf("9 MiB: %v", err)
	}
}
