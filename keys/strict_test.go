package keys_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
)

// A keyring is read as strictly as a bundle: a second spelling of a member cannot
// override the one a reviewer sees, and the error says where.
func TestKeyringStrict(t *testing.T) {
	const pub = "MrdDL0mvwRNsj6c_cGxbxRNm9vIUedGAwvt-_XAZKGs"
	const other = "F588CksLq-PVrpqTFhYcweE4WFYOcj6-jyjz7KmKipU"
	entry := `{"keyId":"k","alg":"ed25519","publicKey":"` + pub + `","host":{"name":"h"}`
	for name, c := range map[string]struct{ text, kind, want string }{
		"case variant of publicKey": {`{"keyringVersion":1,"keys":[` + entry + `,` + "\n" + `"PublicKey":"` + other + `"}]}`, "unknown-member", `line 2, column 1: unknown member "PublicKey" at /keys/0`},
		"duplicate publicKey":       {`{"keyringVersion":1,"keys":[` + entry + `,"publicKey":"` + other + `"}]}`, "duplicate-name", `duplicate member name "publicKey"`},
		"case variant of revokedAt": {`{"keyringVersion":1,"keys":[` + entry + `,"RevokedAt":"2026-01-01T00:00:00Z"}]}`, "unknown-member", `unknown member "RevokedAt"`},
		"unknown host member":       {`{"keyringVersion":1,"keys":[{"keyId":"k","alg":"ed25519","publicKey":"` + pub + `","host":{"name":"h","Origin":"https://x.example"}}]}`, "unknown-member", `unknown member "Origin" at /keys/0/host`},
		"wrong type":                {`{"keyringVersion":"1","keys":[]}`, "wrong-type", `/keyringVersion is a string, but must be an integer`},
		"not I-JSON":                {`{"keyringVersion":1,"keys":[],"x":9007199254740993}`, "integer-out-of-range", `beyond`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := keys.ParseKeyring([]byte(c.text))
			var syn *bundle.SyntaxError
			if !errors.As(err, &syn) || string(syn.Kind) != c.kind || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want a %s refusal saying %q", err, c.kind, c.want)
			}
			if syn.Line < 1 || syn.Column < 1 {
				t.Errorf("no position: %+v", syn)
			}
		})
	}
}

// A private key passed where a public key file was expected is never echoed.
func TestKeyMaterialNotEchoed(t *testing.T) {
	body := "MC4CAQAwBQYDK2VwBCIEIBGbOK5V0Q7dJu4n3s8jC1X0aP9fD7gq1j+7xYHn/2Ab"
	for _, arg := range []string{body, "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----"} {
		_, err := keys.LoadPublic(arg)
		if err == nil || strings.Contains(err.Error(), body) || !strings.Contains(err.Error(), "not shown") {
			t.Errorf("error %v", err)
		}
		if strings.Contains(keys.ShownArg(arg), body) {
			t.Errorf("ShownArg echoes the key")
		}
	}
	if _, err := keys.LoadPublic("keys/missing.pub.pem"); err == nil || !strings.Contains(err.Error(), "keys/missing.pub.pem") {
		t.Errorf("a missing file is named: %v", err)
	}
	if keys.ShownArg("keys/missing.pub.pem") != "keys/missing.pub.pem" {
		t.Error("ShownArg hides a file name")
	}
}

// A signing key reference is never echoed with its secret: a pkcs11: URI with
// a leading space is still a PKCS#11 URI (not a file name quoted with its PIN), a
// reference that is no URI but carries a pin-value is not shown, a URI's password
// and token are REDACTED — in LoadSigner's errors, and in ShownRef and ShownArg.
func TestKeyRefSecretNotEchoed(t *testing.T) {
	const pin = "9f3c81d7e2"
	for _, tc := range []struct {
		ref, shown, err string
	}{
		{" pkcs11:token=nope;object=k?module-path=/nonexistent/lib.so&pin-value=" + pin, "pkcs11:token=nope;object=k?module-path=/nonexistent/lib.so", "loading the module"},
		{"pkcs11:token=nope;object=k?module-path=/nonexistent/lib.so&pin-value=" + pin + " ", "pkcs11:token=nope;object=k?module-path=/nonexistent/lib.so", "loading the module"},
		{"pkcs11x:token=nope;object=k;pin-value=" + pin, "(a key reference that carries a pin-value: not shown)", "not shown"},
		{"keys/host.key.pem?PIN%2DVALUE=" + pin, "(a key reference that carries a pin-value: not shown)", "not shown"},
		{" hashivault://ops:" + pin + "@vault.example/k", "hashivault://REDACTED@vault.example/k", "REDACTED"},
		{"hashivault://k?token=" + pin, "hashivault://k?token=REDACTED", "REDACTED"},
	} {
		if got := keys.ShownRef(tc.ref); got != tc.shown {
			t.Errorf("ShownRef(%q) = %q, want %q", tc.ref, got, tc.shown)
		}
		if got := keys.ShownArg(tc.ref); strings.Contains(got, pin) {
			t.Errorf("ShownArg(%q) = %q", tc.ref, got)
		}
		if id := keys.KeyIDFromRef(tc.ref); strings.Contains(id, pin) {
			t.Errorf("KeyIDFromRef(%q) = %q", tc.ref, id)
		}
		_, err := keys.LoadSigner(context.Background(), tc.ref)
		if err == nil || strings.Contains(err.Error(), pin) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("LoadSigner(%q): %v", tc.ref, err)
		}
	}
	// A file path and env:NAME are shown as given; a file path keeps its spaces.
	for _, ref := range []string{"keys/host.key.pem", "env:OPENWOP_BUNDLE_SIGNING_KEY", " keys/host.key.pem"} {
		if got := keys.ShownRef(ref); got != ref {
			t.Errorf("ShownRef(%q) = %q", ref, got)
		}
	}
	if got := keys.TrimRef(" env:X "); got != "env:X" {
		t.Errorf("TrimRef = %q", got)
	}
}
