//go:build cgo

package keys

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/pkcs11"
	"github.com/sigstore/sigstore/pkg/signature"
)

// PKCS11Available reports whether this build can load a PKCS#11 module: true
// with cgo, false without (see ErrPKCS11Unavailable).
const PKCS11Available = true

// A loaded module, shared by every session this process opens on it:
// C_Initialize runs once per process, and the last release finalises it.
type p11Module struct {
	path string
	ctx  *pkcs11.Ctx
	refs int
	owns bool // C_Initialize was ours, so C_Finalize is too
}

var p11Modules = struct {
	sync.Mutex
	m map[string]*p11Module
}{m: map[string]*p11Module{}}

func acquireModule(uri, path string) (*p11Module, error) {
	p11Modules.Lock()
	defer p11Modules.Unlock()
	if m := p11Modules.m[path]; m != nil {
		m.refs++
		return m, nil
	}
	fail := func(err error, hint string) error {
		return &PKCS11Error{URI: uri, Call: "loading the module", Err: err, Hint: hint}
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fail(fmt.Errorf("%w: module-path %s: no such file", ErrPKCS11Module, path),
			"install the token's PKCS#11 module and give its absolute path (SoftHSM: apt-get install softhsm2, /usr/lib/softhsm/libsofthsm2.so)")
	case err != nil:
		return nil, fail(fmt.Errorf("%w: module-path %s: %v", ErrPKCS11Module, path, err), "")
	case !info.Mode().IsRegular():
		return nil, fail(fmt.Errorf("%w: module-path %s is not a regular file", ErrPKCS11Module, path), "give the module's shared library (.so, .dylib)")
	}
	ctx := pkcs11.New(path)
	if ctx == nil {
		return nil, fail(fmt.Errorf("%w: %s is not a PKCS#11 module (it does not load as a shared library for this machine, or exports no C_GetFunctionList)", ErrPKCS11Module, path),
			"give the token vendor's PKCS#11 library")
	}
	m := &p11Module{path: path, ctx: ctx, refs: 1, owns: true}
	if err := ctx.Initialize(); err != nil {
		if code, ok := err.(pkcs11.Error); ok && uint(code) == ckrCryptokiAlreadyInited {
			m.owns = false
		} else {
			ctx.Destroy()
			hint := ""
			if strings.Contains(strings.ToLower(path), "softhsm") {
				hint = "SoftHSM reads its configuration from SOFTHSM2_CONF (default /etc/softhsm/softhsm2.conf): check that it names a token directory you can read"
			}
			return nil, fail(fmt.Errorf("%w: C_Initialize: %v", ErrPKCS11Module, err), hint)
		}
	}
	p11Modules.m[path] = m
	return m, nil
}

func (m *p11Module) release() {
	p11Modules.Lock()
	defer p11Modules.Unlock()
	m.refs--
	if m.refs > 0 {
		return
	}
	delete(p11Modules.m, m.path)
	if m.owns {
		_ = m.ctx.Finalize()
	}
	m.ctx.Destroy()
}

// tokenSession is one open session on the token a URI names.
type tokenSession struct {
	mod      *p11Module
	uri      string
	slot     uint
	info     pkcs11.TokenInfo
	sh       pkcs11.SessionHandle
	pin      string
	hasPIN   bool
	loggedIn bool
}

func (t *tokenSession) fail(call string, err error) *PKCS11Error {
	code, _ := err.(pkcs11.Error)
	var flags uint
	if info, ierr := t.mod.ctx.GetTokenInfo(t.slot); ierr == nil {
		flags = info.Flags
	}
	mapped, hint := tokenFailure(uint(code), flags, err)
	return &PKCS11Error{URI: t.uri, Call: call, Err: mapped, Hint: hint}
}

