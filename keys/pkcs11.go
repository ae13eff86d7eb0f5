package keys

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/asn1"
	"errors"
	"fmt"
	"time"
)

// PKCS#11 keys: an Ed25519 private key that never leaves a token (an HSM, a
// YubiHSM 2, a YubiKey, SoftHSM), used through the token's PKCS#11 module. The
// signer signs with CKM_EDDSA (pure Ed25519, no parameters) on a CKK_EC_EDWARDS
// key and reads the public key from the token's public key object (CKA_EC_POINT).
//
// The token code needs cgo (it loads the module with dlopen through
// github.com/miekg/pkcs11): a build with CGO_ENABLED=0 parses PKCS#11 URIs but
// refuses to load one with ErrPKCS11Unavailable (PKCS11Available is false).

// PKCS#11 constants certcut uses (PKCS#11 v3.0).
const (
	ckmEdDSA                 = 0x1057 // CKM_EDDSA
	ckmECEdwardsKeyPairGen   = 0x1055 // CKM_EC_EDWARDS_KEY_PAIR_GEN
	ckkECEdwards             = 0x40   // CKK_EC_EDWARDS
	ckaAlwaysAuthenticate    = 0x202  // CKA_ALWAYS_AUTHENTICATE
	ckaPublicKeyInfo         = 0x129  // CKA_PUBLIC_KEY_INFO
	ckuContextSpecific       = 2      // CKU_CONTEXT_SPECIFIC
	ckrUserAlreadyLoggedIn   = 0x100  // CKR_USER_ALREADY_LOGGED_IN
	ckrCryptokiAlreadyInited = 0x191  // CKR_CRYPTOKI_ALREADY_INITIALIZED
)

// ErrPKCS11Unavailable is a PKCS#11 key given to a build of certcut without cgo.
var ErrPKCS11Unavailable = errors.New("PKCS#11 needs the cgo build: this bundle was built with CGO_ENABLED=0, which cannot load a token's module; build it with cgo (CGO_ENABLED=1 and a C compiler: `CGO_ENABLED=1 go install github.com/certcut/certcut/cmd/bundle@latest`) or use a PKCS#11 release build (docs/keys.md#pkcs11-needs-the-cgo-build)")

// Errors a token key can fail with, wrapped in a *PKCS11Error that says which
// token and which call.
var (
	// ErrPKCS11Module: the module-path file is missing or is not a PKCS#11 module.
	ErrPKCS11Module = errors.New("the PKCS#11 module cannot be loaded")
	// ErrNoToken: no token (or more than one) matches the URI's token attributes.
	ErrNoToken = errors.New("no single token matches the URI")
	// ErrNoTokenKey: no private key (or more than one) matches object= and id=.
	ErrNoTokenKey = errors.New("no single private key on the token matches the URI")
	// ErrPINIncorrect: the token refused the PIN (CKR_PIN_INCORRECT).
	ErrPINIncorrect = errors.New("the token refused the PIN")
	// ErrPINNeeded: the token wants a login and the URI gives no PIN.
	ErrPINNeeded = errors.New("the token needs its user PIN and the URI gives none")
	// ErrTokenLocked: the user PIN is locked (CKR_PIN_LOCKED, CKF_USER_PIN_LOCKED).
	ErrTokenLocked = errors.New("the token's user PIN is locked")
	// ErrTokenTimeout: a call to the token did not return within the bound.
	ErrTokenTimeout = errors.New("the token did not answer in time")
	// ErrTokenKeyExists: keys generate --pkcs11 found a key with the label or id.
	ErrTokenKeyExists = errors.New("the token already holds a key with this label or id")
)

// PKCS11Error is a failure of a token key: which URI (without its PIN), which
// call, and why. errors.Is matches the Err* values above and ErrNotEd25519.
type PKCS11Error struct {
	URI  string // the key's URI, as PKCS11URI.String prints it (no PIN)
	Call string // "loading the module", "logging in", "finding the key", "signing", …
	Err  error
	// Hint says what to do next.
	Hint string
}

func (e *PKCS11Error) Error() string {
	s := fmt.Sprintf("%s: %s: %v", e.URI, e.Call, e.Err)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *PKCS11Error) Unwrap() error { return e.Err }

// ed25519OID is id-Ed25519 (RFC 8410), DER-encoded as CKA_EC_PARAMS holds it.
var ed25519OID = []byte{0x06, 0x03, 0x2b, 0x65, 0x70}

// ed25519CurveName is the PrintableString "edwards25519", the other CKA_EC_PARAMS
// form PKCS#11 v3.0 allows (SoftHSM and OpenSC's pkcs11-tool write it).
var ed25519CurveName = []byte{0x13, 0x0c, 'e', 'd', 'w', 'a', 'r', 'd', 's', '2', '5', '5', '1', '9'}

