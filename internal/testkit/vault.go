package testkit

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
)

// VaultToken is the token the fake Vault accepts.
const VaultToken = "certcut-test-vault-token"

// Vault is a loopback server that speaks the two calls of HashiCorp Vault's transit
// API that sigstore's hashivault provider makes: GET /v1/transit/keys/<name> (the
// public key) and PUT (or POST) /v1/transit/sign/<name> (a signature). Ed25519 keys sign for
// real; a key added with AddECDSA exists only to be refused as the wrong type.
//
// For timeout tests it can hang: a call it hangs on gets no answer until the
// client gives up or the fake is closed. It hangs on every call for a key whose
// name starts with "hang-all", on signatures only for a key whose name starts with
// "hang-sign" (so a script can pick the mode by the key name), and on the calls
// set with Hang.
type Vault struct {
	*httptest.Server
	keys  map[string]ed25519.PrivateKey
	ecdsa map[string]*ecdsa.PrivateKey
	// Signs counts the signatures made.
	Signs atomic.Int64
	// hangKeys and hangSign make every public-key or signature call hang.
	hangKeys, hangSign atomic.Bool
	release            chan struct{}
	closeOnce          sync.Once
}

// NewVault starts a fake Vault on the loopback interface holding Ed25519 transit
// keys; call Close when done.
func NewVault(keys map[string]ed25519.PrivateKey) *Vault {
	v := &Vault{keys: keys, ecdsa: map[string]*ecdsa.PrivateKey{}, release: make(chan struct{})}
	v.Server = httptest.NewServer(http.HandlerFunc(v.serve))
	return v
}

// Hang makes the fake hang on public-key calls (keys) and on signature calls
// (sign), for every key.
func (v *Vault) Hang(keys, sign bool) {
	v.hangKeys.Store(keys)
	v.hangSign.Store(sign)
}

// Close releases every hanging call and stops the server.
func (v *Vault) Close() {
	v.closeOnce.Do(func() { close(v.release) })
	v.Server.Close()
}

// hang blocks until the client gives up or the fake is closed.
func (v *Vault) hang(r *http.Request) {
	select {
	case <-v.release:
	case <-r.Context().Done():
	}
}

// AddECDSA adds a P-256 transit key (for wrong-key-type tests).
func (v *Vault) AddECDSA(name string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	v.ecdsa[name] = k
}

func vaultJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func vaultError(w http.ResponseWriter, status int, msg string) {
	vaultJSON(w, status, map[string]any{"errors": []string{msg}})
}

func (v *Vault) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Vault-Token") != VaultToken {
		vaultError(w, http.StatusForbidden, "permission denied")
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/transit/keys/"):
		name := strings.TrimPrefix(r.URL.Path, "/v1/transit/keys/")
		if v.hangKeys.Load() || strings.HasPrefix(name, "hang-all") {
			v.hang(r)
			return
		}
		var entry map[string]any
		if k, ok := v.keys[name]; ok {
			entry = map[string]any{"name": "ed25519", "public_key": base64.StdEncoding.EncodeToString(k.Public().(ed25519.PublicKey)), "creation_time": "2026-11-01T00:00:00Z"}
		} else if k, ok := v.ecdsa[name]; ok {
			der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
			entry = map[string]any{"name": "P-256", "public_key": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), "creation_time": "2026-11-01T00:00:00Z"}
		} else {
			vaultError(w, http.StatusNotFound, "no such key")
			return
		}
		vaultJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
			"name": name, "type": entry["name"], "latest_version": 1, "keys": map[string]any{"1": entry},
		}})
	case (r.Method == http.MethodPost || r.Method == http.MethodPut) && strings.HasPrefix(r.URL.Path, "/v1/transit/sign/"):
		name := strings.TrimPrefix(r.URL.Path, "/v1/transit/sign/")
		if v.hangSign.Load() || strings.HasPrefix(name, "hang-") {
			v.hang(r)
			return
		}
		k, ok := v.keys[name]
		if !ok {
			vaultError(w, http.StatusBadRequest, "signing key not found or not ed25519")
			return
		}
		var req struct {
			Input     string `json:"input"`
			Prehashed bool   `json:"prehashed"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			vaultError(w, http.StatusBadRequest, "bad body")
			return
		}
		if req.Prehashed {
			vaultError(w, http.StatusBadRequest, "ed25519 signs the message, not a digest")
			return
		}
		msg, err := base64.StdEncoding.DecodeString(req.Input)
		if err != nil {
			vaultError(w, http.StatusBadRequest, "input is not base64")
			return
		}
		v.Signs.Add(1)
		sig := ed25519.Sign(k, msg)
		vaultJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
			"signature": "vault:v1:" + base64.StdEncoding.EncodeToString(sig), "key_version": 1,
		}})
	default:
		vaultError(w, http.StatusNotFound, "unsupported path "+r.URL.Path)
	}
}
