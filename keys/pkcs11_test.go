package keys_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
)

// The user PIN of the test token: distinctive, so a test can tell it never
// reaches an error, a reference or a bundle.
const tokenPIN = "pin-4d7f1a9c"

var token struct {
	once sync.Once
	hsm  *testkit.SoftHSM
	dir  string
	err  error
}

// softHSM returns the package's SoftHSM token, made once: a token "certcut" with
// an Ed25519 key "host-ed" (id 01), a second one "verifier-ed" (02), an RSA key
// "host-rsa" (03) and a P-256 key "host-p256" (04), all made with pkcs11-tool. It
// skips, saying why, where SoftHSM or OpenSC is not installed or this build has
// no cgo. SOFTHSM2_CONF is set for the whole test binary: the module reads it
// once per C_Initialize.
func softHSM(t testing.TB) *testkit.SoftHSM {
	t.Helper()
	if !keys.PKCS11Available {
		t.Skip("SKIPPING token tests: this test binary was built without cgo, and PKCS#11 needs the cgo build")
	}
	token.once.Do(func() {
		if _, token.err = testkit.SoftHSMModule(); token.err != nil {
			return
		}
		if token.dir, token.err = os.MkdirTemp("", "certcut-softhsm-"); token.err != nil {
			return
		}
		h, err := testkit.NewSoftHSM(token.dir, "certcut", tokenPIN)
		if err != nil {
			token.err = err
			return
		}
		for _, k := range []struct{ typ, label, id string }{
			{"EC:edwards25519", "host-ed", "01"},
			{"EC:edwards25519", "verifier-ed", "02"},
			{"rsa:2048", "host-rsa", "03"},
			{"EC:prime256v1", "host-p256", "04"},
		} {
			if err := h.GenerateKey(k.typ, k.label, k.id); err != nil {
				token.err = err
				return
			}
		}
		os.Setenv("SOFTHSM2_CONF", h.Conf)
		token.hsm = h
	})
	if token.hsm == nil {
		if token.err != nil && strings.Contains(token.err.Error(), "not installed") {
			t.Skipf("SKIPPING token tests: %v", token.err)
		}
		t.Fatalf("setting up SoftHSM: %v", token.err)
	}
	return token.hsm
}

func TestMain(m *testing.M) {
	code := m.Run()
	if token.dir != "" {
		os.RemoveAll(token.dir)
	}
	os.Exit(code)
}

