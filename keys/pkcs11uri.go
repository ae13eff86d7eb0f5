package keys

import (
	"errors"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/certcut/certcut/internal/limitedfile"
)

// PKCS11Scheme starts a PKCS#11 URI (RFC 7512): pkcs11:token=…;object=…?module-path=….
const PKCS11Scheme = "pkcs11:"

// IsPKCS11 reports whether ref is a PKCS#11 URI (the scheme is case-insensitive).
func IsPKCS11(ref string) bool {
	return len(ref) >= len(PKCS11Scheme) && strings.EqualFold(ref[:len(PKCS11Scheme)], PKCS11Scheme)
}

// PKCS11URI is a parsed RFC 7512 URI naming one private key on one token, and how
// to reach it. certcut reads these attributes:
//
//	path (after "pkcs11:", ";"-separated):
//	  token, manufacturer, serial, model   match the token (CK_TOKEN_INFO)
//	  slot-id                              match the slot (a decimal number)
//	  object                               the key's label (CKA_LABEL)
//	  id                                   the key's id (CKA_ID), percent-encoded bytes
//	  type                                 "private" (or absent): certcut signs
//	query (after "?", "&"-separated):
//	  module-path   the absolute path of the token's PKCS#11 module (required)
//	  pin-source    a file holding the user PIN (a path or a file: URI)
//	  pin-value     the user PIN itself (only on a command line; see LoadSigner)
//
// Any other attribute (module-name, slot-description, library-*, vendor x-…), an
// attribute given twice, a query attribute in the path, or a malformed
// percent-encoding is an error: a URI certcut cannot honour in full matches
// nothing rather than something else.
//
// The PIN never leaves the value: String, the %v and %#v forms and every error
// print the URI without pin-value.
type PKCS11URI struct {
	Token, Manufacturer, Serial, Model string
	// SlotID is the slot-id attribute; HasSlotID says whether it was given.
	SlotID    uint
	HasSlotID bool
	Object    string
	ID        []byte
	// Type is "private" or empty.
	Type       string
	ModulePath string
	PINSource  string
	// pin is pin-value, behind a pointer: even a format verb that walks the
	// struct's fields prints an address, not the PIN.
	pin *secretPIN
}

type secretPIN struct{ value string }

// HasPINValue reports whether the URI carries pin-value.
func (u PKCS11URI) HasPINValue() bool { return u.pin != nil }

// GoString is String: a %#v of the URI shows no PIN either.
func (u PKCS11URI) GoString() string { return u.String() }

// PKCS11URIError is a URI that does not parse or that certcut cannot honour. Its
// message quotes the attribute name, never a value (a value could be a PIN).
type PKCS11URIError struct {
	Reason string
}

func (e *PKCS11URIError) Error() string {
	return "not a usable PKCS#11 URI: " + e.Reason + " (the form is pkcs11:token=LABEL;object=KEY?module-path=/path/to/module.so&pin-source=/path/to/pin-file)"
}

// ErrPINValueRecorded is a pin-value in a URI that did not come from the command
// line itself: LoadSigner returns it for a URI read from an environment variable,
// and a caller that reads a URI from anywhere else (a file, a bundle, a log) should
// refuse HasPINValue the same way. Whoever can read that place has the PIN;
// pin-source=FILE names a file holding it instead.
var ErrPINValueRecorded = errors.New("a pin-value is refused in a URI read from an environment variable or a file: anyone who can read it there has the PIN (CI logs print environments); put the PIN in a file only you can read and name it with pin-source=FILE")

var pathAttrs = map[string]bool{"token": true, "manufacturer": true, "serial": true, "model": true, "slot-id": true, "object": true, "id": true, "type": true}
var queryAttrs = map[string]bool{"module-path": true, "pin-source": true, "pin-value": true}

