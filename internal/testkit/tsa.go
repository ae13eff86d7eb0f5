package testkit

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/digitorus/pkcs7"
	dts "github.com/digitorus/timestamp"
)

// OpenSSLMissing says why the test TSA cannot run here ("" when it can): it
// needs the openssl command (Debian: apt-get install openssl).
func OpenSSLMissing() string {
	if _, err := exec.LookPath("openssl"); err != nil {
		return "openssl is not installed (apt-get install openssl): the test Time-Stamp Authority is OpenSSL's `openssl ts`"
	}
	return ""
}

// TSAOptions shape a test TSA.
type TSAOptions struct {
	// Name is the common name of the TSA's certificate ("certcut test TSA" by
	// default); its CA is "<Name> root".
	Name string
	// WithoutTimeStamping issues the TSA's certificate without the
	// time-stamping extended key usage. OpenSSL refuses to sign with such a
	// certificate (as it should), so its replies are made by the responder of
	// github.com/digitorus/timestamp instead, with the same keys.
	WithoutTimeStamping bool
	// At, when set, fixes the time of every token; OpenSSL has no such option,
	// so replies are then made by the library's responder too.
	At time.Time
}

// TSA is a Time-Stamp Authority for tests: a CA and a TSA certificate made with
// openssl, and OpenSSL's RFC 3161 responder (`openssl ts -reply`) answering
// application/timestamp-query POSTs on a loopback HTTP server. Its keys are
// made fresh in Dir for each TSA: test use only.
type TSA struct {
	// URL is where it answers.
	URL string
	// CACert is the PEM file of its CA: the certificate a caller trusts with
	// --tsa-cert. Cert is the TSA's own certificate (PEM), which also works as
	// an anchor.
	CACert, Cert string
	Dir          string

	opts TSAOptions
	srv  *httptest.Server
	mu   sync.Mutex
	n    int
}

// NewTSA makes the TSA's CA, key and certificate under dir (created) with
// openssl. It does not serve; Start does.
func NewTSA(dir string, opts TSAOptions) (*TSA, error) {
	if why := OpenSSLMissing(); why != "" {
		return nil, errors.New(why)
	}
	if opts.Name == "" {
		opts.Name = "certcut test TSA"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	t := &TSA{Dir: dir, CACert: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "tsa.pem"), opts: opts}
	usage := "extendedKeyUsage = critical, timeStamping\n"
	if opts.WithoutTimeStamping {
		usage = ""
	}
	files := map[string]string{
		"ext.cnf": "[tsa]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\n" + usage +
			"subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\n",
		"ts.cnf": "[ tsa ]\ndefault_tsa = tsa_config\n[ tsa_config ]\ndir = " + dir + "\nserial = $dir/serial\n" +
			"crypto_device = builtin\nsigner_cert = $dir/tsa.pem\ncerts = $dir/ca.pem\nsigner_key = $dir/tsa.key\n" +
			"signer_digest = sha256\ndefault_policy = 1.3.6.1.4.1.99999.1\ndigests = sha256, sha384, sha512\n" +
			"accuracy = secs:1\nclock_precision_digits = 0\nordering = no\ntsa_name = yes\n" +
			"ess_cert_id_chain = no\ness_cert_id_alg = sha256\n",
		"serial": "01\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return nil, err
		}
	}
	ec := []string{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"}
	steps := [][]string{
		append(append([]string{"req", "-x509"}, ec...), "-keyout", "ca.key", "-out", "ca.pem", "-days", "3650",
			"-subj", "/CN="+opts.Name+" root", "-addext", "basicConstraints=critical,CA:TRUE",
			"-addext", "keyUsage=critical,keyCertSign,cRLSign"),
		append(append([]string{"req", "-new"}, ec...), "-keyout", "tsa.key", "-out", "tsa.csr", "-subj", "/CN="+opts.Name),
		{"x509", "-req", "-in", "tsa.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2", "-days", "3650",
			"-out", "tsa.pem", "-extfile", "ext.cnf", "-extensions", "tsa"},
	}
	for _, args := range steps {
		if err := t.openssl(nil, args...); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *TSA) openssl(stdin io.Reader, args ...string) error {
	cmd := exec.Command("openssl", args...)
	cmd.Dir = t.Dir
	cmd.Stdin = stdin
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// StartTSA makes a TSA under dir and serves it on loopback.
func StartTSA(dir string, opts TSAOptions) (*TSA, error) {
	t, err := NewTSA(dir, opts)
	if err != nil {
		return nil, err
	}
	t.Start()
	return t, nil
}

// Start serves the TSA on a loopback address (URL).
func (t *TSA) Start() {
	t.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/timestamp-query" {
			http.Error(w, "POST an application/timestamp-query", http.StatusBadRequest)
			return
		}
		query, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply, err := t.Reply(query)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/timestamp-reply")
		w.Write(reply)
	}))
	t.URL = t.srv.URL
}