// openToken loads the module, finds the one token the URI names, opens a session
// (read-write when rw) and logs in with the URI's PIN when it gives one.
func openToken(u *PKCS11URI, rw bool) (_ *tokenSession, err error) {
	uri := u.String()
	if u.ModulePath == "" {
		return nil, &PKCS11Error{URI: uri, Call: "loading the module", Err: fmt.Errorf("%w: the URI names no module", ErrPKCS11Module),
			Hint: "add ?module-path=/absolute/path/to/module.so (SoftHSM: /usr/lib/softhsm/libsofthsm2.so; YubiHSM 2: yubihsm_pkcs11.so; YubiKey: libykcs11.so)"}
	}
	pin, hasPIN, err := u.PIN()
	if err != nil {
		return nil, &PKCS11Error{URI: uri, Call: "reading the PIN", Err: err}
	}
	mod, err := acquireModule(uri, u.ModulePath)
	if err != nil {
		return nil, err
	}
	t := &tokenSession{mod: mod, uri: uri, pin: pin, hasPIN: hasPIN}
	defer func() {
		if err != nil {
			t.close()
		}
	}()
	if err := t.findSlot(u); err != nil {
		return nil, err
	}
	if t.info.Flags&pkcs11.CKF_USER_PIN_LOCKED != 0 {
		return nil, &PKCS11Error{URI: uri, Call: "opening the token", Err: fmt.Errorf("%w (CKF_USER_PIN_LOCKED)", ErrTokenLocked), Hint: unblockHint}
	}
	flags := uint(pkcs11.CKF_SERIAL_SESSION)
	if rw {
		flags |= pkcs11.CKF_RW_SESSION
	}
	sh, err := mod.ctx.OpenSession(t.slot, flags)
	if err != nil {
		return nil, t.fail("opening a session", err)
	}
	t.sh = sh
	if hasPIN {
		if err := mod.ctx.Login(sh, pkcs11.CKU_USER, pin); err != nil {
			if code, ok := err.(pkcs11.Error); !ok || uint(code) != ckrUserAlreadyLoggedIn {
				return nil, t.fail(fmt.Sprintf("logging in to token %q", t.info.Label), err)
			}
		}
		t.loggedIn = true
	}
	return t, nil
}

// findSlot picks the one slot whose token matches the URI's token attributes.
func (t *tokenSession) findSlot(u *PKCS11URI) error {
	ctx := t.mod.ctx
	slots, err := ctx.GetSlotList(true)
	if err != nil {
		return &PKCS11Error{URI: t.uri, Call: "listing the slots", Err: err}
	}
	var seen []string
	var match []uint
	var infos []pkcs11.TokenInfo
	for _, slot := range slots {
		info, err := ctx.GetTokenInfo(slot)
		if err != nil {
			continue
		}
		if info.Flags&pkcs11.CKF_TOKEN_INITIALIZED == 0 {
			// A blank token (SoftHSM keeps a free slot) holds no key.
			if u.HasSlotID && slot == u.SlotID {
				return &PKCS11Error{URI: t.uri, Call: "finding the token", Err: fmt.Errorf("%w: the token in slot %d is not initialised", ErrNoToken, slot), Hint: "initialise it with the vendor's tool first"}
			}
			continue
		}
		seen = append(seen, fmt.Sprintf("%q (slot-id=%d, serial %q)", info.Label, slot, info.SerialNumber))
		if u.HasSlotID && slot != u.SlotID ||
			u.Token != "" && info.Label != u.Token ||
			u.Manufacturer != "" && info.ManufacturerID != u.Manufacturer ||
			u.Serial != "" && info.SerialNumber != u.Serial ||
			u.Model != "" && info.Model != u.Model {
			continue
		}
		match = append(match, slot)
		infos = append(infos, info)
	}
	switch {
	case len(match) == 1:
		t.slot, t.info = match[0], infos[0]
		return nil
	case len(seen) == 0:
		hint := "plug the token in"
		if strings.Contains(strings.ToLower(t.mod.path), "softhsm") {
			hint = "SoftHSM: check that SOFTHSM2_CONF names the token directory and that softhsm2-util --show-slots lists the token"
		}
		return &PKCS11Error{URI: t.uri, Call: "finding the token", Err: fmt.Errorf("%w: the module sees no initialised token", ErrNoToken), Hint: hint}
	case len(match) == 0:
		return &PKCS11Error{URI: t.uri, Call: "finding the token", Err: fmt.Errorf("%w: the module sees %s", ErrNoToken, strings.Join(seen, ", ")), Hint: "name one of them with token=, serial= or slot-id="}
	}
	return &PKCS11Error{URI: t.uri, Call: "finding the token", Err: fmt.Errorf("%w: %d tokens match", ErrNoToken, len(match)), Hint: "add serial= or slot-id= to the URI"}
}