// ParsePKCS11URI parses an RFC 7512 URI (see PKCS11URI for what certcut reads).
// Errors are *PKCS11URIError and never quote a value.
func ParsePKCS11URI(s string) (*PKCS11URI, error) {
	if !IsPKCS11(s) {
		return nil, &PKCS11URIError{Reason: "it does not start with pkcs11:"}
	}
	rest := s[len(PKCS11Scheme):]
	for _, r := range rest {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("#\"<>\\^`{}", r) {
			return nil, &PKCS11URIError{Reason: "it holds a character a URI must percent-encode (a space, a control character, a non-ASCII letter or one of #\"<>\\^`{})"}
		}
	}
	path, query, _ := strings.Cut(rest, "?")
	u := &PKCS11URI{}
	seen := map[string]bool{}
	if err := eachAttr(path, ";", true, func(name, value string) error {
		if queryAttrs[name] {
			return fmt.Errorf("%s is a query attribute: put it after '?' (pkcs11:token=…;object=…?%s=…)", name, name)
		}
		if !pathAttrs[name] {
			shown := "a path attribute"
			if attrName().MatchString(name) {
				shown = "path attribute " + name
			}
			return fmt.Errorf("%s is not one certcut reads (token, manufacturer, serial, model, slot-id, object, id, type)", shown)
		}
		return u.setPath(name, value)
	}, seen); err != nil {
		return nil, err
	}
	// Names in the query are never quoted: a pin-value holding a raw '&' would
	// put part of the PIN where a name belongs.
	if err := eachAttr(query, "&", false, func(name, value string) error {
		if pathAttrs[name] {
			return fmt.Errorf("%s is a path attribute: put it before '?', separated by ';'", name)
		}
		switch name {
		case "module-path":
			if !filepath.IsAbs(value) {
				return errors.New("module-path must be an absolute path (RFC 7512 §2.3)")
			}
			u.ModulePath = value
		case "pin-source":
			if v, ok := strings.CutPrefix(value, "file:"); ok {
				v = strings.TrimPrefix(v, "//")
				if !strings.HasPrefix(v, "/") {
					return errors.New("pin-source as a file: URI must name an absolute path (file:/path/to/pin)")
				}
				value = v
			}
			if strings.HasPrefix(value, "|") {
				return errors.New("pin-source names a file; certcut runs no command to get a PIN")
			}
			u.PINSource = value
		case "pin-value":
			u.pin = &secretPIN{value: value}
		case "module-name":
			return errors.New("module-name is not supported: name the module file with module-path=/path/to/module.so")
		default:
			return errors.New("a query attribute is not one certcut reads (module-path, pin-source, pin-value; percent-encode '&' in a value as %26)")
		}
		return nil
	}, seen); err != nil {
		return nil, err
	}
	if u.PINSource != "" && u.pin != nil {
		return nil, &PKCS11URIError{Reason: "give pin-source or pin-value, not both"}
	}
	return u, nil
}

// eachAttr splits one part of a URI into name=value attributes, decodes each
// value and calls f. An empty part has no attributes. Errors quote a name only
// when quoteNames is set and the name looks like one (attrName).
func eachAttr(part, sep string, quoteNames bool, f func(name, value string) error, seen map[string]bool) error {
	if part == "" {
		return nil
	}
	for _, attr := range strings.Split(part, sep) {
		name, raw, ok := strings.Cut(attr, "=")
		if !ok || name == "" {
			return &PKCS11URIError{Reason: "an attribute has no name=value form (separate path attributes with ';', query attributes with '&')"}
		}
		name = strings.ToLower(name)
		shown := "an attribute"
		if attrName().MatchString(name) && (quoteNames || pathAttrs[name] || queryAttrs[name]) {
			shown = name
		}
		if seen[name] {
			return &PKCS11URIError{Reason: shown + " is given twice"}
		}
		seen[name] = true
		value, err := pctDecode(raw)
		if err != nil {
			return &PKCS11URIError{Reason: fmt.Sprintf("%s: %v", shown, err)}
		}
		if value == "" {
			return &PKCS11URIError{Reason: shown + " is empty"}
		}
		if err := f(name, value); err != nil {
			return &PKCS11URIError{Reason: err.Error()}
		}
	}
	return nil
}

// attrName is what an attribute name looks like; anything else is not quoted.
var attrName = lazyre.New(`^[a-z][a-z0-9-]{0,31}$`)

