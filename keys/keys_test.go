package keys_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

func TestLoadPublicForms(t *testing.T) {
	dir := t.TempDir()
	pub := testkit.Public("host")
	pemBytes, err := keys.MarshalPublicPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "host-1.pub.pem"), pemBytes, 0o644)
	os.WriteFile(filepath.Join(dir, "plain.pem"), pemBytes, 0o644)

	ks, err := keys.LoadPublic(filepath.Join(dir, "host-1.pub.pem"))
	if err != nil || len(ks) != 1 || ks[0].KeyID != "host-1" || !ks[0].Key.Equal(pub) || ks[0].Source != keys.SourcePEMFile || ks[0].FromDir {
		t.Fatalf("PEM file: %+v %v", ks, err)
	}
	ks, err = keys.LoadPublic(filepath.Join(dir, "plain.pem"))
	if err != nil || ks[0].KeyID != "" {
		t.Fatalf("a file not named <keyId>.pub.pem has no id: %+v %v", ks, err)
	}
	ks, err = keys.LoadPublic(dir)
	if err != nil || len(ks) != 1 || ks[0].KeyID != "host-1" || !ks[0].FromDir {
		t.Fatalf("directory reads only *.pub.pem, each marked FromDir: %+v %v", ks, err)
	}
	raw := keys.PublicKey{Key: pub}.Base64URL()
	ks, err = keys.LoadPublic(raw)
	if err != nil || !ks[0].Key.Equal(pub) || ks[0].Source != keys.SourceRaw {
		t.Fatalf("raw key: %+v %v", ks, err)
	}
	if _, err := keys.LoadPublic(filepath.Join(dir, "absent.pem")); err == nil || !strings.Contains(err.Error(), "43-character base64url") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := keys.LoadPublic(t.TempDir()); err == nil {
		t.Error("empty directory accepted")
	}
}

func TestParsePublicPEMRefusals(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecPEM, _ := cryptoutils.MarshalPublicKeyToPEM(ec.Public())
	if _, err := keys.ParsePublicPEM(ecPEM); !errors.Is(err, keys.ErrNotEd25519) {
		t.Errorf("P-256 key: %v", err)
	}
	privPEM, _ := cryptoutils.MarshalPrivateKeyToPEM(testkit.Key("host"))
	_, err := keys.ParsePublicPEM(privPEM)
	if err == nil || !strings.Contains(err.Error(), "private key") {
		t.Errorf("private key given as public: %v", err)
	}
	if strings.Contains(err.Error(), string(privPEM[30:60])) {
		t.Error("error quotes key material")
	}
	if _, err := keys.ParsePublicPEM([]byte("not pem")); err == nil {
		t.Error("garbage accepted")
	}
	if _, err := keys.ParseRawPublic("short"); err == nil {
		t.Error("short raw key accepted")
	}
}

func TestLoadPrivatePEM(t *testing.T) {
	dir := t.TempDir()
	privPEM, _ := cryptoutils.MarshalPrivateKeyToPEM(testkit.Key("host"))
	path := filepath.Join(dir, "host.key.pem")
	os.WriteFile(path, privPEM, 0o600)
	priv, err := keys.LoadPrivatePEM(path)
	if err != nil || !priv.Equal(testkit.Key("host")) {
		t.Fatalf("%v", err)
	}
	os.Chmod(path, 0o640)
	var insecure *keys.InsecureKeyFileError
	if _, err := keys.LoadPrivatePEM(path); !errors.As(err, &insecure) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("group-readable key: %v", err)
	}
	os.Chmod(path, 0o600)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecPEM, _ := cryptoutils.MarshalPrivateKeyToPEM(ec)
	os.WriteFile(path, ecPEM, 0o600)
	if _, err := keys.LoadPrivatePEM(path); !errors.Is(err, keys.ErrNotEd25519) {
		t.Errorf("P-256 private key: %v", err)
	}
	os.WriteFile(path, []byte("-----BEGIN PRIVATE KEY-----\nZm9v\n-----END PRIVATE KEY-----\n"), 0o600)
	if _, err := keys.LoadPrivatePEM(path); err == nil || strings.Contains(err.Error(), "Zm9v") {
		t.Errorf("broken key: %v", err)
	}
}