func (t *tokenSession) close() {
	if t.sh != 0 {
		// No C_Logout: the login belongs to the application, and another signer in
		// this process may use it; it ends with the token's last session.
		_ = t.mod.ctx.CloseSession(t.sh)
		t.sh = 0
	}
	if t.mod != nil {
		t.mod.release()
		t.mod = nil
	}
}

// find returns up to max+1 objects matching template.
func (t *tokenSession) find(template []*pkcs11.Attribute, max int) ([]pkcs11.ObjectHandle, error) {
	ctx := t.mod.ctx
	if err := ctx.FindObjectsInit(t.sh, template); err != nil {
		return nil, err
	}
	objs, _, err := ctx.FindObjects(t.sh, max+1)
	if ferr := ctx.FindObjectsFinal(t.sh); err == nil {
		err = ferr
	}
	return objs, err
}

// attr reads one attribute; nil when the object has none or keeps it secret.
func (t *tokenSession) attr(o pkcs11.ObjectHandle, typ uint) []byte {
	got, err := t.mod.ctx.GetAttributeValue(t.sh, o, []*pkcs11.Attribute{pkcs11.NewAttribute(typ, nil)})
	if err != nil || len(got) != 1 {
		return nil
	}
	return got[0].Value
}

// ulong decodes a CK_ULONG attribute (native byte order, the C long's size).
func ulong(b []byte) (uint, bool) {
	switch len(b) {
	case 8:
		return uint(binary.NativeEndian.Uint64(b)), true
	case 4:
		return uint(binary.NativeEndian.Uint32(b)), true
	}
	return 0, false
}

// privateKeyTemplate matches the private keys the URI names.
func privateKeyTemplate(u *PKCS11URI) []*pkcs11.Attribute {
	tmpl := []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY)}
	if u.Object != "" {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_LABEL, u.Object))
	}
	if u.ID != nil {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_ID, u.ID))
	}
	return tmpl
}

// privateLabels lists the labels of up to 20 private keys, for an error.
func (t *tokenSession) privateLabels() string {
	objs, err := t.find([]*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY)}, 20)
	if err != nil || len(objs) == 0 {
		return "none"
	}
	var labels []string
	for _, o := range objs {
		label := string(t.attr(o, pkcs11.CKA_LABEL))
		if label == "" {
			label = "(no label)"
		}
		labels = append(labels, fmt.Sprintf("%q", label))
	}
	slices.Sort(labels)
	if len(objs) > 20 {
		labels = append(labels[:20], "…")
	}
	return strings.Join(labels, ", ")
}

// pkcs11Signer signs with one private key over one session. Calls are
// serialised: a PKCS#11 session runs one operation at a time.
type pkcs11Signer struct {
	mu        sync.Mutex
	t         *tokenSession
	key       pkcs11.ObjectHandle
	pub       ed25519.PublicKey
	alwaysPIN bool // CKA_ALWAYS_AUTHENTICATE: the PIN again for every signature
	timeout   time.Duration
	uri       string
}

func (s *pkcs11Signer) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return s.pub, nil
}

// SignMessage signs the message itself with CKM_EDDSA (pure Ed25519), waiting at
// most the signer's timeout for the token, and no longer than the context opts
// carry (options.WithContext) allows.
func (s *pkcs11Signer) SignMessage(message io.Reader, opts ...signature.SignOption) ([]byte, error) {
	msg, err := io.ReadAll(message)
	if err != nil {
		return nil, err
	}
	return withinToken(callContext(opts), s.timeout, s.uri, "signing", func() ([]byte, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.t == nil || s.t.sh == 0 {
			return nil, &PKCS11Error{URI: s.uri, Call: "signing", Err: errors.New("the signer is closed")}
		}
		t := s.t
		ctx := t.mod.ctx
		if err := ctx.SignInit(t.sh, []*pkcs11.Mechanism{pkcs11.NewMechanism(ckmEdDSA, nil)}, s.key); err != nil {
			return nil, t.fail("signing", err)
		}
		if s.alwaysPIN {
			if err := ctx.Login(t.sh, ckuContextSpecific, t.pin); err != nil {
				return nil, t.fail("logging in for the signature (CKA_ALWAYS_AUTHENTICATE)", err)
			}
		}
		sig, err := ctx.Sign(t.sh, msg)
		if err != nil {
			return nil, t.fail("signing", err)
		}
		if len(sig) != ed25519.SignatureSize {
			return nil, &PKCS11Error{URI: t.uri, Call: "signing", Err: fmt.Errorf("the token returned %d bytes, not an Ed25519 signature", len(sig))}
		}
		return sig, nil
	})
}

