// Package timestamp gives certcut trusted time: RFC 3161 time-stamp tokens that
// say when a bundle's signature existed, without changing the bundle format.
//
// # What a token binds
//
// A bundle's generatedAt is not signed, so it cannot say when the bundle was
// signed. A Time-Stamp Authority (TSA) can: certcut asks it for a token whose
// message imprint is the SHA-256 of the decoded signature bytes (signature.sig,
// as Sigstore time-stamps signatures), and the TSA signs that imprint together
// with its own clock's time. The signature binds the signed payload, so the
// token shows that the payload was signed no later than the token's time (plus
// its stated accuracy). It says nothing about how much earlier.
//
// The token is kept beside the bundle, in the TSA's reply as received (a DER
// TimeStampResp): FILE.tsr for the host signature, FILE.verifier.tsr for an
// independent verifier's countersignature (HostFile, VerifierFile).
//
// # What Check decides
//
// Check reads a reply and decides, in this order, and stops at the first
// problem (an *Error naming it):
//
//   - malformed: the reply is not a DER TimeStampResp granting one token
//     (status granted or grantedWithMods), the token's CMS signature does not
//     verify under the certificate that signed it, it has other than one
//     signer, its TSTInfo is not version 1 (RFC 3161 §2.4.2), its accuracy is
//     negative, out of range or too large to add to a time, or its signed
//     attributes lack the ESS signing-certificate attribute naming the
//     certificate that signed it (RFC 3161 §2.4.1, RFC 5816: what
//     `openssl ts -verify` also requires);
//   - imprint: the token does not stamp SHA-256 of this signature (a token of
//     another signature, or another hash);
//   - usage: the signer's certificate lacks the time-stamping extended key
//     usage RFC 3161 §2.3 requires (id-kp-timeStamping, alone, critical);
//   - untrusted: given a Trust, the signer's certificate does not chain, at the
//     token's time and for time-stamping, to a certificate the Trust holds.
//
// With no Trust (nil or empty), nothing makes the time trustworthy: Check still
// makes the first three checks and returns a Token whose Trusted is false and
// whose Untrusted says why. A token counts only under a TSA certificate the
// caller names.
//
// Certificates are judged at the token's time, offline: certcut fetches no CRL
// or OCSP answer. Trusting a TSA certificate means trusting its key for the
// whole of the certificate's validity; stop naming it once that key is in doubt.
//
// The parsing (ASN.1, CMS) is github.com/digitorus/timestamp and
// github.com/digitorus/pkcs7; chains and key usages are crypto/x509's.
package timestamp

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/digitorus/pkcs7"
	dts "github.com/digitorus/timestamp"
)

// File suffixes: a bundle FILE's tokens sit beside it.
const (
	HostSuffix     = ".tsr"          // FILE.tsr: the token of signature.sig
	VerifierSuffix = ".verifier.tsr" // FILE.verifier.tsr: the token of verifierSignature.sig
)

// HostFile names the token file of a bundle's host signature: bundlePath + ".tsr".
func HostFile(bundlePath string) string { return bundlePath + HostSuffix }

// VerifierFile names the token file of a bundle's verifier signature:
// bundlePath + ".verifier.tsr".
func VerifierFile(bundlePath string) string { return bundlePath + VerifierSuffix }

// MaxReplySize bounds a reply: a token with its certificate chain is a few
// kilobytes.
const MaxReplySize = 256 << 10

// Imprint returns the message imprint certcut time-stamps for a signature: the
// SHA-256 of its decoded bytes (decode signature.sig first, keys.DecodeSignature).
func Imprint(sig []byte) []byte {
	sum := sha256.Sum256(sig)
	return sum[:]
}

// Problem names what is wrong with a token.
type Problem string

// Problems, in the order Check looks for them.
const (
	Malformed           Problem = "malformed"
	WrongImprint        Problem = "imprint"
	NoTimeStampingUsage Problem = "usage"
	Untrusted           Problem = "untrusted"
)

// Error is a token that fails a check.
type Error struct {
	Problem Problem
	Detail  string
}

func (e *Error) Error() string { return e.Detail }

func fail(p Problem, format string, args ...any) *Error {
	return &Error{Problem: p, Detail: fmt.Sprintf(format, args...)}
}