// Close stops serving.
func (t *TSA) Close() {
	if t.srv != nil {
		t.srv.Close()
	}
}

// Queries is the number of queries answered.
func (t *TSA) Queries() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// Reply answers one DER time-stamp query: with `openssl ts -reply`, or with the
// library's responder when the options need it (WithoutTimeStamping, At).
func (t *TSA) Reply(query []byte) ([]byte, error) {
	t.mu.Lock() // openssl ts -reply updates its serial file
	defer t.mu.Unlock()
	t.n++
	if t.opts.WithoutTimeStamping || !t.opts.At.IsZero() {
		return t.libraryReply(query)
	}
	in := filepath.Join(t.Dir, "query.tsq")
	out := filepath.Join(t.Dir, "reply.tsr")
	if err := os.WriteFile(in, query, 0o600); err != nil {
		return nil, err
	}
	if err := t.openssl(nil, "ts", "-reply", "-config", filepath.Join(t.Dir, "ts.cnf"), "-queryfile", in, "-out", out); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

func (t *TSA) libraryReply(query []byte) ([]byte, error) {
	req, err := dts.ParseRequest(query)
	if err != nil {
		return nil, err
	}
	cert, err := readCert(t.Cert)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(filepath.Join(t.Dir, "tsa.key"))
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil, errors.New("tsa.key holds no PEM block")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	at := t.opts.At
	if at.IsZero() {
		at = time.Now()
	}
	ts := dts.Timestamp{
		HashAlgorithm: req.HashAlgorithm, HashedMessage: req.HashedMessage, Time: at.UTC().Truncate(time.Second),
		Accuracy: time.Second, Nonce: req.Nonce, Policy: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1},
		AddTSACertificate: req.Certificates,
	}
	return ts.CreateResponseWithOpts(cert, key.(crypto.Signer), crypto.SHA256)
}

func readCert(path string) (*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM block", path)
	}
	return x509.ParseCertificate(block.Bytes)
}