// Close ends the session and releases the module. A signer whose call is still
// running past its timeout is left to the process's exit.
func (s *pkcs11Signer) Close() error {
	if !s.mu.TryLock() {
		return nil
	}
	defer s.mu.Unlock()
	if s.t != nil {
		s.t.close()
		s.t = nil
	}
	return nil
}

// loadPKCS11 opens the token and the key u names, bounded by timeout and ctx.
func loadPKCS11(ctx context.Context, u *PKCS11URI, timeout time.Duration) (*Signer, error) {
	uri := u.String()
	return withinToken(ctx, timeout, uri, "opening the token", func() (*Signer, error) {
		t, err := openToken(u, false)
		if err != nil {
			return nil, err
		}
		s, err := keyOnToken(t, u, timeout)
		if err != nil {
			t.close()
			return nil, err
		}
		return &Signer{Signer: s, Public: s.pub, Ref: uri}, nil
	})
}

// keyOnToken finds the one private key the URI names, checks it is an Ed25519
// signing key, and reads its public key.
func keyOnToken(t *tokenSession, u *PKCS11URI, timeout time.Duration) (*pkcs11Signer, error) {
	fail := func(err error, hint string) error {
		return &PKCS11Error{URI: t.uri, Call: "finding the key", Err: err, Hint: hint}
	}
	objs, err := t.find(privateKeyTemplate(u), 1)
	if err != nil {
		return nil, t.fail("finding the key", err)
	}
	switch {
	case len(objs) == 0 && !t.loggedIn && t.info.Flags&pkcs11.CKF_LOGIN_REQUIRED != 0:
		return nil, fail(fmt.Errorf("%w: token %q shows its private keys only after a login", ErrPINNeeded, t.info.Label),
			"add pin-source=FILE to the URI's query (a file only you can read, holding the user PIN)")
	case len(objs) == 0:
		return nil, fail(fmt.Errorf("%w: none with %s on token %q (its private keys: %s)", ErrNoTokenKey, describeKey(u), t.info.Label, t.privateLabels()),
			"name the key with object= (its label) or id=; `bundle keys generate --pkcs11` creates one")
	case len(objs) > 1:
		return nil, fail(fmt.Errorf("%w: more than one has %s on token %q", ErrNoTokenKey, describeKey(u), t.info.Label), "add id= to the URI to pick one")
	}
	key := objs[0]
	if err := checkSigningKey(t, key); err != nil {
		return nil, fail(err, "the key must be Ed25519 (CKK_EC_EDWARDS on curve edwards25519): create one with `bundle keys generate --pkcs11 URI --key-id ID`")
	}
	pub, err := publicOnToken(t, key)
	if err != nil {
		return nil, &PKCS11Error{URI: t.uri, Call: "reading the public key", Err: err, Hint: "the public key object (CKO_PUBLIC_KEY with the private key's CKA_ID) must stay on the token: certcut checks signatures and prints the discovery entry from it"}
	}
	if info, err := t.mod.ctx.GetMechanismInfo(t.slot, []*pkcs11.Mechanism{pkcs11.NewMechanism(ckmEdDSA, nil)}); err != nil || info.Flags&pkcs11.CKF_SIGN == 0 {
		if err == nil {
			err = errors.New("CKF_SIGN not set")
		}
		return nil, &PKCS11Error{URI: t.uri, Call: "checking the mechanism", Err: fmt.Errorf("the token does not sign with CKM_EDDSA (pure Ed25519): %v", err), Hint: "use a token that does (SoftHSM 2.6, YubiHSM 2, YubiKey 5.7 or later)"}
	}
	always := bytes.Equal(t.attr(key, ckaAlwaysAuthenticate), []byte{1})
	if always && !t.hasPIN {
		return nil, fail(fmt.Errorf("%w: the key asks for the PIN at every signature (CKA_ALWAYS_AUTHENTICATE)", ErrPINNeeded), "add pin-source=FILE to the URI's query")
	}
	return &pkcs11Signer{t: t, key: key, pub: pub, alwaysPIN: always, timeout: timeout, uri: t.uri}, nil
}