func TestFromDiscovery(t *testing.T) {
	host := keys.PublicKey{Key: testkit.Public("host"), KeyID: "k1"}
	retired := keys.PublicKey{Key: testkit.Public("old"), KeyID: "k0", RetiredAt: "2026-01-01T00:00:00Z"}
	doc := testkit.Discovery("https://h.example", host.Entry(), retired.Entry())
	k, err := keys.FromDiscovery(&doc, "k1", keys.SourceSelfPublished, "doc")
	if err != nil || !k.Key.Equal(host.Key) || k.Source != keys.SourceSelfPublished {
		t.Fatalf("%+v %v", k, err)
	}
	k, err = keys.FromDiscovery(&doc, "k0", keys.SourceDiscovery, "doc")
	if err != nil || k.RetiredAt != "2026-01-01T00:00:00Z" {
		t.Fatalf("retired key must still resolve: %+v %v", k, err)
	}
	var notPub *keys.KeyNotPublishedError
	if _, err := keys.FromDiscovery(&doc, "k9", keys.SourceDiscovery, ""); !errors.As(err, &notPub) || strings.Join(notPub.Published, ",") != "k1,k0" {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := keys.FromDiscovery(nil, "k1", keys.SourceDiscovery, ""); !errors.Is(err, keys.ErrNoDocument) {
		t.Errorf("no document: %v", err)
	}
	empty := testkit.Discovery("https://h.example")
	if _, err := keys.FromDiscovery(&empty, "k1", keys.SourceDiscovery, ""); !errors.Is(err, keys.ErrNoSigningKeys) {
		t.Errorf("no keys: %v", err)
	}
	bad := host.Entry()
	bad.Alg = "rsa"
	badDoc := testkit.Discovery("https://h.example", bad)
	if _, err := keys.FromDiscovery(&badDoc, "k1", keys.SourceDiscovery, ""); err == nil || !strings.Contains(err.Error(), "not ed25519") {
		t.Errorf("rsa entry: %v", err)
	}
}

func TestSignatureEncoding(t *testing.T) {
	signer, _ := keys.NewSigner(testkit.Key("host"))
	msg := []byte(`{"witnessSha256":"x"}`)
	sig, err := keys.Sign(signer, msg)
	if err != nil || len(sig) != 86 {
		t.Fatalf("%q %v", sig, err)
	}
	pub := testkit.Public("host")
	if err := keys.Verify(pub, msg, sig); err != nil {
		t.Fatal(err)
	}
	// Node's decoder is lenient about padding; so is this one.
	if err := keys.Verify(pub, msg, sig+"=="); err != nil {
		t.Errorf("padded signature: %v", err)
	}
	if err := keys.Verify(pub, []byte("other"), sig); !errors.Is(err, keys.ErrBadSignature) {
		t.Errorf("other message: %v", err)
	}
	if err := keys.Verify(pub, msg, sig[:40]); err == nil || errors.Is(err, keys.ErrBadSignature) {
		t.Errorf("short signature must be a decoding error: %v", err)
	}
}

func TestSetSelect(t *testing.T) {
	a := keys.PublicKey{Key: testkit.Public("a"), KeyID: "a"}
	b := keys.PublicKey{Key: testkit.Public("b"), KeyID: "b"}
	if k, ok := (keys.Set{a, b}).Select("b"); !ok || k.KeyID != "b" {
		t.Error("by id")
	}
	if _, ok := (keys.Set{a, b}).Select("c"); ok {
		t.Error("no match among several")
	}
	if _, ok := (keys.Set{a}).Select("c"); ok {
		t.Error("Select chose a single key of another id: it matches by id only")
	}
	if _, ok := (keys.Set{{Key: testkit.Public("x")}}).Select(""); ok {
		t.Error("a key without id matched the empty id")
	}
	if _, ok := (keys.Set{}).Select("a"); ok {
		t.Error("empty set")
	}
}

// Lone is the reference's lone-key rule: one key given as a file or raw key, never
// a key read from a directory, never one of several.
func TestSetLone(t *testing.T) {
	a := keys.PublicKey{Key: testkit.Public("a"), KeyID: "a", Source: keys.SourcePEMFile}
	raw := keys.PublicKey{Key: testkit.Public("r"), Source: keys.SourceRaw}
	fromDir := a
	fromDir.FromDir = true
	for _, tc := range []struct {
		name string
		set  keys.Set
		ok   bool
	}{
		{"one PEM file", keys.Set{a}, true},
		{"one raw key", keys.Set{raw}, true},
		{"a directory holding one key", keys.Set{fromDir}, false},
		{"two keys", keys.Set{a, raw}, false},
		{"none", nil, false},
	} {
		if _, ok := tc.set.Lone(); ok != tc.ok {
			t.Errorf("%s: Lone %v, want %v", tc.name, ok, tc.ok)
		}
	}
}

func TestSignBundleKeyID(t *testing.T) {
	b := testkit.Unsigned("https://h.example")
	signer, _ := keys.NewSigner(testkit.Key("host"))
	if err := keys.SignBundle(b, signer, "other-id"); err == nil {
		t.Error("signed under a key id other than host.signingKeyId")
	}
	if err := keys.SignBundle(b, signer, "bad id!"); err == nil {
		t.Error("signed under a malformed key id")
	}
	if err := keys.SignBundle(b, signer, testkit.HostKeyID); err != nil || b.Signature.KeyID != testkit.HostKeyID {
		t.Fatal(err)
	}
	if over := b.Signature.Over; len(over) != 4 || over[0] != bundle.SignatureOver[0] {
		t.Errorf("over %v", over)
	}
}
