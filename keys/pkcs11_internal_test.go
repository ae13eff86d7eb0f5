package keys

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"
	"time"
)

// A token call past its bound (a YubiKey waiting for a touch) is abandoned with a
// *PKCS11Error wrapping ErrTokenTimeout that names the call and the flag to raise.
func TestWithinTokenTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	_, err := withinToken(context.Background(), 20*time.Millisecond, "pkcs11:token=t;object=k", "signing", func() ([]byte, error) {
		<-release
		return nil, nil
	})
	var pe *PKCS11Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrTokenTimeout) {
		t.Fatalf("got %v, want a *PKCS11Error wrapping ErrTokenTimeout", err)
	}
	want := "pkcs11:token=t;object=k: signing: the token did not answer in time: no answer within 20ms; a token that waits for a touch or a PIN pad gives up here: raise --kms-timeout"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	got, err := withinToken(context.Background(), time.Second, "u", "signing", func() ([]byte, error) { return []byte("sig"), nil })
	if err != nil || string(got) != "sig" {
		t.Errorf("a call within its bound: %q, %v", got, err)
	}
}

// What a token returns maps to one error and one hint each. A locked PIN cannot be
// produced with SoftHSM (it does not count wrong PINs), so this table is where
// CKR_PIN_LOCKED and CKF_USER_PIN_LOCKED are checked.
func TestTokenFailure(t *testing.T) {
	cause := errors.New("CKR_X")
	for _, c := range []struct {
		name        string
		code, flags uint
		want        error
		says, hint  string
	}{
		{"wrong PIN", ckrPINIncorrect, 0, ErrPINIncorrect, "the token refused the PIN (CKR_X)", "locks its PIN after a few wrong tries"},
		{"wrong PIN, last try", ckrPINIncorrect, ckfPINFinalTry, ErrPINIncorrect, "refused the PIN", "the next wrong PIN locks it"},
		{"PIN length", ckrPINLenRange, 0, ErrPINIncorrect, "its length is outside", "check the PIN"},
		{"locked", ckrPINLocked, 0, ErrTokenLocked, "the token's user PIN is locked (CKR_X)", "unblock it with the security officer's PIN"},
		{"locked by flags", 0x5, ckfPINLocked, ErrTokenLocked, "is locked", "unblock it"},
		{"expired", ckrPINExpired, 0, nil, "has expired", "set a new user PIN"},
		{"not logged in", ckrUserNotLogged, 0, ErrPINNeeded, "needs its user PIN", "add pin-source=FILE"},
		{"no EdDSA", ckrMechInvalid, 0, nil, "does not implement CKM_EDDSA", "SoftHSM 2.6, YubiHSM 2, YubiKey 5.7"},
		{"may not sign", ckrKeyFuncDenied, 0, nil, "CKA_SIGN is false", "created for signing"},
		{"unplugged", ckrDeviceRemoved, 0, nil, "the token went away", "plug it back in"},
		{"other", 0x5, 0, cause, "CKR_X", ""},
	} {
		err, hint := tokenFailure(c.code, c.flags, cause)
		if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %q does not say %q", c.name, err, c.says)
		}
		if !strings.Contains(hint, c.hint) || c.hint == "" && hint != "" {
			t.Errorf("%s: hint %q, want one with %q", c.name, hint, c.hint)
		}
	}
}

// CKA_EC_POINT comes as a DER OCTET STRING (PKCS#11 v3.0) or as raw bytes;
// anything else is not an Ed25519 point. CKA_EC_PARAMS names Ed25519 by OID or by
// name; Ed448 and other curves are refused.
func TestEdwardsEncodings(t *testing.T) {
	raw := bytes.Repeat([]byte{7}, 32)
	der := append([]byte{0x04, 0x20}, raw...)
	for _, c := range []struct {
		name  string
		point []byte
		ok    bool
	}{
		{"DER", der, true},
		{"raw", raw, true},
		{"short", der[:33], false},
		{"trailing", append(bytes.Clone(der), 0), false},
		{"Ed448 size", append([]byte{0x04, 0x39}, bytes.Repeat([]byte{1}, 57)...), false},
		{"empty", nil, false},
	} {
		pub, err := decodeECPoint(c.point)
		if c.ok != (err == nil) {
			t.Errorf("%s: err %v", c.name, err)
		}
		if c.ok && !pub.Equal(ed25519.PublicKey(raw)) {
			t.Errorf("%s: decoded %x", c.name, pub)
		}
		if !c.ok && !errors.Is(err, ErrNotEd25519) {
			t.Errorf("%s: %v is not ErrNotEd25519", c.name, err)
		}
	}
	for _, c := range []struct {
		name   string
		params []byte
		ok     bool
	}{
		{"OID", ed25519OID, true},
		{"name", ed25519CurveName, true},
		{"absent", nil, true},
		{"Ed448 OID", []byte{0x06, 0x03, 0x2b, 0x65, 0x71}, false},
		{"Ed448 name", append([]byte{0x13, 0x0a}, "edwards448"...), false},
		{"P-256", []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07}, false},
	} {
		err := checkEdwardsParams(c.params)
		if c.ok != (err == nil) {
			t.Errorf("%s: err %v", c.name, err)
		}
	}
}