// A key generated on the token by pkcs11-tool signs a bundle through CKM_EDDSA,
// and the signature verifies under the public key pkcs11-tool reads back: the
// signer is pure Ed25519 and its public key is the token's.
func TestPKCS11SignsEd25519(t *testing.T) {
	h := softHSM(t)
	s, err := keys.LoadSigner(context.Background(), h.URI("host-ed"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pemText, err := h.PublicPEM("host-ed")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := keys.ParsePublicPEM(pemText)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Public.Equal(pub) {
		t.Fatal("the public key certcut read from the token differs from the one pkcs11-tool reads")
	}
	if s.PEM != nil {
		t.Error("a token signer has no PEM text")
	}
	b := testkit.Unsigned("https://host.example")
	if err := keys.SignBundle(b, s, testkit.HostKeyID); err != nil {
		t.Fatal(err)
	}
	payload, _ := bundle.Attestation(b.Raw)
	if err := keys.Verify(pub, payload, b.Signature.Sig); err != nil {
		t.Fatalf("the token's signature does not verify under pkcs11-tool's public key: %v", err)
	}
	if err := keys.CheckSigner(s); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pkcs11:token=certcut;object=host-ed?module-path=%s&pin-source=%s", h.Module, h.PINFile)
	if s.Ref != want {
		t.Errorf("Ref = %q, want %q", s.Ref, want)
	}
}

// The same key by id, with the PIN as pin-value: the reference keeps no PIN.
func TestPKCS11ByIDWithPINValue(t *testing.T) {
	h := softHSM(t)
	s, err := keys.LoadSigner(context.Background(), "pkcs11:token=certcut;id=%01?module-path="+h.Module+"&pin-value="+tokenPIN)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	byLabel, err := keys.LoadSigner(context.Background(), h.URI("host-ed"))
	if err != nil {
		t.Fatal(err)
	}
	defer byLabel.Close()
	if !s.Public.Equal(byLabel.Public) {
		t.Error("id=%01 and object=host-ed name different keys")
	}
	if strings.Contains(s.Ref, tokenPIN) || strings.Contains(s.Ref, "pin-value") {
		t.Errorf("Ref keeps the PIN: %q", s.Ref)
	}
}

// Host and verifier keys on one token, loaded side by side in one process (as
// mint --key … --verifier-key … does), both sign; closing one leaves the other
// working.
func TestPKCS11TwoKeysOneToken(t *testing.T) {
	h := softHSM(t)
	ctx := context.Background()
	host, err := keys.LoadSigner(ctx, h.URI("host-ed"))
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := keys.LoadSigner(ctx, h.URI("verifier-ed"))
	if err != nil {
		t.Fatal(err)
	}
	if host.Public.Equal(verifier.Public) {
		t.Fatal("two keys, one public key")
	}
	if err := host.Close(); err != nil {
		t.Fatal(err)
	}
	if err := host.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	if err := keys.CheckSigner(verifier); err != nil {
		t.Fatalf("the verifier key stopped signing when the host key closed: %v", err)
	}
	verifier.Close()
}

// Each way a token key can be wrong is refused with its own error, and no error
// quotes the PIN.
func TestPKCS11Refusals(t *testing.T) {
	h := softHSM(t)
	dir := t.TempDir()
	wrongPIN := filepath.Join(dir, "wrong-pin")
	os.WriteFile(wrongPIN, []byte("pin-00000000\n"), 0o600)
	notModule := filepath.Join(dir, "module.so")
	os.WriteFile(notModule, []byte("not a shared library"), 0o600)
	noPIN := "pkcs11:token=certcut;object=host-ed?module-path=" + h.Module
	for _, c := range []struct {
		name, uri string
		want      error
		says      string
	}{
		{"wrong PIN", "pkcs11:token=certcut;object=host-ed?module-path=" + h.Module + "&pin-source=" + wrongPIN, keys.ErrPINIncorrect, "CKR_PIN_INCORRECT"},
		{"wrong PIN value", "pkcs11:token=certcut;object=host-ed?module-path=" + h.Module + "&pin-value=" + "pin-00000000", keys.ErrPINIncorrect, "refused the PIN"},
		{"wrong object", h.URI("nope"), keys.ErrNoTokenKey, `none with object="nope" on token "certcut" (its private keys: "host-ed", "host-p256", "host-rsa", "verifier-ed")`},
		{"wrong id", "pkcs11:token=certcut;id=%09?module-path=" + h.Module + "&pin-source=" + h.PINFile, keys.ErrNoTokenKey, "id=09"},
		{"RSA key", h.URI("host-rsa"), keys.ErrNotEd25519, "an RSA key (CKK_RSA)"},
		{"P-256 key", h.URI("host-p256"), keys.ErrNotEd25519, "an ECDSA key (CKK_EC"},
		{"missing module", "pkcs11:token=certcut;object=host-ed?module-path=/nonexistent/libsofthsm2.so&pin-source=" + h.PINFile, keys.ErrPKCS11Module, "no such file"},
		{"not a module", "pkcs11:token=certcut;object=host-ed?module-path=" + notModule + "&pin-source=" + h.PINFile, keys.ErrPKCS11Module, "is not a PKCS#11 module"},
		{"no module", "pkcs11:token=certcut;object=host-ed", keys.ErrPKCS11Module, "names no module"},
		{"wrong token", "pkcs11:token=elsewhere;object=host-ed?module-path=" + h.Module + "&pin-source=" + h.PINFile, keys.ErrNoToken, `"certcut" (slot-id=`},
		{"no PIN", noPIN, keys.ErrPINNeeded, "only after a login"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := keys.LoadSigner(context.Background(), c.uri)
			if err == nil {
				s.Close()
				t.Fatal("loaded")
			}
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
			var pe *keys.PKCS11Error
			if !errors.As(err, &pe) {
				t.Errorf("%T is not a *keys.PKCS11Error", err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q does not say %q", err, c.says)
			}
			if strings.Contains(err.Error(), tokenPIN) || strings.Contains(err.Error(), "pin-00000000") {
				t.Errorf("error quotes a PIN: %v", err)
			}
		})
	}
}

// A pkcs11: URI in an environment variable works with pin-source and is refused
// with pin-value: environments end up in CI logs.
func TestPKCS11FromEnvironment(t *testing.T) {
	h := softHSM(t)
	t.Setenv("CERTCUT_TEST_TOKEN_KEY", h.URI("host-ed"))
	s, err := keys.LoadSigner(context.Background(), "env:CERTCUT_TEST_TOKEN_KEY")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	t.Setenv("CERTCUT_TEST_TOKEN_KEY", "pkcs11:token=certcut;object=host-ed?module-path="+h.Module+"&pin-value="+tokenPIN)
	_, err = keys.LoadSigner(context.Background(), "env:CERTCUT_TEST_TOKEN_KEY")
	if !errors.Is(err, keys.ErrPINValueRecorded) {
		t.Fatalf("pin-value from the environment: got %v, want ErrPINValueRecorded", err)
	}
	if strings.Contains(err.Error(), tokenPIN) {
		t.Errorf("error quotes the PIN: %v", err)
	}
}

// keys generate --pkcs11's library half: the pair is made on the token, the
// private key sensitive and never extractable (as pkcs11-tool reports it), it
// signs under the public key pkcs11-tool reads, and a second key with the same
// label is refused.
func TestGeneratePKCS11Key(t *testing.T) {
	h := softHSM(t)
	ctx := context.Background()
	tokenURI := "pkcs11:token=certcut?module-path=" + h.Module + "&pin-source=" + h.PINFile
	s, err := keys.GeneratePKCS11Key(ctx, tokenURI, "generated-1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := "pkcs11:token=certcut;object=generated-1?module-path=" + h.Module + "&pin-source=" + h.PINFile; s.Ref != want {
		t.Errorf("Ref = %q, want %q", s.Ref, want)
	}
	listing, err := h.Tool("--list-objects", "--type", "privkey", "--label", "generated-1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"EC_EDWARDS", "sensitive", "never extractable"} {
		if !bytes.Contains(listing, []byte(want)) {
			t.Errorf("pkcs11-tool does not list the new key as %s:\n%s", want, listing)
		}
	}
	pemText, err := h.PublicPEM("generated-1")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := keys.ParsePublicPEM(pemText)
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(s.Public) {
		t.Fatal("the generated key's public key differs from the one pkcs11-tool reads")
	}
	again, err := keys.GeneratePKCS11Key(ctx, tokenURI, "generated-1")
	if !errors.Is(err, keys.ErrTokenKeyExists) {
		if again != nil {
			again.Close()
		}
		t.Fatalf("a second key labelled generated-1: got %v, want ErrTokenKeyExists", err)
	}
	// Loaded back by the URI generate reports, the key is the same.
	back, err := keys.LoadSigner(ctx, s.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if !back.Public.Equal(s.Public) {
		t.Error("the generated key's URI loads another key")
	}
}

// BenchmarkSignAttestation: one attestation signature with a PEM key in memory and
// with a key on a SoftHSM token (CKM_EDDSA through the module, one session).
func BenchmarkSignAttestation(b *testing.B) {
	payload, _ := bundle.Attestation(testkit.Unsigned("https://host.example").Raw)
	pemSigner, _ := keys.NewSigner(testkit.Key("host"))
	b.Run("pem", func(b *testing.B) {
		for b.Loop() {
			if _, err := keys.Sign(pemSigner, payload); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("softhsm", func(b *testing.B) {
		h := softHSM(b)
		s, err := keys.LoadSigner(context.Background(), h.URI("host-ed"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for b.Loop() {
			if _, err := keys.Sign(s, payload); err != nil {
				b.Fatal(err)
			}
		}
	})
}
