package keys_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/sigstore/sigstore/pkg/signature/options"
)

func vaultOpts(v *testkit.Vault) keys.SignerOption {
	return keys.WithRPCOptions(options.WithRPCAuthOpts(options.RPCAuth{Address: v.URL, Token: testkit.VaultToken}))
}

// A hashivault:// key signs the attestation payload through Vault's transit sign
// API, and the signature verifies locally under the public key Vault reports.
func TestKMSSignerSignsEd25519(t *testing.T) {
	priv := testkit.Key("kms")
	v := testkit.NewVault(map[string]ed25519.PrivateKey{"openwop-bundle": priv})
	defer v.Close()

	s, err := keys.LoadSigner(context.Background(), "hashivault://openwop-bundle", vaultOpts(v))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Public.Equal(priv.Public()) {
		t.Fatal("public key from Vault differs from the key")
	}
	if s.PEM != nil {
		t.Error("a KMS signer has no PEM text")
	}
	b := testkit.Unsigned("https://host.example")
	if err := keys.SignBundle(b, s, testkit.HostKeyID); err != nil {
		t.Fatal(err)
	}
	payload, _ := bundle.Attestation(b.Raw)
	if err := keys.Verify(s.Public, payload, b.Signature.Sig); err != nil {
		t.Fatalf("KMS signature does not verify: %v", err)
	}
	// Ed25519 is deterministic: the KMS signature equals a local one.
	local, _ := keys.NewSigner(priv)
	want, _ := keys.Sign(local, payload)
	if b.Signature.Sig != want {
		t.Error("KMS signature differs from the local Ed25519 signature of the same payload")
	}
	if v.Signs.Load() != 1 {
		t.Errorf("Vault signed %d times, want 1", v.Signs.Load())
	}
}

func TestKMSSignerRefusals(t *testing.T) {
	v := testkit.NewVault(map[string]ed25519.PrivateKey{"good": testkit.Key("kms")})
	v.AddECDSA("p256")
	defer v.Close()
	ctx := context.Background()

	if _, err := keys.LoadSigner(ctx, "hashivault://p256", vaultOpts(v)); !errors.Is(err, keys.ErrNotEd25519) {
		t.Errorf("P-256 transit key: got %v, want ErrNotEd25519", err)
	}
	if _, err := keys.LoadSigner(ctx, "hashivault://missing", vaultOpts(v)); err == nil {
		t.Error("a missing transit key loaded")
	}
	bad := keys.WithRPCOptions(options.WithRPCAuthOpts(options.RPCAuth{Address: v.URL, Token: "wrong"}))
	if _, err := keys.LoadSigner(ctx, "hashivault://good", bad); err == nil {
		t.Error("a wrong Vault token was accepted")
	}
	if _, err := keys.LoadSigner(ctx, "nosuchkms://key"); err == nil || !strings.Contains(err.Error(), "no KMS provider") {
		t.Errorf("unknown KMS scheme: %v", err)
	}
}

