package timestamp

import (
	"bytes"
	"crypto"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/digitorus/pkcs7"
)

// timeStampResp is RFC 3161 §2.4.2's TimeStampResp, read here rather than by
// the library so that grantedWithMods, which carries a token, is accepted.
type timeStampResp struct {
	Status struct {
		Status       int
		StatusString []string       `asn1:"optional,utf8"`
		FailInfo     asn1.BitString `asn1:"optional"`
	}
	TimeStampToken asn1.RawValue `asn1:"optional"`
}

// PKIStatus values that carry a token (RFC 3161 §2.4.2).
const (
	statusGranted         = 0
	statusGrantedWithMods = 1
)

var statusNames = map[int]string{
	0: "granted", 1: "grantedWithMods", 2: "rejection", 3: "waiting",
	4: "revocationWarning", 5: "revocationNotification",
}

// failInfoNames are PKIFailureInfo's bits, by number.
var failInfoNames = map[int]string{
	0: "badAlg", 2: "badRequest", 5: "badDataFormat", 14: "timeNotAvailable",
	15: "unacceptedPolicy", 16: "unacceptedExtension", 17: "addInfoNotAvailable", 25: "systemFailure",
}

// grantedToken returns the DER token of a reply whose status is granted or
// grantedWithMods, or a Malformed error saying what the TSA answered.
func grantedToken(reply []byte) ([]byte, error) {
	var resp timeStampResp
	rest, err := asn1.Unmarshal(reply, &resp)
	switch {
	case err != nil:
		return nil, fail(Malformed, "not an RFC 3161 time-stamp reply (a DER TimeStampResp): %v", err)
	case len(rest) > 0:
		return nil, fail(Malformed, "not an RFC 3161 time-stamp reply: %d bytes follow the TimeStampResp", len(rest))
	}
	st := resp.Status.Status
	if st != statusGranted && st != statusGrantedWithMods {
		name, ok := statusNames[st]
		if !ok {
			name = "unknown status"
		}
		detail := ""
		if len(resp.Status.StatusString) > 0 {
			detail += ": " + strconv.Quote(strings.Join(resp.Status.StatusString, "; "))
		}
		var bits []string
		for i := 0; i < resp.Status.FailInfo.BitLength; i++ {
			if resp.Status.FailInfo.At(i) == 1 {
				if n, ok := failInfoNames[i]; ok {
					bits = append(bits, n)
				} else {
					bits = append(bits, "failure bit "+strconv.Itoa(i))
				}
			}
		}
		if len(bits) > 0 {
			detail += " (failure: " + strings.Join(bits, ", ") + ")"
		}
		return nil, fail(Malformed, "the TSA did not grant a token: status %d, %s%s", st, name, detail)
	}
	if len(resp.TimeStampToken.FullBytes) == 0 {
		return nil, fail(Malformed, "the reply's status is %s but it carries no token", statusNames[st])
	}
	return resp.TimeStampToken.FullBytes, nil
}

// tstInfo is RFC 3161 §2.4.2's TSTInfo, read for what the library does not
// check: the version and the accuracy's range.
type tstInfo struct {
	Version        int
	Policy         asn1.ObjectIdentifier
	MessageImprint asn1.RawValue
	SerialNumber   *big.Int
	Time           time.Time `asn1:"generalized"`
	Accuracy       struct {
		Seconds *big.Int `asn1:"optional"`
		Millis  *big.Int `asn1:"optional,tag:0"`
		Micros  *big.Int `asn1:"optional,tag:1"`
	} `asn1:"optional"`
	Ordering   bool             `asn1:"optional,default:false"`
	Nonce      *big.Int         `asn1:"optional"`
	TSA        asn1.RawValue    `asn1:"optional,tag:0"`
	Extensions []pkix.Extension `asn1:"optional,tag:1"`
}

// MaxAccuracy bounds a token's stated accuracy: no TSA states a day, and a
// larger value would only widen the window the token allows.
const MaxAccuracy = 24 * time.Hour

// checkTSTInfo checks the TSTInfo's version (1) and accuracy (seconds ≥ 0,
// millis and micros 1..999, the sum at most MaxAccuracy) and returns the
// accuracy. A negative accuracy would move Latest before the token's time; one
// that overflows time.Duration wraps around to a negative one.
func checkTSTInfo(content []byte) (time.Duration, error) {
	var info tstInfo
	if _, err := asn1.Unmarshal(content, &info); err != nil {
		return 0, fail(Malformed, "the token's TSTInfo cannot be parsed: %v", err)
	}
	if info.Version != 1 {
		return 0, fail(Malformed, "the token's TSTInfo has version %d; RFC 3161 defines version 1 only", info.Version)
	}
	acc := info.Accuracy
	secs, millis, micros := acc.Seconds, acc.Millis, acc.Micros
	if secs != nil && (secs.Sign() < 0 || !secs.IsInt64() || secs.Int64() > int64(MaxAccuracy/time.Second)) {
		return 0, fail(Malformed, "the token's accuracy states %s seconds: accuracy is 0 to %d seconds", secs, int64(MaxAccuracy/time.Second))
	}
	for _, part := range []struct {
		v    *big.Int
		name string
	}{{millis, "millis"}, {micros, "micros"}} {
		if part.v != nil && (part.v.Cmp(big.NewInt(1)) < 0 || part.v.Cmp(big.NewInt(999)) > 0) {
			return 0, fail(Malformed, "the token's accuracy states %s %s: RFC 3161 allows 1 to 999", part.v, part.name)
		}
	}
	var d time.Duration
	if secs != nil {
		d += time.Duration(secs.Int64()) * time.Second
	}
	if millis != nil {
		d += time.Duration(millis.Int64()) * time.Millisecond
	}
	if micros != nil {
		d += time.Duration(micros.Int64()) * time.Microsecond
	}
	if d < 0 || d > MaxAccuracy+time.Second {
		return 0, fail(Malformed, "the token's accuracy %s is out of range", d)
	}
	return d, nil
}

