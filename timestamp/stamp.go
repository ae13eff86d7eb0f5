package timestamp

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	dts "github.com/digitorus/timestamp"
)

// Media types of RFC 3161 over HTTP (§3.4).
const (
	QueryType = "application/timestamp-query"
	ReplyType = "application/timestamp-reply"
)

// DefaultTimeout bounds one exchange with a TSA.
const DefaultTimeout = 30 * time.Second

// Request is a time-stamp query for one signature: the SHA-256 imprint of the
// signature's bytes, a fresh 128-bit nonce, and a request for the TSA's
// certificate in the token.
type Request struct {
	DER     []byte
	Nonce   *big.Int
	Imprint []byte
}

// NewRequest builds the query for a decoded signature.
func NewRequest(sig []byte) (*Request, error) {
	nonce, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	imprint := Imprint(sig)
	der, err := (&dts.Request{HashAlgorithm: crypto.SHA256, HashedMessage: imprint, Certificates: true, Nonce: nonce}).Marshal()
	if err != nil {
		return nil, err
	}
	return &Request{DER: der, Nonce: nonce, Imprint: imprint}, nil
}

// CheckURL refuses a TSA URL certcut will not ask: not http or https, no host,
// or credentials in it (they would be printed; give the TSA's plain URL).
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("the TSA URL must be http or https, not %q", u.Scheme)
	case u.Host == "":
		return fmt.Errorf("the TSA URL %q names no host", raw)
	case u.User != nil:
		return errors.New("the TSA URL carries credentials (user:password@), which certcut would print; give the TSA's URL without them")
	}
	return nil
}

// Stamped is a TSA's reply to one request, checked.
type Stamped struct {
	// Reply is the reply as received: what a .tsr file holds.
	Reply []byte
	Token *Token
}

// Stamp asks the TSA at tsaURL for a token over the decoded signature sig,
// with client (nil: a client that gives up after DefaultTimeout and follows no
// redirect). The reply must grant a token that passes Check against sig and
// trust (a nil trust checks everything but the chain) and echo the request's
// nonce; otherwise nothing is returned. Any 2xx answer is read as a reply
// (Sigstore's timestamp-authority answers 201 Created); a redirect or an error
// status is not. Errors name the URL.
func Stamp(ctx context.Context, tsaURL string, sig []byte, trust *Trust, client *http.Client) (*Stamped, error) {
	if err := CheckURL(tsaURL); err != nil {
		return nil, err
	}
	req, err := NewRequest(sig)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = &http.Client{
			Timeout:       DefaultTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, tsaURL, bytes.NewReader(req.DER))
	if err != nil {
		return nil, fmt.Errorf("TSA %s: %w", tsaURL, err)
	}
	hreq.Header.Set("Content-Type", QueryType)
	hreq.Header.Set("Accept", ReplyType)
	resp, err := client.Do(hreq)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
			return nil, fmt.Errorf("TSA %s did not answer in time: %w", tsaURL, err)
		}
		return nil, fmt.Errorf("TSA %s: %w", tsaURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		hint := "give the URL that answers time-stamp queries"
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			hint += " (a redirect is not followed)"
		}
		return nil, fmt.Errorf("TSA %s answered HTTP %s; %s", tsaURL, resp.Status, hint)
	}
	reply, err := limitedfile.ReadAll(resp.Body, "the reply of TSA "+tsaURL, MaxReplySize)
	if err != nil {
		return nil, err
	}
	tok, err := Check(reply, sig, trust)
	if err != nil {
		return nil, fmt.Errorf("TSA %s: %w (Content-Type %q)", tsaURL, err, resp.Header.Get("Content-Type"))
	}
	if tok.Nonce == nil || tok.Nonce.Cmp(req.Nonce) != 0 {
		return nil, fmt.Errorf("TSA %s: the reply does not echo the request's nonce: it was not made for this request", tsaURL)
	}
	return &Stamped{Reply: reply, Token: tok}, nil
}

// File is a token file read beside a bundle (or named explicitly).
type File struct {
	Path  string
	Reply []byte
}

// ReadFile reads a token file, capped at MaxReplySize.
func ReadFile(path string) (*File, error) {
	data, err := limitedfile.Read(path, MaxReplySize)
	if err != nil {
		return nil, err
	}
	return &File{Path: path, Reply: data}, nil
}

// ReadBeside reads the token file at path if there is one: (nil, nil) when
// nothing is there. Anything else that stops the read is an error.
func ReadBeside(path string) (*File, error) {
	f, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

// Role names which signature of a bundle a token stamps.
type Role string

// Roles.
const (
	HostRole     Role = "host"     // signature.sig, token FILE.tsr
	VerifierRole Role = "verifier" // verifierSignature.sig, token FILE.verifier.tsr
)

// FileFor names the token file of a role beside a bundle file.
func FileFor(bundlePath string, role Role) string {
	if role == VerifierRole {
		return VerifierFile(bundlePath)
	}
	return HostFile(bundlePath)
}

// SignatureOf returns the decoded signature a token of the role stamps, or an
// error saying the bundle has none.
func SignatureOf(b *bundle.Bundle, role Role) ([]byte, error) {
	sig, member := b.Signature, "signature"
	if role == VerifierRole {
		sig, member = b.VerifierSignature, "verifierSignature"
	}
	if sig == nil || sig.Sig == "" {
		return nil, fmt.Errorf("the bundle has no %s.sig to time-stamp", member)
	}
	raw, err := keys.DecodeSignature(sig.Sig)
	if err != nil {
		return nil, fmt.Errorf("%s.sig: %w", member, err)
	}
	return raw, nil
}