func describeKey(u *PKCS11URI) string {
	var parts []string
	if u.Object != "" {
		parts = append(parts, fmt.Sprintf("object=%q", u.Object))
	}
	if u.ID != nil {
		parts = append(parts, fmt.Sprintf("id=%x", u.ID))
	}
	return strings.Join(parts, " and ")
}

// checkSigningKey refuses a private key that is not an Ed25519 signing key.
func checkSigningKey(t *tokenSession, key pkcs11.ObjectHandle) error {
	kt, ok := ulong(t.attr(key, pkcs11.CKA_KEY_TYPE))
	if !ok {
		return fmt.Errorf("the token does not say the key's type (CKA_KEY_TYPE)")
	}
	if kt != ckkECEdwards {
		return fmt.Errorf("%w: the token key is %s", ErrNotEd25519, keyTypeName(kt))
	}
	if err := checkEdwardsParams(t.attr(key, pkcs11.CKA_EC_PARAMS)); err != nil {
		return err
	}
	if sign := t.attr(key, pkcs11.CKA_SIGN); sign != nil && !bytes.Equal(sign, []byte{1}) {
		return errors.New("the key may not sign (CKA_SIGN is false)")
	}
	return nil
}

// publicOnToken reads the public key of a private key: the CKA_EC_POINT of the
// public key object with the same CKA_ID (or, without an id, the same label),
// else the private key's own CKA_PUBLIC_KEY_INFO (PKCS#11 v3.0).
func publicOnToken(t *tokenSession, key pkcs11.ObjectHandle) (ed25519.PublicKey, error) {
	tmpl := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PUBLIC_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, ckkECEdwards),
	}
	if id := t.attr(key, pkcs11.CKA_ID); len(id) > 0 {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_ID, id))
	} else if label := t.attr(key, pkcs11.CKA_LABEL); len(label) > 0 {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_LABEL, label))
	} else {
		tmpl = nil
	}
	var found ed25519.PublicKey
	if tmpl != nil {
		objs, err := t.find(tmpl, 8)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if err := checkEdwardsParams(t.attr(o, pkcs11.CKA_EC_PARAMS)); err != nil {
				return nil, err
			}
			pub, err := decodeECPoint(t.attr(o, pkcs11.CKA_EC_POINT))
			if err != nil {
				return nil, err
			}
			if found != nil && !found.Equal(pub) {
				return nil, errors.New("two public key objects share the key's id and hold different keys; remove the stray one")
			}
			found = pub
		}
	}
	if found != nil {
		return found, nil
	}
	if spki := t.attr(key, ckaPublicKeyInfo); len(spki) > 0 {
		pub, err := x509.ParsePKIXPublicKey(spki)
		if err != nil {
			return nil, fmt.Errorf("the key's CKA_PUBLIC_KEY_INFO does not parse: %v", err)
		}
		if ed, ok := pub.(ed25519.PublicKey); ok {
			return ed, nil
		}
		return nil, fmt.Errorf("%w: the key's CKA_PUBLIC_KEY_INFO holds %T", ErrNotEd25519, pub)
	}
	return nil, errors.New("the token holds no public key object for the key (CKO_PUBLIC_KEY with its CKA_ID) and the key has no CKA_PUBLIC_KEY_INFO")
}