// checkEdwardsParams says whether CKA_EC_PARAMS names Ed25519 (not Ed448).
func checkEdwardsParams(params []byte) error {
	switch {
	case bytes.Equal(params, ed25519OID), bytes.Equal(params, ed25519CurveName):
		return nil
	case len(params) == 0:
		return nil // some tokens leave CKA_EC_PARAMS off the private key; the public key's point decides
	case bytes.Equal(params, []byte{0x06, 0x03, 0x2b, 0x65, 0x71}), bytes.Contains(params, []byte("edwards448")):
		return fmt.Errorf("%w: the token key is an Ed448 key", ErrNotEd25519)
	}
	return fmt.Errorf("%w: the token key's curve (CKA_EC_PARAMS %x) is not Ed25519", ErrNotEd25519, params)
}

// decodeECPoint reads CKA_EC_POINT of an Ed25519 public key: the DER OCTET STRING
// PKCS#11 v3.0 specifies, or the raw 32 bytes some tokens return.
func decodeECPoint(point []byte) (ed25519.PublicKey, error) {
	if len(point) == ed25519.PublicKeySize {
		return ed25519.PublicKey(bytes.Clone(point)), nil
	}
	var raw []byte
	rest, err := asn1.Unmarshal(point, &raw)
	if err != nil || len(rest) != 0 || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: the public key's CKA_EC_POINT is %d bytes, not an Ed25519 point", ErrNotEd25519, len(point))
	}
	return ed25519.PublicKey(raw), nil
}

// keyTypeName names a CKK_* key type for an error.
func keyTypeName(t uint) string {
	switch t {
	case 0x00:
		return "an RSA key (CKK_RSA)"
	case 0x01:
		return "a DSA key (CKK_DSA)"
	case 0x03:
		return "an ECDSA key (CKK_EC: P-256 or another Weierstrass curve)"
	case 0x41:
		return "a Montgomery key (CKK_EC_MONTGOMERY: X25519 or X448, for key agreement)"
	case ckkECEdwards:
		return "an Edwards key (CKK_EC_EDWARDS)"
	}
	return fmt.Sprintf("a key of type CKK 0x%x", t)
}

// PKCS#11 return values and token flags the error mapping reads.
const (
	ckrPINIncorrect   = 0xA0    // CKR_PIN_INCORRECT
	ckrPINLenRange    = 0xA2    // CKR_PIN_LEN_RANGE
	ckrPINExpired     = 0xA3    // CKR_PIN_EXPIRED
	ckrPINLocked      = 0xA4    // CKR_PIN_LOCKED
	ckrUserNotLogged  = 0x101   // CKR_USER_NOT_LOGGED_IN
	ckrMechInvalid    = 0x70    // CKR_MECHANISM_INVALID
	ckrKeyFuncDenied  = 0x68    // CKR_KEY_FUNCTION_NOT_PERMITTED
	ckrDeviceRemoved  = 0x32    // CKR_DEVICE_REMOVED
	ckrTokenNotThere  = 0xE0    // CKR_TOKEN_NOT_PRESENT
	ckrSessionClosed  = 0xB0    // CKR_SESSION_CLOSED
	ckrSessionInvalid = 0xB3    // CKR_SESSION_HANDLE_INVALID
	ckfPINFinalTry    = 0x20000 // CKF_USER_PIN_FINAL_TRY
	ckfPINLocked      = 0x40000 // CKF_USER_PIN_LOCKED
)

// unblockHint says how to get a locked user PIN back.
const unblockHint = "unblock it with the security officer's PIN or PUK (`pkcs11-tool --login --login-type so --init-pin`, YubiKey: `ykman piv access unblock-pin`, YubiHSM 2: `yubihsm-shell` as an admin) before signing; nothing was signed or written"

