// Package vaulttransit is a client for the two calls of HashiCorp Vault's (and
// OpenBao's) transit secrets engine that signing with a transit key needs: read
// the key's public half (GET /v1/MOUNT/keys/KEY) and sign a message
// (PUT /v1/MOUNT/sign/KEY).
//
// It stands in for sigstore's hashivault KMS provider, which makes the same two
// calls with the same request bodies through HashiCorp's full Vault API client;
// that client (with its HCL parser, JOSE library, retrying HTTP client and HTTP/2
// stack) was linked into every certcut command and initialised at every start,
// though only hashivault:// keys use it. This package needs the standard library
// only, and it takes a context, so that an abandoned call is cancelled rather
// than left running.
//
// Configuration follows the Vault client's environment: VAULT_ADDR (or
// BAO_ADDR), VAULT_TOKEN (or BAO_TOKEN, else the token in ~/.vault-token that
// `vault login` writes), VAULT_NAMESPACE, TRANSIT_SECRET_ENGINE_PATH (default
// "transit"), VAULT_CACERT, VAULT_CAPATH, VAULT_CLIENT_CERT, VAULT_CLIENT_KEY,
// VAULT_TLS_SERVER_NAME, VAULT_SKIP_VERIFY and VAULT_MAX_RETRIES (default 2:
// a call answered 5xx or 412, or not answered, is retried after a second).
// Proxies come from HTTP_PROXY, HTTPS_PROXY and NO_PROXY. Errors never quote the
// token.
package vaulttransit

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Schemes are the key URI schemes the client serves: hashivault://KEY and
// openbao://KEY.
var Schemes = []string{"hashivault://", "openbao://"}

// keyName returns the transit key a URI names, in the grammar of sigstore's
// hashivault provider (^(hashivault|openbao)://\w([\w-.]*\w)?$, \w being ASCII
// letters, digits and "_"), or false.
func keyName(uri string) (string, bool) {
	var name string
	for _, s := range Schemes {
		if rest, ok := strings.CutPrefix(uri, s); ok {
			name = rest
		}
	}
	if name == "" {
		return "", false
	}
	word := func(b byte) bool {
		return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !word(b) && (b != '-' && b != '.' || i == 0 || i == len(name)-1) {
			return "", false
		}
	}
	return name, true
}

// stripVersion removes the version prefix (vault:v1:) Vault puts before a
// signature.
func stripVersion(s string) string {
	rest, ok := strings.CutPrefix(s, "vault:v")
	if !ok {
		return s
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i == 0 || i == len(rest) || rest[i] != ':' {
		return s
	}
	return rest[i+1:]
}

// Config overrides what the environment says; empty fields are read from it.
type Config struct {
	Address string // VAULT_ADDR, else BAO_ADDR
	Token   string // VAULT_TOKEN, else BAO_TOKEN, else ~/.vault-token
	Mount   string // TRANSIT_SECRET_ENGINE_PATH, else "transit"
}

// Client signs with one transit key.
type Client struct {
	addr, token, mount, key, namespace string
	retries                            int
	http                               *http.Client
}

// New returns a client for the transit key a hashivault:// or openbao:// URI
// names. It makes no call yet.
func New(uri string, cfg Config) (*Client, error) {
	key, ok := keyName(uri)
	if !ok {
		return nil, errors.New("kms specification should be in the format hashivault://<key>")
	}
	c := &Client{key: key, addr: cfg.Address, token: cfg.Token, mount: cfg.Mount, retries: 2}
	if c.addr == "" {
		c.addr = firstEnv("VAULT_ADDR", "BAO_ADDR")
	}
	if c.addr == "" {
		return nil, errors.New("VAULT_ADDR or BAO_ADDR is not set")
	}
	c.addr = strings.TrimRight(c.addr, "/")
	if c.token == "" {
		c.token = firstEnv("VAULT_TOKEN", "BAO_TOKEN")
	}
	if c.token == "" {
		c.token = tokenFile()
	}
	if c.token == "" {
		return nil, errors.New("no Vault token: set VAULT_TOKEN (or BAO_TOKEN), or log in so that ~/.vault-token holds one")
	}
	if c.mount == "" {
		c.mount = os.Getenv("TRANSIT_SECRET_ENGINE_PATH")
	}
	if c.mount == "" {
		c.mount = "transit"
	}
	c.mount = strings.Trim(c.mount, "/")
	c.namespace = os.Getenv("VAULT_NAMESPACE")
	if s := os.Getenv("VAULT_MAX_RETRIES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("VAULT_MAX_RETRIES %q: give a whole number of retries, e.g. 2", s)
		}
		c.retries = n
	}
	tr, err := transport()
	if err != nil {
		return nil, err
	}
	c.http = &http.Client{Transport: tr, Timeout: 60 * time.Second}
	return c, nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// tokenFile is the token `vault login` left in ~/.vault-token, "" when none.
func tokenFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(home, ".vault-token"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// transport is the HTTP transport with the TLS settings of VAULT_CACERT,
// VAULT_CAPATH, VAULT_CLIENT_CERT, VAULT_CLIENT_KEY, VAULT_TLS_SERVER_NAME and
// VAULT_SKIP_VERIFY.
func transport() (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: os.Getenv("VAULT_TLS_SERVER_NAME")}
	var pemFiles []string
	if f := os.Getenv("VAULT_CACERT"); f != "" {
		pemFiles = append(pemFiles, f)
	} else if d := os.Getenv("VAULT_CAPATH"); d != "" {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("VAULT_CAPATH: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				pemFiles = append(pemFiles, filepath.Join(d, e.Name()))
			}
		}
	}
	if len(pemFiles) > 0 {
		pool := x509.NewCertPool()
		for _, f := range pemFiles {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("Vault CA certificate: %w", err)
			}
			if !pool.AppendCertsFromPEM(data) {
				return nil, fmt.Errorf("Vault CA certificate %s holds no PEM certificate", f)
			}
		}
		tc.RootCAs = pool
	}
	if cert, key := os.Getenv("VAULT_CLIENT_CERT"), os.Getenv("VAULT_CLIENT_KEY"); cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("VAULT_CLIENT_CERT and VAULT_CLIENT_KEY: %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	if s := os.Getenv("VAULT_SKIP_VERIFY"); s != "" {
		skip, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("VAULT_SKIP_VERIFY %q: give true or false", s)
		}
		tc.InsecureSkipVerify = skip
	}
	tr.TLSClientConfig = tc
	return tr, nil
}