// Token is what a checked reply says.
type Token struct {
	// Time is the TSA's time (genTime), in UTC.
	Time time.Time
	// Accuracy is the TSA's stated accuracy; 0 when it states none.
	Accuracy time.Duration
	// TSA is the subject of the certificate that signed the token ("" when the
	// token carries no certificate and no Trust supplied one).
	TSA string
	// Serial is the token's serial number, in hex.
	Serial string
	// Policy is the TSA policy the token was issued under (an OID).
	Policy string
	// Nonce is the request's nonce, echoed (nil if none was sent).
	Nonce *big.Int
	// Trusted reports that the signer chains to a certificate of the Trust.
	Trusted bool
	// Anchor is the subject of the trusted certificate the chain ends at.
	Anchor string
	// Untrusted says, when Trusted is false, why the time does not count.
	Untrusted string
}

// Latest is the latest moment the token allows for its time: Time + Accuracy.
// The signature existed no later than this.
func (t *Token) Latest() time.Time { return t.Time.Add(t.Accuracy) }

// NoTrust is Token.Untrusted for a token checked without any trusted TSA
// certificate.
const NoTrust = "no TSA certificate is trusted: name the TSA's certificate (or its CA's) with --tsa-cert"

// berMu serialises the token parsers: digitorus/pkcs7's BER decoder, which
// both run, increments a package-level debugging counter (encodeIndent in
// ber.go) on every parse, so two parses at once are a data race (fixed in the
// maintained forks; the release that drops it needs Go 1.27). A token is
// parsed in microseconds, so a run over many bundles loses nothing that shows.
var berMu sync.Mutex

// parseToken parses a granted token (digitorus/timestamp) and its CMS
// signed data (digitorus/pkcs7), one parse at a time (berMu).
func parseToken(raw []byte) (*dts.Timestamp, *pkcs7.PKCS7, error) {
	berMu.Lock()
	defer berMu.Unlock()
	ts, err := dts.Parse(raw)
	if err != nil {
		return nil, nil, fail(Malformed, "the time-stamp token cannot be parsed or its signature does not verify: %v", err)
	}
	p7, err := pkcs7.Parse(ts.RawToken)
	if err != nil {
		return nil, nil, fail(Malformed, "the time-stamp token cannot be parsed: %v", err)
	}
	return ts, p7, nil
}

// Check reads a reply (a DER TimeStampResp) and checks it against the decoded
// signature it should stamp and, when trust is non-empty, the trusted TSA
// certificates; see the package documentation for the order. The error is an
// *Error. A nil or empty trust gives an untrusted Token when nothing else is
// wrong.
func Check(reply, sig []byte, trust *Trust) (tok *Token, err error) {
	defer func() {
		// The parsers are hostile-input code we do not own: a panic on a reply is
		// a malformed reply, not a crash of the verifier.
		if r := recover(); r != nil {
			tok, err = nil, fail(Malformed, "the time-stamp reply cannot be parsed (%v)", r)
		}
	}()
	if len(reply) == 0 {
		return nil, fail(Malformed, "the time-stamp reply is empty")
	}
	raw, err := grantedToken(reply)
	if err != nil {
		return nil, err
	}
	ts, p7, err := parseToken(raw)
	if err != nil {
		return nil, err
	}
	if n := len(p7.Signers); n != 1 {
		return nil, fail(Malformed, "the time-stamp token has %d signers; a TSA signs its token once", n)
	}
	accuracy, err := checkTSTInfo(p7.Content)
	if err != nil {
		return nil, err
	}
	tok = &Token{Time: ts.Time.UTC(), Accuracy: accuracy, Nonce: ts.Nonce, Policy: ts.Policy.String()}
	if ts.SerialNumber != nil {
		tok.Serial = hex.EncodeToString(ts.SerialNumber.Bytes())
	}
	signer := p7.GetOnlySigner()
	if signer == nil {
		// The token carries no certificate, so the library did not check its
		// signature: only a trusted certificate can stand in for it.
		if trust.Len() == 0 {
			tok.Untrusted = "the token carries no certificate, so its signature cannot be checked without --tsa-cert"
			return tok, checkImprint(ts, sig)
		}
		p7.Certificates = trust.certs
		if signer = p7.GetOnlySigner(); signer == nil {
			return nil, fail(Untrusted, "the token carries no certificate, and no --tsa-cert certificate signed it")
		}
		if err := p7.Verify(); err != nil {
			return nil, fail(Malformed, "the token's signature does not verify under the --tsa-cert certificate that names it: %v", err)
		}
	}
	tok.TSA = signer.Subject.String()
	if err := checkSigningCertificate(p7, signer); err != nil {
		return nil, err
	}
	if err := checkImprint(ts, sig); err != nil {
		return nil, err
	}
	if err := checkUsage(signer); err != nil {
		return nil, err
	}
	if trust.Len() == 0 {
		tok.Untrusted = NoTrust
		return tok, nil
	}
	chains, err := signer.Verify(x509.VerifyOptions{
		Roots:         trust.pool,
		Intermediates: pool(p7.Certificates),
		CurrentTime:   tok.Time,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
	})
	if err != nil {
		return nil, fail(Untrusted, "the token's signer %q does not lead to a trusted TSA certificate (%s) at the token's time %s: %v",
			tok.TSA, trust.describe(), tok.Time.Format(time.RFC3339), err)
	}
	chain := chains[0]
	tok.Trusted, tok.Anchor = true, chain[len(chain)-1].Subject.String()
	return tok, nil
}

