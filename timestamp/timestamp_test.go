package timestamp_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/timestamp"
)

func randomSig(t *testing.T) []byte {
	sig := make([]byte, 64)
	if _, err := rand.Read(sig); err != nil {
		t.Fatal(err)
	}
	return sig
}

func problemOf(err error) timestamp.Problem {
	var te *timestamp.Error
	if errors.As(err, &te) {
		return te.Problem
	}
	return ""
}

// startTSA starts OpenSSL's responder on loopback, or skips saying why it cannot.
func startTSA(t *testing.T, opts testkit.TSAOptions) *testkit.TSA {
	t.Helper()
	if why := testkit.OpenSSLMissing(); why != "" {
		t.Skip("SKIPPED: " + why)
	}
	tsa, err := testkit.StartTSA(filepath.Join(t.TempDir(), "tsa"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tsa.Close)
	return tsa
}

func trustOf(t *testing.T, files ...string) *timestamp.Trust {
	t.Helper()
	tr, err := timestamp.LoadTrust(files...)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A real RFC 3161 TSA (openssl ts): certcut's query is answered, its reply
// checks under the TSA's CA and under the TSA's own certificate, and openssl
// ts -verify agrees that the token stamps the signature.
func TestStampWithOpenSSL(t *testing.T) {
	tsa := startTSA(t, testkit.TSAOptions{})
	sig := randomSig(t)
	before := time.Now().Add(-2 * time.Second)
	st, err := timestamp.Stamp(context.Background(), tsa.URL, sig, trustOf(t, tsa.CACert), nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := st.Token
	if !tok.Trusted || tok.TSA != "CN=certcut test TSA" || tok.Anchor != "CN=certcut test TSA root" || tok.Accuracy != time.Second {
		t.Fatalf("token %+v", tok)
	}
	if tok.Time.Before(before) || tok.Time.After(time.Now().Add(2*time.Second)) {
		t.Errorf("token time %s is not now", tok.Time)
	}
	if out, err := tsa.VerifyWithOpenSSL(st.Reply, sig); err != nil || !strings.Contains(out, "Verification: OK") {
		t.Fatalf("openssl ts -verify: %v\n%s", err, out)
	}
	if _, err := tsa.VerifyWithOpenSSL(st.Reply, randomSig(t)); err == nil {
		t.Fatal("openssl ts -verify accepted the token for another signature")
	}
	// The TSA's own certificate is an anchor too.
	if tok, err := timestamp.Check(st.Reply, sig, trustOf(t, tsa.Cert)); err != nil || !tok.Trusted {
		t.Fatalf("under the TSA certificate: %v %+v", err, tok)
	}
	// Without a trusted certificate, the token is well formed but does not count.
	tok, err = timestamp.Check(st.Reply, sig, nil)
	if err != nil || tok.Trusted || tok.Untrusted != timestamp.NoTrust || tok.TSA != "CN=certcut test TSA" {
		t.Fatalf("untrusted check: %v %+v", err, tok)
	}
}

// Each way a token can be wrong is its own problem, found in the package's order.
func TestCheckProblems(t *testing.T) {
	tsa := startTSA(t, testkit.TSAOptions{})
	other := startTSA(t, testkit.TSAOptions{Name: "another TSA"})
	noUsage := startTSA(t, testkit.TSAOptions{Name: "no-usage TSA", WithoutTimeStamping: true})
	sig := randomSig(t)
	ctx := context.Background()
	good, err := timestamp.Stamp(ctx, tsa.URL, sig, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fromOther, err := timestamp.Stamp(ctx, other.URL, sig, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = timestamp.Stamp(ctx, noUsage.URL, sig, nil, nil)
	if problemOf(err) != timestamp.NoTimeStampingUsage {
		t.Fatalf("stamping with a TSA without the usage: %v", err)
	}
	noUsageReply, err := noUsage.Reply(mustQuery(t, sig))
	if err != nil {
		t.Fatal(err)
	}
	trust := trustOf(t, tsa.CACert)
	for name, tc := range map[string]struct {
		reply []byte
		sig   []byte
		trust *timestamp.Trust
		want  timestamp.Problem
	}{
		"another signature":           {good.Reply, randomSig(t), trust, timestamp.WrongImprint},
		"another signature, no trust": {good.Reply, randomSig(t), nil, timestamp.WrongImprint},
		"an untrusted TSA":            {fromOther.Reply, sig, trust, timestamp.Untrusted},
		"no time-stamping usage":      {noUsageReply, sig, trust, timestamp.NoTimeStampingUsage},
		"no usage, no trust":          {noUsageReply, sig, nil, timestamp.NoTimeStampingUsage},
		"truncated":                   {good.Reply[:len(good.Reply)/2], sig, trust, timestamp.Malformed},
		"truncated by one byte":       {good.Reply[:len(good.Reply)-1], sig, trust, timestamp.Malformed},
		"empty":                       {nil, sig, trust, timestamp.Malformed},
		"trailing data":               {append(append([]byte{}, good.Reply...), 0), sig, trust, timestamp.Malformed},
		"not DER":                     {[]byte("-----BEGIN TSR-----"), sig, trust, timestamp.Malformed},
	} {
		tok, err := timestamp.Check(tc.reply, tc.sig, tc.trust)
		if got := problemOf(err); got != tc.want {
			t.Errorf("%s: problem %q (%v, token %+v), want %q", name, got, err, tok, tc.want)
		}
	}
}

func mustQuery(t *testing.T, sig []byte) []byte {
	t.Helper()
	req, err := timestamp.NewRequest(sig)
	if err != nil {
		t.Fatal(err)
	}
	return req.DER
}

// A token that carries no certificate counts only when --tsa-cert holds the
// very certificate that signed it; its signature is checked then.
func TestBareToken(t *testing.T) {
	s := testkit.NewStamper("bare TSA", false)
	sig := randomSig(t)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	reply := s.Reply(sig, at, true)
	tok, err := timestamp.Check(reply, sig, nil)
	if err != nil || tok.Trusted || !strings.Contains(tok.Untrusted, "carries no certificate") {
		t.Fatalf("no trust: %v %+v", err, tok)
	}
	tok, err = timestamp.Check(reply, sig, timestamp.NewTrust(s.Cert))
	if err != nil || !tok.Trusted || !tok.Time.Equal(at) {
		t.Fatalf("under the TSA certificate: %v %+v", err, tok)
	}
	if _, err := timestamp.Check(reply, sig, timestamp.NewTrust(s.CA)); problemOf(err) != timestamp.Untrusted {
		t.Fatalf("under the CA alone: %v", err)
	}
	if _, err := timestamp.Check(reply, randomSig(t), timestamp.NewTrust(s.Cert)); problemOf(err) != timestamp.WrongImprint {
		t.Fatalf("another signature: %v", err)
	}
}

// The chain is judged at the token's time: a token dated outside the TSA
// certificate's validity does not count.
func TestChainAtTokenTime(t *testing.T) {
	s := testkit.NewStamper("dated TSA", false)
	sig := randomSig(t)
	trust := timestamp.NewTrust(s.CA)
	if tok, err := timestamp.Check(s.Reply(sig, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), false), sig, trust); err != nil || !tok.Trusted {
		t.Fatalf("inside validity: %v %+v", err, tok)
	}
	if _, err := timestamp.Check(s.Reply(sig, time.Date(2041, 1, 1, 0, 0, 0, 0, time.UTC), false), sig, trust); problemOf(err) == "" {
		t.Fatal("a token dated after the TSA certificate expired counted")
	}
}

// Every byte of a reply changed, one at a time: never a different trusted
// time, never a panic.
func TestEveryByteFlipped(t *testing.T) {
	s := testkit.NewStamper("flip TSA", false)
	sig := randomSig(t)
	at := time.Date(2026, 5, 5, 5, 5, 5, 0, time.UTC)
	reply := s.Reply(sig, at, false)
	trust := timestamp.NewTrust(s.CA)
	for i := range reply {
		mutated := append([]byte{}, reply...)
		mutated[i] ^= 0x55
		tok, err := timestamp.Check(mutated, sig, trust)
		if err == nil && (!tok.Time.Equal(at) || !tok.Trusted) {
			t.Fatalf("byte %d: a changed reply gave time %s (trusted %v)", i, tok.Time, tok.Trusted)
		}
	}
}

func TestLoadTrust(t *testing.T) {
	dir := t.TempDir()
	s := testkit.NewStamper("load TSA", false)
	both := filepath.Join(dir, "both.pem")
	os.WriteFile(both, append(testkit.PEM(s.CA), testkit.PEM(s.Cert)...), 0o644)
	if tr := trustOf(t, both); tr.Len() != 2 {
		t.Fatalf("%d certificates", tr.Len())
	}
	key := filepath.Join(dir, "key.pem")
	os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\nc2VjcmV0IGtleSBtYXRlcmlhbA==\n-----END PRIVATE KEY-----\n"), 0o600)
	empty := filepath.Join(dir, "empty.pem")
	os.WriteFile(empty, []byte("nothing here\n"), 0o644)
	for file, want := range map[string]string{key: "holds a private key, not a certificate", empty: "holds no PEM certificate", filepath.Join(dir, "absent.pem"): "no such file"} {
		_, err := timestamp.LoadTrust(file)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "c2VjcmV0") {
			t.Errorf("%s: %v", file, err)
		}
	}
}

func TestStampRefusals(t *testing.T) {
	for _, u := range []string{"ftp://tsa.example", "http://user:pw@tsa.example/", "http:///x", "::"} {
		if err := timestamp.CheckURL(u); err == nil {
			t.Errorf("%s accepted", u)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: the password is printed: %v", u, err)
		}
	}
	tsa := startTSA(t, testkit.TSAOptions{})
	if _, err := timestamp.Stamp(context.Background(), tsa.URL+"/", randomSig(t), nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := tsa.Queries(); n != 1 {
		t.Fatalf("%d queries", n)
	}
}

// BenchmarkCheck: what checking one token under a trusted CA costs verify.
func BenchmarkCheck(b *testing.B) {
	s := testkit.NewStamper("bench TSA", false)
	sig := make([]byte, 64)
	reply := s.Reply(sig, time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC), false)
	trust := timestamp.NewTrust(s.CA)
	for b.Loop() {
		if tok, err := timestamp.Check(reply, sig, trust); err != nil || !tok.Trusted {
			b.Fatal(err)
		}
	}
}

// Tokens are checked from many goroutines at once (the gate's loader judges
// bundles in parallel): under `go test -race` this fails if the parsers share
// unguarded state (digitorus/pkcs7's BER decoder does: berMu serialises it).
func TestCheckConcurrent(t *testing.T) {
	s := testkit.NewStamper("concurrent TSA", false)
	sig := randomSig(t)
	at := time.Date(2026, 5, 5, 5, 5, 5, 0, time.UTC)
	reply := s.Reply(sig, at, false)
	trust := timestamp.NewTrust(s.CA)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				tok, err := timestamp.Check(reply, sig, trust)
				if err == nil && (!tok.Trusted || !tok.Time.Equal(at)) {
					err = fmt.Errorf("token %+v", tok)
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
}