// OIDs of the ESS signing-certificate attributes (RFC 2634 §5.4, RFC 5035).
var (
	oidSigningCertificate   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 12}
	oidSigningCertificateV2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}
)

type issuerSerial struct {
	Issuer asn1.RawValue
	Serial *big.Int
}

type essCertID struct {
	CertHash     []byte
	IssuerSerial issuerSerial `asn1:"optional"`
}

type essCertIDv2 struct {
	HashAlgorithm pkix.AlgorithmIdentifier `asn1:"optional"`
	CertHash      []byte
	IssuerSerial  issuerSerial `asn1:"optional"`
}

type signingCertificate struct {
	Certs    []essCertID
	Policies asn1.RawValue `asn1:"optional"`
}

type signingCertificateV2 struct {
	Certs    []essCertIDv2
	Policies asn1.RawValue `asn1:"optional"`
}

var hashByOID = map[string]crypto.Hash{
	"2.16.840.1.101.3.4.2.1": crypto.SHA256,
	"2.16.840.1.101.3.4.2.2": crypto.SHA384,
	"2.16.840.1.101.3.4.2.3": crypto.SHA512,
}

// checkSigningCertificate: RFC 3161 §2.4.1 requires the ESS
// SigningCertificate attribute (RFC 5816 allows SigningCertificateV2 in its
// place) among the token's signed attributes, and its first ESSCertID names
// the TSA's certificate, so that the signer cannot be swapped for another
// certificate of the same key. OpenSSL refuses a token without it, or whose
// first ESSCertID names another certificate.
func checkSigningCertificate(p7 *pkcs7.PKCS7, signer *x509.Certificate) error {
	var v1 signingCertificate
	var v2 signingCertificateV2
	err1 := p7.UnmarshalSignedAttribute(oidSigningCertificate, &v1)
	err2 := p7.UnmarshalSignedAttribute(oidSigningCertificateV2, &v2)
	var hash, want []byte
	var serial *big.Int
	var issuer []byte
	switch {
	case err2 == nil && len(v2.Certs) > 0:
		id := v2.Certs[0]
		h := crypto.SHA256 // the DEFAULT of ESSCertIDv2's hashAlgorithm
		if alg := id.HashAlgorithm.Algorithm; len(alg) > 0 {
			var ok bool
			if h, ok = hashByOID[alg.String()]; !ok {
				return fail(Malformed, "the token's signing-certificate attribute hashes the certificate with %s, which certcut does not accept (SHA-256, SHA-384, SHA-512)", alg)
			}
		}
		hash, want = id.CertHash, digest(h, signer.Raw)
		serial, issuer = id.IssuerSerial.Serial, id.IssuerSerial.Issuer.FullBytes
	case err1 == nil && len(v1.Certs) > 0:
		id := v1.Certs[0]
		sum := sha1.Sum(signer.Raw)
		hash, want = id.CertHash, sum[:]
		serial, issuer = id.IssuerSerial.Serial, id.IssuerSerial.Issuer.FullBytes
	default:
		return fail(Malformed, "the token has no ESS signing-certificate attribute naming the TSA's certificate (RFC 3161 §2.4.1): it is not a valid time-stamp token")
	}
	if !bytes.Equal(hash, want) {
		return fail(Malformed, "the token's signing-certificate attribute names another certificate than its signer %q: the signer was swapped", signer.Subject.String())
	}
	if serial != nil && serial.Cmp(signer.SerialNumber) != 0 {
		return fail(Malformed, "the token's signing-certificate attribute names serial %s, its signer %q has serial %s", serial, signer.Subject.String(), signer.SerialNumber)
	}
	if len(issuer) > 0 && !issuerNames(issuer, signer.RawIssuer) {
		return fail(Malformed, "the token's signing-certificate attribute names another issuer than its signer %q's", signer.Subject.String())
	}
	return nil
}

// issuerNames reports whether GeneralNames (DER) holds the directory name
// rawIssuer.
func issuerNames(generalNames, rawIssuer []byte) bool {
	var names []asn1.RawValue
	if _, err := asn1.Unmarshal(generalNames, &names); err != nil {
		return false
	}
	for _, n := range names {
		// directoryName [4] EXPLICIT Name
		if n.Class == asn1.ClassContextSpecific && n.Tag == 4 && bytes.Equal(n.Bytes, rawIssuer) {
			return true
		}
	}
	return false
}

func digest(h crypto.Hash, data []byte) []byte {
	switch h {
	case crypto.SHA384:
		s := sha512.Sum384(data)
		return s[:]
	case crypto.SHA512:
		s := sha512.Sum512(data)
		return s[:]
	default:
		s := sha256.Sum256(data)
		return s[:]
	}
}