func checkImprint(ts *dts.Timestamp, sig []byte) error {
	if ts.HashAlgorithm != crypto.SHA256 {
		return fail(WrongImprint, "the token stamps a %v digest; certcut stamps and accepts SHA-256 of the signature only", ts.HashAlgorithm)
	}
	want := Imprint(sig)
	if !bytes.Equal(ts.HashedMessage, want) {
		return fail(WrongImprint, "the token stamps SHA-256 %s, but this signature hashes to %s: it is the token of another signature",
			shortHex(ts.HashedMessage), shortHex(want))
	}
	return nil
}

// oidExtKeyUsage is the extended key usage extension (RFC 5280 §4.2.1.12).
var oidExtKeyUsage = asn1.ObjectIdentifier{2, 5, 29, 37}

// checkUsage: RFC 3161 §2.3, the TSA's certificate "MUST contain only one
// instance of the extended key usage field extension … with KeyPurposeID having
// value id-kp-timeStamping. This extension MUST be critical."
func checkUsage(c *x509.Certificate) error {
	i := slices.IndexFunc(c.Extensions, func(e pkix.Extension) bool { return e.Id.Equal(oidExtKeyUsage) })
	switch {
	case i < 0:
		return fail(NoTimeStampingUsage, "the token's signer %q has no extended key usage: a TSA certificate must have the time-stamping usage (id-kp-timeStamping, critical)", c.Subject.String())
	case len(c.ExtKeyUsage) != 1 || c.ExtKeyUsage[0] != x509.ExtKeyUsageTimeStamping || len(c.UnknownExtKeyUsage) > 0:
		return fail(NoTimeStampingUsage, "the token's signer %q has the extended key usages %s: a TSA certificate must have time-stamping alone", c.Subject.String(), usages(c))
	case !c.Extensions[i].Critical:
		return fail(NoTimeStampingUsage, "the token's signer %q has the time-stamping usage in a non-critical extension: RFC 3161 requires it critical", c.Subject.String())
	}
	return nil
}

func usages(c *x509.Certificate) string {
	names := map[x509.ExtKeyUsage]string{
		x509.ExtKeyUsageAny: "any", x509.ExtKeyUsageServerAuth: "serverAuth", x509.ExtKeyUsageClientAuth: "clientAuth",
		x509.ExtKeyUsageCodeSigning: "codeSigning", x509.ExtKeyUsageEmailProtection: "emailProtection",
		x509.ExtKeyUsageTimeStamping: "timeStamping", x509.ExtKeyUsageOCSPSigning: "OCSPSigning",
	}
	var out []string
	for _, u := range c.ExtKeyUsage {
		if n, ok := names[u]; ok {
			out = append(out, n)
		} else {
			out = append(out, fmt.Sprintf("usage %d", u))
		}
	}
	for _, oid := range c.UnknownExtKeyUsage {
		out = append(out, oid.String())
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, ", ")
}

func pool(certs []*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

func shortHex(b []byte) string {
	s := hex.EncodeToString(b)
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
