package vaulttransit_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/internal/vaulttransit"
)

// The key URI grammar is sigstore's hashivault provider's.
func TestKeyName(t *testing.T) {
	for uri, want := range map[string]string{
		"hashivault://openwop-bundle": "openwop-bundle",
		"openbao://k":                 "k",
		"hashivault://a.b_c-d":        "a.b_c-d",
		"hashivault://":               "",
		"hashivault://-a":             "",
		"hashivault://a-":             "",
		"hashivault://a/b":            "",
		"awskms://a":                  "",
	} {
		got, ok := vaulttransit.KeyName(uri)
		if got != want || ok != (want != "") {
			t.Errorf("keyName(%q) = %q, %v; want %q", uri, got, ok, want)
		}
	}
	for in, want := range map[string]string{"vault:v1:QUJD": "QUJD", "vault:v12:QUJD": "QUJD", "vault:v:QUJD": "vault:v:QUJD", "QUJD": "QUJD"} {
		if got := vaulttransit.StripVersion(in); got != want {
			t.Errorf("stripVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// Public key and signature through the loopback Vault fake; the token from
// ~/.vault-token when the environment names none; a refusal is an *vaulttransit.APIError
// that does not quote the token.
func TestClient(t *testing.T) {
	priv := testkit.Key("kms")
	v := testkit.NewVault(map[string]ed25519.PrivateKey{"k": priv})
	defer v.Close()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("VAULT_ADDR", v.URL)
	t.Setenv("VAULT_TOKEN", "")
	t.Setenv("BAO_TOKEN", "")
	t.Setenv("BAO_ADDR", "")
	if _, err := vaulttransit.New("openbao://k", vaulttransit.Config{}); err == nil || !strings.Contains(err.Error(), "no Vault token") {
		t.Fatalf("no token anywhere: %v", err)
	}
	if err := os.WriteFile(filepath.Join(home, ".vault-token"), []byte(testkit.VaultToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := vaulttransit.New("openbao://k", vaulttransit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pub, err := c.PublicKey(ctx)
	if err != nil || !priv.Public().(ed25519.PublicKey).Equal(pub) {
		t.Fatalf("public key: %v", err)
	}
	sig, err := c.Sign(ctx, []byte("message"))
	if err != nil || !ed25519.Verify(priv.Public().(ed25519.PublicKey), []byte("message"), sig) {
		t.Fatalf("signature: %v", err)
	}

	bad, err := vaulttransit.New("hashivault://k", vaulttransit.Config{Token: "s.secret-token"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Sign(ctx, []byte("message"))
	var ae *vaulttransit.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusForbidden || !strings.Contains(err.Error(), "permission denied") || strings.Contains(err.Error(), "secret-token") {
		t.Errorf("wrong token: %v", err)
	}
	if _, err := c.PublicKey(ctx); err != nil {
		t.Fatal(err)
	}
	missing, _ := vaulttransit.New("hashivault://missing", vaulttransit.Config{})
	if _, err := missing.PublicKey(ctx); err == nil || !strings.Contains(err.Error(), "could not read data from transit key path: /transit/keys/missing") {
		t.Errorf("missing key: %v", err)
	}
}

// The namespace and engine path reach the request; a 5xx is retried
// VAULT_MAX_RETRIES times.
func TestNamespaceMountRetries(t *testing.T) {
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.Header.Get("X-Vault-Namespace") != "team" || r.URL.Path != "/v1/signing/keys/k" {
			t.Errorf("request %s namespace %q", r.URL.Path, r.Header.Get("X-Vault-Namespace"))
		}
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(`{"errors":["upstream down"]}`))
	}))
	defer srv.Close()
	t.Setenv("VAULT_NAMESPACE", "team")
	t.Setenv("VAULT_MAX_RETRIES", "0")
	c, err := vaulttransit.New("hashivault://k", vaulttransit.Config{Address: srv.URL, Token: "t", Mount: "/signing/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PublicKey(context.Background()); err == nil || !strings.Contains(err.Error(), "Vault answered 502") || !strings.Contains(err.Error(), "upstream down") {
		t.Errorf("502: %v", err)
	}
	if calls != 1 {
		t.Errorf("%d calls with VAULT_MAX_RETRIES=0, want 1", calls)
	}
	t.Setenv("VAULT_MAX_RETRIES", "many")
	if _, err := vaulttransit.New("hashivault://k", vaulttransit.Config{Address: srv.URL, Token: "t"}); err == nil {
		t.Error("VAULT_MAX_RETRIES=many accepted")
	}
}