func writeKey(t *testing.T, dir, name string, data []byte, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSignerFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	priv, err := keys.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	pemText, err := keys.MarshalPrivatePEM(priv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(pemText), "-----BEGIN PRIVATE KEY-----") {
		t.Fatalf("not PKCS#8 PEM: %.40s", pemText)
	}
	good := writeKey(t, dir, "k.key.pem", pemText, 0o600)
	s, err := keys.LoadSigner(context.Background(), good)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Public.Equal(priv.Public()) || string(s.PEM) != string(pemText) {
		t.Error("file signer: wrong key or PEM")
	}

	open := writeKey(t, dir, "open.key.pem", pemText, 0o644)
	var insecure *keys.InsecureKeyFileError
	if _, err := keys.LoadSigner(context.Background(), open); !errors.As(err, &insecure) {
		t.Errorf("group/other-readable key: got %v, want InsecureKeyFileError", err)
	}

	t.Setenv("CERTCUT_TEST_KEY", string(pemText))
	s, err = keys.LoadSigner(context.Background(), "env:CERTCUT_TEST_KEY")
	if err != nil || !s.Public.Equal(priv.Public()) {
		t.Errorf("env signer: %v", err)
	}
	if _, err := keys.LoadSigner(context.Background(), "env:CERTCUT_TEST_UNSET"); err == nil {
		t.Error("an unset variable loaded")
	}

	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecPath := writeKey(t, dir, "ec.key.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	if _, err := keys.LoadSigner(context.Background(), ecPath); !errors.Is(err, keys.ErrNotEd25519) {
		t.Errorf("P-256 PEM: got %v, want ErrNotEd25519", err)
	}
	if _, err := keys.LoadSigner(context.Background(), filepath.Join(dir, "missing.pem")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// No error quotes key material.
	garbage := writeKey(t, dir, "garbage.pem", []byte("-----BEGIN PRIVATE KEY-----\nc2VjcmV0LXNlY3JldA==\n-----END PRIVATE KEY-----\n"), 0o600)
	if _, err := keys.LoadSigner(context.Background(), garbage); err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Errorf("garbage key: %v", err)
	}
}

// A KMS that does not answer is given up on after the signer's timeout
// (keys.WithTimeout), both when the key is loaded (its public key) and when it
// signs.
func TestKMSTimeout(t *testing.T) {
	v := testkit.NewVault(map[string]ed25519.PrivateKey{"openwop-bundle": testkit.Key("kms")})
	defer v.Close()
	ctx := context.Background()
	timeout := keys.WithTimeout(300 * time.Millisecond)

	v.Hang(true, false)
	start := time.Now()
	_, err := keys.LoadSigner(ctx, "hashivault://openwop-bundle", vaultOpts(v), timeout)
	var te *keys.KMSTimeoutError
	if !errors.As(err, &te) || te.Timeout != 300*time.Millisecond || !strings.Contains(err.Error(), "did not answer within 300ms") || !strings.Contains(err.Error(), "--kms-timeout") {
		t.Errorf("hanging public key: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("gave up after %s", time.Since(start))
	}

	v.Hang(false, true)
	s, err := keys.LoadSigner(ctx, "hashivault://openwop-bundle", vaultOpts(v), timeout)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	err = keys.SignBundle(testkit.Unsigned("https://host.example"), s, testkit.HostKeyID)
	if !errors.As(err, &te) || te.Call != "signing" {
		t.Errorf("hanging signature: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("gave up after %s", time.Since(start))
	}

	// A signature under a cancelled context (options.WithContext) stops waiting at
	// once, well before the signer's timeout.
	s, err = keys.LoadSigner(ctx, "hashivault://openwop-bundle", vaultOpts(v))
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	err = keys.SignBundle(testkit.Unsigned("https://host.example"), s, testkit.HostKeyID, options.WithContext(cctx))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled signature: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("a cancelled signature returned after %s", time.Since(start))
	}
}

// Key files are read through limitedfile: a FIFO is refused at once, not waited on
// (a private key FIFO of mode 0600 passes the mode check first), and a file larger
// than limitedfile.MaxKey is refused.
func TestKeyFilesAreRegularAndCapped(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "k.pem")
	if err := testkit.Mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	done := make(chan [2]error, 1)
	go func() {
		_, err1 := keys.LoadSigner(context.Background(), fifo)
		_, err2 := keys.LoadPublicPEM(fifo)
		done <- [2]error{err1, err2}
	}()
	select {
	case errs := <-done:
		for _, err := range errs {
			if err == nil || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("FIFO: %v", err)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a key read waited on a FIFO")
	}
	big := filepath.Join(dir, "big.pem")
	os.WriteFile(big, []byte(strings.Repeat("A", 65<<10)), 0o600)
	for _, err := range []error{func() error { _, err := keys.LoadSigner(context.Background(), big); return err }(), func() error { _, err := keys.LoadPublicPEM(big); return err }()} {
		if err == nil || !strings.Contains(err.Error(), "larger than 64 KiB") {
			t.Errorf("65 KiB key: %v", err)
		}
	}
}
