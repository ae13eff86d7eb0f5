// Package discovery captures a host's discovery document (/.well-known/openwop):
// fetched live with the headers a certify run sends, or loaded from a file. The
// document is kept exactly as parsed (strict I-JSON, member order, presence), so its
// digest is the digest of what the host served. Mint embeds it in a bundle; a live
// gate check reuses Fetch.
package discovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
)

// WellKnownPath is where a host serves its discovery document.
const WellKnownPath = "/.well-known/openwop"

// Defaults for Fetch.
const (
	DefaultTimeout = 15 * time.Second
	// DefaultMaxSize bounds the document. The largest documents seen are under 1 MB.
	DefaultMaxSize = 8 << 20
	maxRedirects   = 5
)

// Document is a captured discovery document.
type Document struct {
	// URL is where the document was fetched (or, for a file, the URL it records).
	URL string
	// Value is the document exactly as parsed.
	Value bundle.Value
	// Sha256 is its canonical digest, the value discovery.sha256 holds.
	Sha256 string
}

// ProtocolVersions returns the document's protocolVersions (strings only).
func (d *Document) ProtocolVersions() []string {
	v, _ := d.Value.Get("protocolVersions")
	var out []string
	for _, item := range v.Items() {
		if s, ok := item.Str(); ok {
			out = append(out, s)
		}
	}
	return out
}

// PreferredVersion returns the document's preferredVersion ("" when absent).
func (d *Document) PreferredVersion() string {
	v, _ := d.Value.Get("preferredVersion")
	s, _ := v.Str()
	return s
}

// Implementation returns implementation.name, .version and .vendor ("" when absent).
func (d *Document) Implementation() (name, version, vendor string) {
	impl, _ := d.Value.Get("implementation")
	get := func(k string) string {
		v, _ := impl.Get(k)
		s, _ := v.Str()
		return s
	}
	return get("name"), get("version"), get("vendor")
}

// Options tune Fetch. The zero value uses the defaults.
type Options struct {
	// TargetMajor 2 sends OpenWOP-Version: 2.0 (the header-less representation is the
	// v1 document while both are served).
	TargetMajor int
	Timeout     time.Duration
	MaxSize     int64
	// Client, when set, is used instead of a fresh one (its redirect policy and
	// timeout are replaced).
	Client *http.Client
}

// Typed failures of Fetch, so callers can tell them apart.
type (
	// HTTPError: the host answered, but not 200.
	HTTPError struct {
		URL    string
		Status int
	}
	// TooLargeError: the document is larger than the size cap.
	TooLargeError struct {
		URL   string
		Limit int64
	}
	// NotJSONError: the answer is not a JSON object (HTML, text, not I-JSON).
	NotJSONError struct {
		URL         string
		ContentType string
		Reason      string
		Fetched     bool // false for a file
	}
	// RedirectError: the host redirected to another origin, which is refused.
	RedirectError struct {
		From, To string
	}
	// TimeoutError: no complete answer within the timeout.
	TimeoutError struct {
		URL     string
		Timeout time.Duration
	}
)

func (e *HTTPError) Error() string {
	return fmt.Sprintf("GET %s answered HTTP %d %s; the host must serve its discovery document with 200", e.URL, e.Status, http.StatusText(e.Status))
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("GET %s: the document is larger than %d MiB; a discovery document is well under 1 MB — is this the right URL?", e.URL, e.Limit>>20)
}

func (e *NotJSONError) Error() string {
	if !e.Fetched {
		return fmt.Sprintf("%s is not a JSON discovery document: %s", e.URL, e.Reason)
	}
	ct := e.ContentType
	if ct == "" {
		ct = "no Content-Type"
	}
	return fmt.Sprintf("GET %s answered %s, not a JSON discovery document: %s — is this the host's base URL?", e.URL, ct, e.Reason)
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("GET %s redirected to another origin (%s); certcut follows same-origin redirects only: give the final URL if it is right", e.From, e.To)
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("GET %s: no complete answer within %s (raise --discovery-timeout if the host is slow)", e.URL, e.Timeout)
}

// NormalizeURL returns the discovery URL for a base URL or a discovery URL: a URL
// whose path is not already /.well-known/openwop gets it appended. Only http and
// https are accepted.
func NormalizeURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("discovery URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("discovery URL %q must be an absolute http or https URL", raw)
	}
	if !strings.HasSuffix(u.Path, WellKnownPath) {
		u.Path = strings.TrimRight(u.Path, "/") + WellKnownPath
	}
	u.Fragment = ""
	return u.String(), nil
}