// APIError is an answer of Vault other than success: its status and the errors
// it listed.
type APIError struct {
	Method, URL string
	Status      int
	Errors      []string
}

func (e *APIError) Error() string {
	msg := strings.Join(e.Errors, "; ")
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("Vault answered %d to %s %s: %s", e.Status, e.Method, e.URL, msg)
}

// call makes one API call with its retries and decodes the "data" object of the
// answer into out. A 404 is (false, nil).
func (c *Client) call(ctx context.Context, method, path string, body any, out any) (bool, error) {
	u := c.addr + "/v1/" + path
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return false, err
		}
	}
	for attempt := 0; ; attempt++ {
		found, retry, err := c.once(ctx, method, u, payload, out)
		if !retry || attempt >= c.retries {
			return found, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(time.Second + time.Duration(attempt)*250*time.Millisecond):
		}
	}
}

func (c *Client) once(ctx context.Context, method, u string, payload []byte, out any) (found, retry bool, err error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return false, false, err
	}
	req.Header.Set("X-Vault-Token", c.token)
	req.Header.Set("X-Vault-Request", "true")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.namespace != "" {
		req.Header.Set("X-Vault-Namespace", c.namespace)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, false, ctx.Err()
		}
		return false, true, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return false, true, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return false, false, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var e struct {
			Errors []string `json:"errors"`
		}
		_ = json.Unmarshal(data, &e)
		retry = resp.StatusCode >= 500 || resp.StatusCode == http.StatusPreconditionFailed
		return false, retry, &APIError{Method: method, URL: u, Status: resp.StatusCode, Errors: e.Errors}
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil || len(env.Data) == 0 || string(env.Data) == "null" {
		return false, false, errors.New("corrupted response: no data object")
	}
	dec := json.NewDecoder(bytes.NewReader(env.Data))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return false, false, fmt.Errorf("corrupted response: %w", err)
	}
	return true, false, nil
}

// PublicKey reads the public half of the key's latest version: an
// ed25519.PublicKey for an ed25519 transit key, else what its PEM text holds.
func (c *Client) PublicKey(ctx context.Context) (crypto.PublicKey, error) {
	path := c.mount + "/keys/" + c.key
	var data struct {
		Keys          map[string]json.RawMessage `json:"keys"`
		LatestVersion json.Number                `json:"latest_version"`
	}
	found, err := c.call(ctx, http.MethodGet, path, nil, &data)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	if !found {
		return nil, fmt.Errorf("could not read data from transit key path: /%s", path)
	}
	raw, ok := data.Keys[string(data.LatestVersion)]
	if !ok || data.LatestVersion == "" {
		return nil, errors.New("failed to read transit key keys: corrupted response")
	}
	var key struct {
		Name      string `json:"name"`
		PublicKey string `json:"public_key"`
	}
	if err := json.Unmarshal(raw, &key); err != nil || key.PublicKey == "" {
		return nil, errors.New("failed to read transit key keys: corrupted response")
	}
	if key.Name == "ed25519" {
		// Vault gives an Ed25519 public key as the base64 of its raw bytes.
		pub, err := base64.StdEncoding.DecodeString(key.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("failed to base64 decode ed25519 public key: %w", err)
		}
		if len(pub) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("decoded ed25519 public key length is %d, should be %d", len(pub), ed25519.PublicKeySize)
		}
		return ed25519.PublicKey(pub), nil
	}
	block, _ := pem.Decode([]byte(key.PublicKey))
	if block == nil {
		return nil, errors.New("the transit key's public key is not PEM")
	}
	return x509.ParsePKIXPublicKey(block.Bytes)
}

// Sign signs message itself (not a digest of it, as Ed25519 keys sign) with the
// key's latest version.
func (c *Client) Sign(ctx context.Context, message []byte) ([]byte, error) {
	var data struct {
		Signature string `json:"signature"`
	}
	// The body sigstore's provider sends; key_version 0 is the latest version.
	body := map[string]any{
		"input":               base64.StdEncoding.Strict().EncodeToString(message),
		"prehashed":           false,
		"key_version":         "0",
		"signature_algorithm": "pkcs1v15",
	}
	found, err := c.call(ctx, http.MethodPut, c.mount+"/sign/"+c.key, body, &data)
	if err == nil && !found {
		err = &APIError{Method: http.MethodPut, URL: c.addr + "/v1/" + c.mount + "/sign/" + c.key, Status: http.StatusNotFound}
	}
	if err != nil {
		return nil, fmt.Errorf("transit: failed to sign payload: %w", err)
	}
	if data.Signature == "" {
		return nil, errors.New("transit: response corrupted in-transit")
	}
	return base64.StdEncoding.DecodeString(stripVersion(data.Signature))
}
