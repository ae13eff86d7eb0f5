// Package discovery fetches a host's live discovery document
// (/.well-known/openwop) carefully: a timeout, a size cap, the headers the
// conformance suite sends (Accept: application/json, and OpenWOP-Version: 2.0 at
// major 2), no redirect to another origin, and the strict I-JSON reader, so the
// canonical hash it reports is the one a bundle's discovery.sha256 is compared
// with.
package discovery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
)

// WellKnownPath is where a host serves its discovery document.
const WellKnownPath = "/.well-known/openwop"

// Defaults for FetchOptions.
const (
	DefaultTimeout  = 15 * time.Second
	DefaultMaxBytes = 8 << 20
)

// FetchOptions tune Fetch. The zero value fetches at major 2 with the defaults.
type FetchOptions struct {
	// Major is the protocol major to ask for: 2 sends OpenWOP-Version: 2.0; 1 sends
	// no version header (the header-less representation is the v1 document). 0
	// means 2.
	Major int
	// Timeout bounds the whole request, redirects included; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxBytes caps the body; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Client is the HTTP client to use (its CheckRedirect and Timeout are
	// overridden); nil means a fresh one.
	Client *http.Client
}

// Document is a fetched discovery document.
type Document struct {
	// URL is the URL asked for; FinalURL the one that answered (same origin).
	URL      string `json:"url"`
	FinalURL string `json:"finalUrl"`
	// Origin is the origin of URL.
	Origin string `json:"origin"`
	// Sha256 is the lowercase hex SHA-256 of the document's canonical JSON, the
	// value a bundle records as discovery.sha256.
	Sha256 string `json:"sha256"`
	// Bytes is the size of the body.
	Bytes int `json:"bytes"`
	// FetchedAt is when the response arrived (UTC, RFC 3339).
	FetchedAt string `json:"fetchedAt"`
	// Value is the parsed document.
	Value bundle.Value `json:"-"`
}

// FetchError is any failure to obtain a usable document; Status is the HTTP status
// when one was received.
type FetchError struct {
	URL    string
	Status int
	Err    error
}

func (e *FetchError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("fetch %s: HTTP %d: %v", e.URL, e.Status, e.Err)
	}
	return fmt.Sprintf("fetch %s: %v", e.URL, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// ErrCrossOriginRedirect is wrapped in the FetchError for a redirect that leaves
// the origin asked for.
var ErrCrossOriginRedirect = errors.New("redirect to another origin refused (a host's discovery document is served by the host itself)")

// WellKnownURL returns the discovery URL for a base URL or origin: its origin
// followed by /.well-known/openwop (any path of base is dropped).
func WellKnownURL(base string) (string, error) {
	origin, err := keys.Origin(base)
	if err != nil {
		return "", err
	}
	return origin + WellKnownPath, nil
}

// Fetch GETs rawURL (an absolute http(s) URL, used as given) and returns the
// parsed document and its canonical hash. A non-2xx status, a body over the cap, a
// body that is not I-JSON or not a JSON object, a redirect to another origin and a
// timeout are all *FetchError.
func Fetch(ctx context.Context, rawURL string, opts FetchOptions) (*Document, error) {
	origin, err := keys.Origin(rawURL)
	if err != nil {
		return nil, &FetchError{URL: rawURL, Err: err}
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	client := &http.Client{}
	if opts.Client != nil {
		c := *opts.Client
		client = &c
	}
	client.Timeout = timeout
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("more than 5 redirects")
		}
		if o, err := keys.Origin(req.URL.String()); err != nil || o != origin {
			return fmt.Errorf("%w: %s", ErrCrossOriginRedirect, req.URL.Redacted())
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, &FetchError{URL: rawURL, Err: err}
	}
	req.Header.Set("Accept", "application/json")
	if opts.Major == 0 || opts.Major == 2 {
		req.Header.Set("OpenWOP-Version", "2.0")
	}
	req.Header.Set("User-Agent", "certcut-discovery/1")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &FetchError{URL: rawURL, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &FetchError{URL: rawURL, Status: resp.StatusCode, Err: errors.New("the host did not serve a discovery document")}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, &FetchError{URL: rawURL, Status: resp.StatusCode, Err: err}
	}
	if int64(len(body)) > maxBytes {
		return nil, &FetchError{URL: rawURL, Status: resp.StatusCode, Err: fmt.Errorf("body larger than %d bytes", maxBytes)}
	}
	doc, err := Parse(body)
	if err != nil {
		return nil, &FetchError{URL: rawURL, Status: resp.StatusCode, Err: err}
	}
	doc.URL, doc.FinalURL, doc.Origin = rawURL, resp.Request.URL.String(), origin
	doc.FetchedAt = time.Now().UTC().Format(time.RFC3339)
	return doc, nil
}

// Parse reads a discovery document from bytes (a file, or a fetched body) and
// computes its canonical hash.
func Parse(data []byte) (*Document, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("not a discovery document: %w", err)
	}
	if v.Kind() != bundle.Object {
		return nil, fmt.Errorf("not a discovery document: the body is a JSON %s, not an object", v.Kind())
	}
	sum, err := bundle.DiscoveryDigest(v)
	if err != nil {
		return nil, fmt.Errorf("discovery document cannot be canonicalized: %w", err)
	}
	return &Document{Sha256: sum, Bytes: len(data), Value: v}, nil
}

// IsURL reports whether arg looks like an http(s) URL rather than a file path.
func IsURL(arg string) bool {
	return strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://")
}