// generatePKCS11 creates an Ed25519 key pair on the token u names, labelled
// label, and returns a signer over it.
func generatePKCS11(ctx context.Context, u *PKCS11URI, label string, timeout time.Duration) (*Signer, error) {
	id := u.ID
	if id == nil {
		id = make([]byte, 16)
		if _, err := rand.Read(id); err != nil {
			return nil, err
		}
	}
	named := *u
	named.Object, named.ID = label, id
	// The key's URI names it by label (unique on the token: checked below), and
	// by id only when the caller chose one.
	shown := *u
	shown.Object = label
	uri := shown.String()
	return withinToken(ctx, timeout, uri, "generating the key", func() (*Signer, error) {
		t, err := openToken(u, true)
		if err != nil {
			return nil, err
		}
		t.uri = uri
		ok := false
		defer func() {
			if !ok {
				t.close()
			}
		}()
		if !t.loggedIn {
			return nil, &PKCS11Error{URI: uri, Call: "generating the key", Err: fmt.Errorf("%w: creating a private key needs a login", ErrPINNeeded), Hint: "add pin-source=FILE to the URI's query"}
		}
		for _, tmpl := range [][]*pkcs11.Attribute{
			{pkcs11.NewAttribute(pkcs11.CKA_LABEL, label)},
			{pkcs11.NewAttribute(pkcs11.CKA_ID, id)},
		} {
			objs, err := t.find(tmpl, 1)
			if err != nil {
				return nil, t.fail("looking for an existing key", err)
			}
			if len(objs) > 0 {
				return nil, &PKCS11Error{URI: uri, Call: "generating the key", Err: fmt.Errorf("%w (token %q, label %q)", ErrTokenKeyExists, t.info.Label, label),
					Hint: "a token key is never replaced (bundles it signed need it published): pick a new --key-id, or retire the old key with `bundle keys retire`"}
			}
		}
		priv, pubObj, err := generateEdwards(t, label, id)
		if err != nil {
			return nil, err
		}
		destroy := func() {
			_ = t.mod.ctx.DestroyObject(t.sh, priv)
			_ = t.mod.ctx.DestroyObject(t.sh, pubObj)
		}
		s, err := keyOnToken(t, &named, timeout)
		if err != nil {
			destroy()
			return nil, err
		}
		signer := &Signer{Signer: s, Public: s.pub, Ref: uri}
		if err := CheckSigner(signer); err != nil {
			destroy()
			return nil, err
		}
		ok = true
		return signer, nil
	})
}

// generateEdwards runs C_GenerateKeyPair with CKM_EC_EDWARDS_KEY_PAIR_GEN: a
// private key that is sensitive, never extractable, private and signs only (no
// decrypt, unwrap or derive). The
// curve is named by its OID, or by the name "edwards25519" for a token that
// wants that.
func generateEdwards(t *tokenSession, label string, id []byte) (pkcs11.ObjectHandle, pkcs11.ObjectHandle, error) {
	mech := []*pkcs11.Mechanism{pkcs11.NewMechanism(ckmECEdwardsKeyPairGen, nil)}
	var lastErr error
	for _, params := range [][]byte{ed25519OID, ed25519CurveName} {
		pubTmpl := []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PUBLIC_KEY),
			pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, ckkECEdwards),
			pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
			pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
			pkcs11.NewAttribute(pkcs11.CKA_ENCRYPT, false),
			pkcs11.NewAttribute(pkcs11.CKA_WRAP, false),
			pkcs11.NewAttribute(pkcs11.CKA_DERIVE, false),
			pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, params),
			pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
			pkcs11.NewAttribute(pkcs11.CKA_ID, id),
		}
		privTmpl := []*pkcs11.Attribute{
			pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY),
			pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, ckkECEdwards),
			pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
			pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
			pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
			pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false),
			pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
			pkcs11.NewAttribute(pkcs11.CKA_DECRYPT, false),
			pkcs11.NewAttribute(pkcs11.CKA_UNWRAP, false),
			pkcs11.NewAttribute(pkcs11.CKA_DERIVE, false),
			pkcs11.NewAttribute(pkcs11.CKA_LABEL, label),
			pkcs11.NewAttribute(pkcs11.CKA_ID, id),
		}
		pub, priv, err := t.mod.ctx.GenerateKeyPair(t.sh, mech, pubTmpl, privTmpl)
		if err == nil {
			return priv, pub, nil
		}
		lastErr = err
		code, _ := err.(pkcs11.Error)
		if !slices.Contains([]uint{pkcs11.CKR_ATTRIBUTE_VALUE_INVALID, pkcs11.CKR_CURVE_NOT_SUPPORTED, pkcs11.CKR_DOMAIN_PARAMS_INVALID, pkcs11.CKR_TEMPLATE_INCONSISTENT}, uint(code)) {
			break
		}
	}
	if code, _ := lastErr.(pkcs11.Error); uint(code) == ckrMechInvalid {
		return 0, 0, &PKCS11Error{URI: t.uri, Call: "generating the key", Err: fmt.Errorf("the token cannot generate Ed25519 keys (CKM_EC_EDWARDS_KEY_PAIR_GEN): %v", lastErr), Hint: "use a token that does (SoftHSM 2.6, YubiHSM 2, YubiKey 5.7 or later)"}
	}
	return 0, 0, t.fail("generating the key", lastErr)
}
