package timestamp_test

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/asn1"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/timestamp"
	"github.com/digitorus/pkcs7"
	dts "github.com/digitorus/timestamp"
)

// Sigstore's timestamp-authority answers a query with 201 Created; any 2xx
// whose body is a granted reply is a reply. A redirect or an error is not.
func TestStampAnyTwoHundred(t *testing.T) {
	tsa := startTSA(t, testkit.TSAOptions{})
	status := http.StatusCreated
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query := make([]byte, r.ContentLength)
		if _, err := r.Body.Read(query); err != nil && int64(len(query)) != r.ContentLength {
			http.Error(w, err.Error(), 400)
			return
		}
		reply, err := tsa.Reply(query)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", timestamp.ReplyType)
		w.WriteHeader(status)
		w.Write(reply)
	}))
	t.Cleanup(srv.Close)
	sig := randomSig(t)
	for _, code := range []int{http.StatusCreated, http.StatusAccepted, http.StatusOK} {
		status = code
		st, err := timestamp.Stamp(context.Background(), srv.URL, sig, trustOf(t, tsa.CACert), nil)
		if err != nil || !st.Token.Trusted {
			t.Fatalf("HTTP %d: %v", code, err)
		}
	}
	status = http.StatusNotFound
	_, err := timestamp.Stamp(context.Background(), srv.URL, sig, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "404") || strings.Contains(err.Error(), "redirect") {
		t.Fatalf("HTTP 404: %v", err)
	}
	status = http.StatusFound
	_, err = timestamp.Stamp(context.Background(), srv.URL, sig, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("HTTP 302: %v", err)
	}
}

// RFC 3161 §2.4.2: grantedWithMods (1) carries a token as granted (0) does;
// any other status carries none, and the message names it.
func TestGrantedWithMods(t *testing.T) {
	s := testkit.NewStamper("mods TSA", false)
	sig := randomSig(t)
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	granted := s.Reply(sig, at, false)
	var resp struct {
		Status asn1.RawValue
		Token  asn1.RawValue
	}
	if _, err := asn1.Unmarshal(granted, &resp); err != nil {
		t.Fatal(err)
	}
	mods, err := testkit.WrapToken(resp.Token.FullBytes, 1)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := timestamp.Check(mods, sig, timestamp.NewTrust(s.CA))
	if err != nil || !tok.Trusted || !tok.Time.Equal(at) {
		t.Fatalf("grantedWithMods: %v %+v", err, tok)
	}
	for st, want := range map[int]string{2: "status 2, rejection", 3: "status 3, waiting", 9: "status 9, unknown status"} {
		bare, _ := testkit.WrapToken(nil, st)
		_, err := timestamp.Check(bare, sig, timestamp.NewTrust(s.CA))
		if problemOf(err) != timestamp.Malformed || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "()") {
			t.Errorf("status %d: %v", st, err)
		}
	}
	// A granted status without a token is no token.
	empty, _ := testkit.WrapToken(nil, 0)
	if _, err := timestamp.Check(empty, sig, nil); problemOf(err) != timestamp.Malformed {
		t.Errorf("granted without a token: %v", err)
	}
}

// tstInfo mirrors RFC 3161's TSTInfo so tests can state any field.
type tstInfo struct {
	Version        int
	Policy         asn1.ObjectIdentifier
	MessageImprint struct {
		Alg    struct{ Algorithm asn1.ObjectIdentifier }
		Digest []byte
	}
	Serial   *big.Int
	Time     time.Time `asn1:"generalized"`
	Accuracy struct {
		Seconds *big.Int `asn1:"optional"`
		Millis  *big.Int `asn1:"optional,tag:0"`
		Micros  *big.Int `asn1:"optional,tag:1"`
	}
}