func (u *PKCS11URI) setPath(name, value string) error {
	switch name {
	case "token":
		u.Token = value
	case "manufacturer":
		u.Manufacturer = value
	case "serial":
		u.Serial = value
	case "model":
		u.Model = value
	case "slot-id":
		n, err := strconv.ParseUint(value, 10, 0)
		if err != nil {
			return errors.New("slot-id must be a decimal number")
		}
		u.SlotID, u.HasSlotID = uint(n), true
	case "object":
		u.Object = value
	case "id":
		u.ID = []byte(value)
	case "type":
		if value != "private" {
			return errors.New("type must be private (certcut signs with a private key) or absent")
		}
		u.Type = value
	}
	return nil
}

// pctDecode decodes RFC 3986 percent-encoding; a '%' not followed by two hex
// digits is an error.
func pctDecode(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
			return "", errors.New("a '%' not followed by two hex digits")
		}
		b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
		i += 2
	}
	return b.String(), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// pctEncode encodes every byte outside RFC 3986's unreserved set and the few
// characters RFC 7512 leaves unencoded in a value (":", "@", "/" in the query).
func pctEncode(s string, query bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == ':', c == '@':
			b.WriteByte(c)
		case query && c == '/':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// String returns the URI in a canonical form without pin-value: safe to print, to
// record as a key's origin, and to give back to LoadSigner (which then reads the
// PIN from pin-source, or logs in without one).
func (u PKCS11URI) String() string {
	var path []string
	add := func(name, v string) {
		if v != "" {
			path = append(path, name+"="+pctEncode(v, false))
		}
	}
	add("token", u.Token)
	add("manufacturer", u.Manufacturer)
	add("serial", u.Serial)
	add("model", u.Model)
	if u.HasSlotID {
		path = append(path, "slot-id="+strconv.FormatUint(uint64(u.SlotID), 10))
	}
	add("object", u.Object)
	if u.ID != nil {
		var id strings.Builder
		for _, c := range u.ID {
			fmt.Fprintf(&id, "%%%02X", c)
		}
		path = append(path, "id="+id.String())
	}
	add("type", u.Type)
	s := PKCS11Scheme + strings.Join(path, ";")
	var query []string
	if u.ModulePath != "" {
		query = append(query, "module-path="+pctEncode(u.ModulePath, true))
	}
	if u.PINSource != "" {
		query = append(query, "pin-source="+pctEncode(u.PINSource, true))
	}
	if len(query) > 0 {
		s += "?" + strings.Join(query, "&")
	}
	return s
}

// PINFileError is a pin-source file that cannot serve as one. Its message names
// the file, never its content.
type PINFileError struct {
	Path   string
	Reason string
}

func (e *PINFileError) Error() string {
	return fmt.Sprintf("pin-source %s: %s", e.Path, e.Reason)
}

// maxPIN bounds a pin-source file; PKCS#11 PINs are short (ulMaxPinLen).
const maxPIN = 1 << 10

// PIN returns the user PIN the URI gives: pin-value, or the first line of the
// pin-source file (which, like a private key file, must not be readable by group
// or others). ok is false when the URI gives none.
func (u *PKCS11URI) PIN() (pin string, ok bool, err error) {
	if u.pin != nil {
		return u.pin.value, true, nil
	}
	if u.PINSource == "" {
		return "", false, nil
	}
	info, err := os.Stat(u.PINSource)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", false, &PINFileError{Path: u.PINSource, Reason: "no such file"}
		}
		return "", false, &PINFileError{Path: u.PINSource, Reason: err.Error()}
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "", false, &PINFileError{Path: u.PINSource, Reason: fmt.Sprintf("readable by others (mode %04o); run `chmod 600 %s`", info.Mode().Perm(), u.PINSource)}
	}
	data, err := limitedfile.Read(u.PINSource, maxPIN)
	if err != nil {
		return "", false, &PINFileError{Path: u.PINSource, Reason: "cannot be read as a PIN file (a regular file of at most 1 KiB)"}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return "", false, &PINFileError{Path: u.PINSource, Reason: "its first line is empty; write the PIN on it"}
	}
	return line, true, nil
}