// sameOrigin reports whether two URLs share an origin.
func sameOrigin(a, b *url.URL) bool {
	oa, errA := bundle.Origin(a.String())
	ob, errB := bundle.Origin(b.String())
	return errA == nil && errB == nil && oa == ob
}

// Fetch GETs the discovery document at rawURL (a base URL gets /.well-known/openwop
// appended) with Accept: application/json and, at target major 2, OpenWOP-Version:
// 2.0. It refuses: a redirect to another origin, an answer other than 200, a body
// larger than the size cap, a body that is not a JSON object under the I-JSON rules
// (HTML is named as such), and no complete answer within the timeout.
func Fetch(ctx context.Context, rawURL string, opts Options) (*Document, error) {
	target, err := NormalizeURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	client := &http.Client{}
	if opts.Client != nil {
		c := *opts.Client
		client = &c
	}
	client.Timeout = opts.Timeout
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if !sameOrigin(req.URL, via[0].URL) {
			return &RedirectError{From: via[0].URL.String(), To: req.URL.String()}
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if opts.TargetMajor == 2 {
		req.Header.Set("OpenWOP-Version", "2.0")
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(target, opts.Timeout, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &HTTPError{URL: target, Status: resp.StatusCode}
	}
	if resp.ContentLength > opts.MaxSize {
		return nil, &TooLargeError{URL: target, Limit: opts.MaxSize}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, opts.MaxSize+1))
	if err != nil {
		return nil, fetchError(target, opts.Timeout, err)
	}
	if int64(len(body)) > opts.MaxSize {
		return nil, &TooLargeError{URL: target, Limit: opts.MaxSize}
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && (mt == "text/html" || mt == "application/xhtml+xml") {
		return nil, &NotJSONError{URL: target, ContentType: ct, Reason: "the host sent an HTML page", Fetched: true}
	}
	d, err := parse(body, target, ct)
	var nj *NotJSONError
	if errors.As(err, &nj) {
		nj.Fetched = true
	}
	return d, err
}

func fetchError(target string, timeout time.Duration, err error) error {
	var re *RedirectError
	if errors.As(err, &re) {
		return re
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{URL: target, Timeout: timeout}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is already named
	}
	return fmt.Errorf("GET %s: %w", target, err)
}

func parse(body []byte, where, contentType string) (*Document, error) {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '<' {
		return nil, &NotJSONError{URL: where, ContentType: contentType, Reason: "the body is markup (HTML or XML)"}
	}
	v, err := bundle.ParseIJSON(body)
	if err != nil {
		return nil, &NotJSONError{URL: where, ContentType: contentType, Reason: "not I-JSON: " + err.Error()}
	}
	if v.Kind() != bundle.Object {
		return nil, &NotJSONError{URL: where, ContentType: contentType, Reason: "the JSON is " + v.Kind().String() + ", not an object"}
	}
	sum, err := bundle.DiscoveryDigest(v)
	if err != nil {
		return nil, &NotJSONError{URL: where, ContentType: contentType, Reason: "cannot be canonicalized: " + err.Error()}
	}
	return &Document{URL: where, Value: v, Sha256: sum}, nil
}

// Load reads a discovery document saved to a file; recordURL is the URL the bundle
// will record as discovery.url (a base URL gets /.well-known/openwop appended).
func Load(path, recordURL string) (*Document, error) {
	u, err := NormalizeURL(recordURL)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > DefaultMaxSize {
		return nil, &TooLargeError{URL: path, Limit: DefaultMaxSize}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := parse(data, path, "")
	if err != nil {
		return nil, err
	}
	d.URL = u
	return d, nil
}

// FromValue wraps a document already parsed (for example a bundle's embedded one).
func FromValue(v bundle.Value, recordURL string) (*Document, error) {
	if v.Kind() != bundle.Object {
		return nil, fmt.Errorf("a discovery document is a JSON object, this is %s", v.Kind())
	}
	sum, err := bundle.DiscoveryDigest(v)
	if err != nil {
		return nil, err
	}
	return &Document{URL: recordURL, Value: v, Sha256: sum}, nil
}

// Parse reads a discovery document from bytes (a saved file, a fetched body); where
// names it in errors. The document's URL is left empty.
func Parse(data []byte, where string) (*Document, error) {
	d, err := parse(data, where, "")
	if err != nil {
		return nil, err
	}
	d.URL = ""
	return d, nil
}

// Origin returns the scheme://host[:port] of the document's URL ("" when it has none).
func (d *Document) Origin() string {
	o, err := bundle.Origin(d.URL)
	if err != nil {
		return ""
	}
	return o
}

// IsURL reports whether arg is an http(s) URL rather than a file path.
func IsURL(arg string) bool {
	return strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://")
}