// VerifyWithOpenSSL cross-checks a reply with `openssl ts -verify`: that it
// stamps the SHA-256 of sig and chains to the CA. It returns openssl's output.
// Extra arguments go to openssl ts -verify (e.g. "-untrusted", certFile for a
// token that carries no certificate).
func (t *TSA) VerifyWithOpenSSL(reply, sig []byte, extra ...string) (string, error) {
	dir, err := os.MkdirTemp(t.Dir, "verify")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	in, data := filepath.Join(dir, "reply.tsr"), filepath.Join(dir, "sig.bin")
	if err := os.WriteFile(in, reply, 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(data, sig, 0o600); err != nil {
		return "", err
	}
	cmd := exec.Command("openssl", append([]string{"ts", "-verify", "-in", in, "-data", data, "-CAfile", t.CACert}, extra...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// oidTSTInfo is id-ct-TSTInfo, the content type of a time-stamp token.
const oidTSTInfo = "1.2.840.113549.1.9.16.1.4"

// CMSToken signs content (a DER TSTInfo) as a time-stamp token with OpenSSL's
// general CMS signer (`openssl cms -sign`) and the TSA's key and certificate,
// and wraps it in a granted reply. Unlike `openssl ts -reply`, it adds no ESS
// signing-certificate attribute and signs whatever TSTInfo it is given: the
// defective tokens tests need.
func (t *TSA) CMSToken(content []byte) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	in, out := filepath.Join(t.Dir, "tstinfo.der"), filepath.Join(t.Dir, "cms.der")
	if err := os.WriteFile(in, content, 0o600); err != nil {
		return nil, err
	}
	if err := t.openssl(nil, "cms", "-sign", "-binary", "-nodetach", "-outform", "DER", "-in", in, "-out", out,
		"-econtent_type", oidTSTInfo, "-signer", t.Cert, "-inkey", filepath.Join(t.Dir, "tsa.key"), "-md", "sha256",
		"-nosmimecap"); err != nil {
		return nil, err
	}
	token, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return WrapToken(token, 0)
}

// Twin is a second certificate for the TSA's key, issued by the same CA under
// the same serial number with another subject ("<Name> twin"): the signer
// identifier of a token cannot tell the two apart, only the token's ESS
// signing-certificate attribute can.
func (t *TSA) Twin() (string, error) {
	twin := filepath.Join(t.Dir, "twin.pem")
	if _, err := os.Stat(twin); err == nil {
		return twin, nil
	}
	if err := t.openssl(nil, "req", "-new", "-key", "tsa.key", "-out", "twin.csr", "-subj", "/CN="+t.opts.Name+" twin"); err != nil {
		return "", err
	}
	if err := t.openssl(nil, "x509", "-req", "-in", "twin.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2",
		"-days", "3650", "-out", "twin.pem", "-extfile", "ext.cnf", "-extensions", "tsa"); err != nil {
		return "", err
	}
	cnf, err := os.ReadFile(filepath.Join(t.Dir, "ts.cnf"))
	if err != nil {
		return "", err
	}
	cnf = []byte(strings.Replace(string(cnf), "signer_cert = $dir/tsa.pem", "signer_cert = $dir/twin.pem", 1))
	if err := os.WriteFile(filepath.Join(t.Dir, "twin.cnf"), cnf, 0o600); err != nil {
		return "", err
	}
	return twin, nil
}

// TwinReply answers a query with `openssl ts -reply` signing as the Twin
// certificate: a well-formed token whose ESS attribute names the twin.
func (t *TSA) TwinReply(query []byte) ([]byte, error) {
	if _, err := t.Twin(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	in, out := filepath.Join(t.Dir, "twin.tsq"), filepath.Join(t.Dir, "twin.tsr")
	if err := os.WriteFile(in, query, 0o600); err != nil {
		return nil, err
	}
	if err := t.openssl(nil, "ts", "-reply", "-config", filepath.Join(t.Dir, "twin.cnf"), "-queryfile", in, "-out", out); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

// WrapToken wraps a DER time-stamp token in a TimeStampResp with the PKIStatus
// status (0 granted, 1 grantedWithMods, 2 rejection, …); a nil token gives a
// reply without one.
func WrapToken(token []byte, status int) ([]byte, error) {
	type statusInfo struct{ Status int }
	if token == nil {
		return asn1.Marshal(struct{ Status statusInfo }{statusInfo{status}})
	}
	return asn1.Marshal(struct {
		Status statusInfo
		Token  asn1.RawValue
	}{statusInfo{status}, asn1.RawValue{FullBytes: token}})
}

// SignTSTInfo signs content (a DER TSTInfo, any fields the test wants) as a
// time-stamp token carrying the TSA certificate, with an ESS
// signing-certificate-v2 attribute naming essFor (nil: no such attribute), and
// wraps it in a granted reply.
func (s *Stamper) SignTSTInfo(content []byte, essFor *x509.Certificate) []byte {
	sd, err := pkcs7.NewSignedData(content)
	if err != nil {
		panic(err)
	}
	sd.SetDigestAlgorithm(pkcs7.OIDDigestAlgorithmSHA256)
	sd.SetContentType(asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 4})
	var cfg pkcs7.SignerInfoConfig
	if essFor != nil {
		sum := sha256.Sum256(essFor.Raw)
		v2, err := asn1.Marshal(struct {
			Certs []struct{ CertHash []byte }
		}{[]struct{ CertHash []byte }{{sum[:]}}})
		if err != nil {
			panic(err)
		}
		cfg.ExtraSignedAttributes = []pkcs7.Attribute{{Type: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}, Value: asn1.RawValue{FullBytes: v2}}}
	}
	if err := sd.AddSigner(s.Cert, s.key, cfg); err != nil {
		panic(err)
	}
	token, err := sd.Finish()
	if err != nil {
		panic(err)
	}
	reply, err := WrapToken(token, 0)
	if err != nil {
		panic(err)
	}
	return reply
}

// Stamper makes time-stamp replies in Go, at any time the test names, with the
// responder of github.com/digitorus/timestamp: a CA and a TSA certificate made
// with crypto/x509 (valid 2020–2040), so that tests of trusted time need no
// openssl and no clock. TSA uses OpenSSL's own responder instead.
type Stamper struct {
	CA, Cert *x509.Certificate
	key      crypto.Signer
}

// NewStamper makes a CA named name+" root" and a TSA certificate named name,
// with the time-stamping usage (critical) unless withoutTimeStamping.
func NewStamper(name string, withoutTimeStamping bool) *Stamper {
	caKey := ecdsaKey(name + " root")
	tsaKey := ecdsaKey(name)
	from, to := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name + " root"}, NotBefore: from, NotAfter: to,
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(zeroReader{}, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		panic(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name}, NotBefore: from, NotAfter: to,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if !withoutTimeStamping {
		// crypto/x509 marks the usage non-critical; RFC 3161 wants it critical.
		val, _ := asn1.Marshal([]asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 8}})
		tmpl.ExtraExtensions = []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: true, Value: val}}
	}
	der, err := x509.CreateCertificate(zeroReader{}, tmpl, ca, tsaKey.Public(), caKey)
	if err != nil {
		panic(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &Stamper{CA: ca, Cert: cert, key: tsaKey}
}

// Reply returns a granted reply stamping SHA-256 of sig at the time at, with the
// TSA's certificate in the token unless bare.
func (s *Stamper) Reply(sig []byte, at time.Time, bare bool) []byte {
	sum := sha256.Sum256(sig)
	ts := dts.Timestamp{
		HashAlgorithm: crypto.SHA256, HashedMessage: sum[:], Time: at.UTC(), Accuracy: time.Second,
		Nonce: big.NewInt(42), Policy: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, AddTSACertificate: !bare,
	}
	out, err := ts.CreateResponseWithOpts(s.Cert, s.key, crypto.SHA256)
	if err != nil {
		panic(err)
	}
	return out
}

// PEM returns a certificate as PEM text.
func PEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// ecdsaKey derives a P-256 key from a public name: test use only.
func ecdsaKey(name string) *ecdsa.PrivateKey {
	seed := sha256.Sum256([]byte("certcut test TSA key, never for real use: " + name))
	d := new(big.Int).SetBytes(seed[:])
	n := elliptic.P256().Params().N
	d.Mod(d, new(big.Int).Sub(n, big.NewInt(1)))
	d.Add(d, big.NewInt(1))
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d.FillBytes(make([]byte, 32)))
	if err != nil {
		panic(err)
	}
	return k
}

// zeroReader is a deterministic "random" source for test certificates.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
