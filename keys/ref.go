package keys

import (
	"github.com/certcut/certcut/internal/lazyre"
	"net/url"
	"strings"
)

// A signing key reference (--key) may carry a secret: a PKCS#11 URI's pin-value,
// a KMS URI's user information or token parameter. A reference that is not what
// it was meant to be — " pkcs11:…" with a leading space, read as a file path;
// "pkcs11x:…;pin-value=…" — would otherwise be echoed in a "no such key file"
// error with the PIN in it. ShownRef is the only form of a reference any message
// prints, and LoadSigner's errors say nothing else.

// pinValue finds pin-value attributes in any spelling a reader might accept
// (its name percent-encoded, any case), with the value up to the next separator.
var pinValue = lazyre.New(`(?i)pin(?:-|%2d)value(?:=|%3d)([^&;?#\s]*)`)

// HasPINValue reports whether ref carries a pin-value anywhere, whether or not
// it parses as a PKCS#11 URI.
func HasPINValue(ref string) bool { return pinValue().MatchString(ref) }

// TrimRef returns ref without surrounding white space when what is left is a
// PKCS#11 URI, a KMS URI or an env: reference: white space is never part of
// those (a quoting slip in a CI file, "--key ' pkcs11:…'"), and read as a file
// path such a reference would be refused with a misleading error. A file path is
// returned as given.
func TrimRef(ref string) string {
	t := strings.TrimSpace(ref)
	if t != ref && (IsPKCS11(t) || IsKMS(t) || strings.HasPrefix(t, EnvPrefix)) {
		return t
	}
	return ref
}

// ShownRef returns a signing key reference as messages may print it: a PKCS#11
// URI without its pin-value (PKCS11URI.String); a URI with its user information
// and parameter values replaced by REDACTED; any other
// reference that carries a pin-value, or looks like key material, not at all; a
// file path or env:NAME as given.
func ShownRef(ref string) string {
	t := TrimRef(ref)
	if IsPKCS11(t) {
		if u, err := ParsePKCS11URI(t); err == nil {
			return u.String()
		}
	}
	switch {
	case LooksLikeKeyMaterial(t):
		return ShownArg(t)
	case HasPINValue(t):
		return "(a key reference that carries a pin-value: not shown)"
	case strings.Contains(t, "://"):
		return redactURI(strings.TrimSpace(t))
	}
	return ref
}

// redactURI returns a URI with its user information and the value of every
// query and fragment parameter replaced by REDACTED (a key URI's parameters are
// where a token would go; none is worth the risk of printing). A URI that does
// not parse is cut to its scheme.
func redactURI(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, _, _ := strings.Cut(raw, "://")
		return scheme + "://… (a URI that does not parse: not shown)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	u.RawQuery = redactParams(u.RawQuery)
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = redactParams(u.EscapedFragment()), ""
	}
	return u.String()
}

func redactParams(query string) string {
	if query == "" {
		return ""
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		if name, _, ok := strings.Cut(p, "="); ok {
			parts[i] = name + "=REDACTED"
		} else {
			parts[i] = "REDACTED"
		}
	}
	return strings.Join(parts, "&")
}

// refSecrets returns the secrets a reference carries, for scrubbing messages:
// pin-values, and a URI's password and parameter values.
func refSecrets(ref string) []string {
	var out []string
	for _, m := range pinValue().FindAllStringSubmatch(ref, -1) {
		out = append(out, m[1])
		if d, err := url.PathUnescape(m[1]); err == nil && d != m[1] {
			out = append(out, d)
		}
	}
	if _, rest, ok := strings.Cut(strings.TrimSpace(ref), "://"); ok {
		if u, err := url.Parse(strings.TrimSpace(ref)); err == nil {
			if u.User != nil {
				out = append(out, u.User.Username())
				if p, set := u.User.Password(); set {
					out = append(out, p)
				}
			}
			for _, vs := range u.Query() {
				out = append(out, vs...)
			}
		} else if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
			out = append(out, rest[:at])
		}
	}
	return out
}

// refError is an error whose message had a key reference's secrets removed;
// it unwraps to the original, so callers still tell failures apart.
type refError struct {
	msg string
	err error
}

func (e *refError) Error() string { return e.msg }
func (e *refError) Unwrap() error { return e.err }

// hideRef returns err with ref (as given and trimmed) replaced by ShownRef(ref)
// in its message, and any secret ref carries (4 characters or more: a shorter
// one would blot out unrelated text; the whole reference is gone already)
// replaced by REDACTED.
func hideRef(err error, ref string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := msg
	shown := ShownRef(ref)
	for _, r := range []string{ref, strings.TrimSpace(ref)} {
		if r != "" && r != shown {
			clean = strings.ReplaceAll(clean, r, shown)
		}
	}
	for _, s := range refSecrets(ref) {
		if len(s) >= 4 {
			clean = strings.ReplaceAll(clean, s, "REDACTED")
		}
	}
	if clean == msg {
		return err
	}
	return &refError{msg: clean, err: err}
}