// tokenFailure maps what a token returned (code, a CKR_* value; flags, the token's
// CK_TOKEN_INFO flags read after the failure) to one of the Err* values and a
// hint. cause is the module's own error, kept in the message.
func tokenFailure(code, flags uint, cause error) (error, string) {
	switch code {
	case ckrPINIncorrect:
		hint := "check the PIN pin-source names (or pin-value gives); a token locks its PIN after a few wrong tries"
		if flags&ckfPINFinalTry != 0 {
			hint = "check the PIN pin-source names (or pin-value gives): the token says the next wrong PIN locks it"
		}
		return fmt.Errorf("%w (%v)", ErrPINIncorrect, cause), hint
	case ckrPINLenRange:
		return fmt.Errorf("%w: its length is outside what the token accepts (%v)", ErrPINIncorrect, cause), "check the PIN pin-source names (or pin-value gives)"
	case ckrPINLocked:
		return fmt.Errorf("%w (%v)", ErrTokenLocked, cause), unblockHint
	case ckrPINExpired:
		return fmt.Errorf("the token's user PIN has expired (%v)", cause), "set a new user PIN with the token's tool, then try again"
	case ckrUserNotLogged:
		return fmt.Errorf("%w (%v)", ErrPINNeeded, cause), "add pin-source=FILE to the URI's query (a file only you can read holding the user PIN)"
	case ckrMechInvalid:
		return fmt.Errorf("the token does not implement CKM_EDDSA, Ed25519 signing (%v)", cause), "use a token that does (SoftHSM 2.6, YubiHSM 2, YubiKey 5.7 or later)"
	case ckrKeyFuncDenied:
		return fmt.Errorf("the key may not sign: CKA_SIGN is false (%v)", cause), "use a key created for signing (bundle keys generate --pkcs11 creates one)"
	case ckrDeviceRemoved, ckrTokenNotThere, ckrSessionClosed, ckrSessionInvalid:
		return fmt.Errorf("the token went away (%v)", cause), "plug it back in and run the command again; nothing was written"
	}
	if flags&ckfPINLocked != 0 {
		return fmt.Errorf("%w (%v)", ErrTokenLocked, cause), unblockHint
	}
	return cause, ""
}

// LoadPKCS11Signer loads the Ed25519 key a PKCS#11 URI names (see PKCS11URI),
// given on a command line: pin-value is accepted. It loads the module, finds the
// one token and the one private key the URI names, logs in with the URI's PIN,
// refuses a key that is not Ed25519 (ErrNotEd25519) and reads the public key from
// the token. Every call to the token is bounded by the timeout (WithTimeout,
// DefaultKMSTimeout when not given); loading is also bounded by ctx, and each
// signature by the context its options carry (options.WithContext). Failures are
// *PKCS11URIError (the URI) or *PKCS11Error (the module, token, PIN or key); none
// quotes the PIN. Close the Signer to end the session.
func LoadPKCS11Signer(ctx context.Context, ref string, opts ...SignerOption) (*Signer, error) {
	u, err := ParsePKCS11URI(ref)
	if err != nil {
		return nil, err
	}
	return loadPKCS11URI(ctx, u, newSignerConfig(opts))
}

func loadPKCS11URI(ctx context.Context, u *PKCS11URI, c signerConfig) (*Signer, error) {
	if u.Object == "" && u.ID == nil {
		return nil, &PKCS11URIError{Reason: "name the key with object=LABEL or id=%XX…"}
	}
	return loadPKCS11(ctx, u, c.timeout)
}

// GeneratePKCS11Key creates an Ed25519 key pair on the token the URI names (its
// object= and id= are the new key's label and id; without object=, label; without
// id=, 16 random bytes). The private key is sensitive, never extractable, private
// and may only sign; nothing of it leaves the token. The URI must give the PIN
// (creating a private key needs a login). A token that holds an object with the
// label or id already is refused (ErrTokenKeyExists): a token key is never
// replaced. The pair is checked by signing with it; if that fails the pair is
// destroyed. The Signer's Ref is the new key's URI (without a PIN). Calls to the
// token are bounded as LoadPKCS11Signer's are (WithTimeout).
func GeneratePKCS11Key(ctx context.Context, ref, label string, opts ...SignerOption) (*Signer, error) {
	u, err := ParsePKCS11URI(TrimRef(ref))
	if err != nil {
		return nil, hideRef(err, ref)
	}
	if u.Object != "" {
		label = u.Object
	}
	if label == "" {
		return nil, &PKCS11URIError{Reason: "give the new key a label: object=LABEL"}
	}
	return generatePKCS11(ctx, u, label, newSignerConfig(opts).timeout)
}

// withinToken runs one call to a token, waiting at most timeout (withinKMS); past
// it the call is abandoned (a cgo call cannot be cancelled) and the error is a
// *PKCS11Error wrapping ErrTokenTimeout.
func withinToken[T any](ctx context.Context, timeout time.Duration, uri, call string, f func() (T, error)) (T, error) {
	v, err := withinKMS(ctx, timeout, uri, call, f)
	var te *KMSTimeoutError
	if errors.As(err, &te) {
		return v, &PKCS11Error{URI: uri, Call: call, Err: fmt.Errorf("%w: no answer within %s", ErrTokenTimeout, timeout),
			Hint: "a token that waits for a touch or a PIN pad gives up here: raise --kms-timeout"}
	}
	return v, err
}
