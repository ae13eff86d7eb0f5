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
	"slices"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
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
	return fmt.Sprintf("GET %s redirected to another origin (%s); certcut follows same-origin redirects only: give the final URL if it is right", Redact(e.From), Redact(e.To))
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("GET %s: no complete answer within %s (raise --discovery-timeout if the host is slow)", e.URL, e.Timeout)
}

// CredentialsError is a URL that carries credentials: user information
// (user:password@) or a query or fragment parameter that names a secret (see
// CheckURL). A discovery URL is published in every bundle (discovery.url) and every
// keyring entry (source), so one with credentials is refused, never stripped: a
// stripped URL would not be the one that served the document.
type CredentialsError struct {
	// URL is the URL with the credentials replaced by REDACTED (Redact).
	URL string
	// Where says what carries them: "user information" or `query parameter "token"`.
	Where string
}

func (e *CredentialsError) Error() string {
	return fmt.Sprintf("discovery URL %s carries credentials (%s); a discovery URL is published in the bundle and the keyring, so it must not: give the host's public URL, without credentials", e.URL, e.Where)
}

// secretParams are query parameter names (compared in lower case) that carry a
// credential; a name containing one of secretParamParts does too.
var (
	secretParams     = []string{"key", "sig", "pwd", "passwd", "auth", "code"}
	secretParamParts = []string{"token", "secret", "password", "apikey", "api_key", "api-key", "signature", "credential", "session"}
)

// IsSecretParam reports whether a URL query parameter name names a credential:
// key, sig, pwd, passwd, auth or code, or a name containing token, secret,
// password, apikey, api_key, api-key, signature, credential or session (so
// access_token, X-Amz-Signature, client_secret), compared case-insensitively.
func IsSecretParam(name string) bool {
	n := strings.ToLower(name)
	if slices.Contains(secretParams, n) {
		return true
	}
	for _, part := range secretParamParts {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// CheckURL refuses, with *CredentialsError, a URL that carries credentials: user
// information (user@ or user:password@), or a query or fragment parameter
// IsSecretParam names. Errors quote the URL only in its Redact form. A URL that
// does not parse is refused with an error that does not quote it either.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("discovery URL %s is not a URL", Redact(raw))
	}
	if u.User != nil {
		return &CredentialsError{URL: Redact(raw), Where: "user information"}
	}
	for _, part := range []string{u.RawQuery, u.Fragment} {
		values, _ := url.ParseQuery(part)
		names := make([]string, 0, len(values))
		for name := range values {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if IsSecretParam(name) {
				return &CredentialsError{URL: Redact(raw), Where: fmt.Sprintf("query parameter %q", name)}
			}
		}
	}
	return nil
}

// Redact returns raw with any credentials replaced by REDACTED: the user
// information, and the value of every query or fragment parameter IsSecretParam
// names. A URL that does not parse is cut to its scheme and host (user
// information dropped), so no part of it that could hold a secret is returned.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, rest, ok := strings.Cut(raw, "://")
		if !ok {
			return "(an unparseable URL)"
		}
		host, more := rest, ""
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			host, more = rest[:i], "/…"
		}
		if i := strings.LastIndex(host, "@"); i >= 0 {
			host = "REDACTED@" + host[i+1:]
		}
		return scheme + "://" + host + more
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	u.RawQuery = redactParams(u.RawQuery)
	if u.Fragment != "" {
		u.RawFragment = redactParams(u.EscapedFragment())
		u.Fragment, _ = url.PathUnescape(u.RawFragment)
	}
	return u.String()
}

// redactParams replaces the value of each secret parameter of an encoded query.
func redactParams(query string) string {
	if query == "" {
		return ""
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		name, _, hasValue := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if IsSecretParam(name) || !hasValue && IsSecretParam(p) {
			parts[i] = url.QueryEscape(name) + "=REDACTED"
		}
	}
	return strings.Join(parts, "&")
}

// NormalizeURL returns the discovery URL for a base URL or a discovery URL: a URL
// whose path is not already /.well-known/openwop gets it appended. Only http and
// https are accepted. It does not refuse credentials (CheckURL does, and Fetch and
// Load call it); its errors quote the URL only in its Redact form.
func NormalizeURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("discovery URL %s is not a URL: write it as https://host[:port][/path]", Redact(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("discovery URL %s must be an absolute http or https URL", Redact(raw))
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
// 2.0. It refuses: a URL with credentials (*CredentialsError, before any request),
// a redirect to another origin, an answer other than 200, a body larger than the
// size cap, a body that is not a JSON object under the I-JSON rules (HTML is named
// as such), and no complete answer within the timeout.
func Fetch(ctx context.Context, rawURL string, opts Options) (*Document, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
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
	body, err := limitedfile.ReadAll(resp.Body, target, opts.MaxSize)
	var tooLarge *limitedfile.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, &TooLargeError{URL: target, Limit: opts.MaxSize}
	}
	if err != nil {
		return nil, fetchError(target, opts.Timeout, err)
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
// will record as discovery.url (a base URL gets /.well-known/openwop appended), and
// is refused when it carries credentials (CheckURL). The file is read as
// limitedfile.Read reads: a regular file of at most limitedfile.MaxDiscovery bytes,
// whatever its stat says; a FIFO or a device is refused, not waited on.
func Load(path, recordURL string) (*Document, error) { return LoadArg(path, nil, recordURL) }

// LoadArg is Load for a file a command line names: "-" reads stdin.
func LoadArg(path string, stdin io.Reader, recordURL string) (*Document, error) {
	if err := CheckURL(recordURL); err != nil {
		return nil, err
	}
	u, err := NormalizeURL(recordURL)
	if err != nil {
		return nil, err
	}
	data, err := limitedfile.ReadArg(path, stdin, limitedfile.MaxDiscovery)
	if err != nil {
		return nil, err
	}
	where := path
	if path == limitedfile.Stdin {
		where = "standard input"
	}
	d, err := parse(data, where, "")
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