func tstInfoDER(t *testing.T, sig []byte, at time.Time, version int, secs, millis *big.Int) []byte {
	t.Helper()
	sum := sha256.Sum256(sig)
	info := tstInfo{Version: version, Policy: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, Serial: big.NewInt(7), Time: at.UTC()}
	info.MessageImprint.Alg.Algorithm = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	info.MessageImprint.Digest = sum[:]
	info.Accuracy.Seconds, info.Accuracy.Millis = secs, millis
	der, err := asn1.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// A token's accuracy widens its time; a negative one, or one that overflows
// time.Duration and wraps around, would move the latest moment the signature
// existed into the past (a secs:-100000000 accuracy judged a key three years
// early). Such a token is malformed.
func TestAccuracyOutOfRange(t *testing.T) {
	s := testkit.NewStamper("accuracy TSA", false)
	sig := randomSig(t)
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	trust := timestamp.NewTrust(s.CA)
	good := s.SignTSTInfo(tstInfoDER(t, sig, at, 1, big.NewInt(1), big.NewInt(500)), s.Cert)
	tok, err := timestamp.Check(good, sig, trust)
	if err != nil || !tok.Trusted || tok.Accuracy != 1500*time.Millisecond || !tok.Latest().After(at) {
		t.Fatalf("a sound accuracy: %v %+v", err, tok)
	}
	for name, acc := range map[string][2]*big.Int{
		"negative seconds":       {big.NewInt(-100000000), nil},
		"seconds overflowing":    {big.NewInt(10000000000), nil},
		"negative millis":        {big.NewInt(1), big.NewInt(-999)},
		"millis of 1000 or more": {nil, big.NewInt(5000000)},
	} {
		reply := s.SignTSTInfo(tstInfoDER(t, sig, at, 1, acc[0], acc[1]), s.Cert)
		tok, err := timestamp.Check(reply, sig, trust)
		if problemOf(err) != timestamp.Malformed || !strings.Contains(err.Error(), "accuracy") {
			latest := "none"
			if tok != nil {
				latest = tok.Latest().String()
			}
			t.Errorf("%s: %v (latest %s)", name, err, latest)
		}
	}
}

// Defects `openssl ts -verify` refuses, made by OpenSSL itself, are refused as
// malformed: a token without the ESS signing-certificate attribute (signed
// with openssl cms), a TSTInfo of version 2, and a token signed under a twin
// certificate (same key, issuer and serial) whose ESS attribute names the twin
// while the trusted certificate is the other one.
func TestOpenSSLDefects(t *testing.T) {
	tsa := startTSA(t, testkit.TSAOptions{})
	sig := randomSig(t)
	good, err := tsa.Reply(mustQuery(t, sig))
	if err != nil {
		t.Fatal(err)
	}
	trust := trustOf(t, tsa.CACert)
	if tok, err := timestamp.Check(good, sig, trust); err != nil || !tok.Trusted {
		t.Fatalf("OpenSSL's own token: %v", err)
	}
	content := tstInfoOf(t, good)

	noESS, err := tsa.CMSToken(content)
	if err != nil {
		t.Fatal(err)
	}
	v2 := append([]byte{}, content...)
	i := strings.Index(string(v2), "\x02\x01\x01") // the version, first in the SEQUENCE
	if i < 0 || i > 4 {
		t.Fatalf("no version at the start of the TSTInfo: % x", v2[:8])
	}
	v2[i+2] = 2
	version2, err := tsa.CMSToken(v2)
	if err != nil {
		t.Fatal(err)
	}
	bareQuery, err := (&dts.Request{HashAlgorithm: crypto.SHA256, HashedMessage: timestamp.Imprint(sig), Certificates: false}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	twinToken, err := tsa.TwinReply(bareQuery)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := tsa.Twin()
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		reply   []byte
		trust   *timestamp.Trust
		extra   []string
		message string
	}{
		"no ESS attribute":  {noESS, trust, nil, "no ESS signing-certificate attribute"},
		"TSTInfo version 2": {version2, trust, nil, "version 2"},
		"ESS names a twin":  {twinToken, trustOf(t, tsa.Cert), []string{"-untrusted", tsa.Cert}, "names another certificate"},
	} {
		tok, err := timestamp.Check(tc.reply, sig, tc.trust)
		if problemOf(err) != timestamp.Malformed || !strings.Contains(err.Error(), tc.message) {
			t.Errorf("%s: %v %+v", name, err, tok)
		}
		if out, err := tsa.VerifyWithOpenSSL(tc.reply, sig, tc.extra...); err == nil {
			t.Errorf("%s: openssl ts -verify accepts it, so the test does not show a defect:\n%s", name, out)
		}
	}
	// The twin's token does verify under the twin, as OpenSSL agrees.
	if tok, err := timestamp.Check(twinToken, sig, trustOf(t, twin)); err != nil || !tok.Trusted {
		t.Errorf("the twin's token under the twin: %v", err)
	}
	if out, err := tsa.VerifyWithOpenSSL(twinToken, sig, "-untrusted", twin); err != nil {
		t.Errorf("openssl ts -verify of the twin's token under the twin: %v\n%s", err, out)
	}
}

// tstInfoOf returns the DER TSTInfo a reply's token signs.
func tstInfoOf(t *testing.T, reply []byte) []byte {
	t.Helper()
	var resp struct {
		Status asn1.RawValue
		Token  asn1.RawValue
	}
	if _, err := asn1.Unmarshal(reply, &resp); err != nil {
		t.Fatal(err)
	}
	p7, err := pkcs7.Parse(resp.Token.FullBytes)
	if err != nil {
		t.Fatal(err)
	}
	return p7.Content
}
