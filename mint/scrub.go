package mint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/certcut/certcut/bundle"
)

// Canary is the conformance secret canary (the BYOK fixture's credential name). A
// verifier can look for it without knowing any operator secret, so it is always
// scrubbed.
const Canary = "openwop-conformance-canary-secret"

// RedactionMarker returns what replaces a scrubbed secret: «redacted:» and the first
// 12 hex digits of the secret's SHA-256, the reference emitter's marker
// (certification-bundle-verify.ts redactionMarker). It is stable, so two
// occurrences of one secret are recognisably the same, and it does not contain the
// secret.
func RedactionMarker(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "«redacted:" + hex.EncodeToString(sum[:])[:12] + "»"
}

// secretEnvName matches the OPENWOP_* environment variables whose values are
// secrets (the reference evidenceSecretsFromEnv rule).
var secretEnvName = regexp.MustCompile(`KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL`)

// Secrets collects what must never enter evidence: the given values, the value of
// every OPENWOP_* environment variable whose name says KEY, TOKEN, SECRET, PASSWORD
// or CREDENTIAL, the signing key's PEM text (whole, and its base64 body), and the
// canary. Blank values are dropped (scrubbing "" would blank every string), and so
// is any value equal to an exempt one (the published key id). The result is sorted
// longest first, so a secret inside a longer one is never half-scrubbed.
func Secrets(given []string, env []string, keyPEM []byte, exempt ...string) []string {
	set := map[string]bool{}
	add := func(s string) {
		if strings.TrimSpace(s) != "" && !slices.Contains(exempt, s) {
			set[s] = true
		}
	}
	for _, s := range given {
		add(s)
	}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(name, "OPENWOP_") && secretEnvName.MatchString(name) {
			add(value)
			add(strings.TrimSpace(value))
		}
	}
	for _, s := range PEMSecrets(keyPEM) {
		add(s)
	}
	add(Canary)
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return out
}

// PEMSecrets returns the forms of a private key's PEM text that must never be
// published: the text whole and trimmed, each base64 line of its body, and the body
// joined. Nil for no PEM (a KMS key).
func PEMSecrets(pemText []byte) []string {
	if len(pemText) == 0 {
		return nil
	}
	text := string(pemText)
	out := []string{text, strings.TrimSpace(text)}
	var body []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "-----") {
			continue
		}
		body = append(body, line)
		out = append(out, line)
	}
	return append(out, strings.Join(body, ""))
}

// Scrub replaces every occurrence of every secret in every string of v, member
// names included, with its RedactionMarker, and returns the new value and the JSON
// pointers (RFC 6901) of the strings it changed; a changed member name is reported
// as its pointer with " (member name)". Pointers are into the scrubbed value: a
// member name that held a secret appears in them scrubbed, so the report never
// repeats the secret it removed.
func Scrub(v bundle.Value, secrets []string) (bundle.Value, []string) {
	s := newScrubber(secrets)
	out := s.value(v)
	return out, s.where
}

// ScrubText replaces every occurrence of every secret in text with its
// RedactionMarker: for messages that may quote input (an error naming a row id,
// say) before they are printed.
func ScrubText(text string, secrets []string) string {
	out, _ := newScrubber(secrets).str(text)
	return out
}

type scrubber struct {
	secrets []string
	// minimal are the secrets that contain no other secret, and shortest the
	// length of the shortest: every secret contains a minimal one, so a string
	// shorter than shortest, or holding no minimal secret, holds no secret.
	minimal  []string
	shortest int
	where    []string
	path     []pathToken // where the walk is; spelled as a pointer only for a hit
}

func newScrubber(secrets []string) *scrubber {
	s := &scrubber{secrets: secrets}
	for i, secret := range secrets {
		if i == 0 || len(secret) < s.shortest {
			s.shortest = len(secret)
		}
		if !slices.ContainsFunc(secrets, func(other string) bool {
			return other != secret && strings.Contains(secret, other)
		}) && !slices.Contains(s.minimal, secret) {
			s.minimal = append(s.minimal, secret)
		}
	}
	return s
}

// pathToken is a member name, or an array index when index >= 0.
type pathToken struct {
	name  string
	index int
}

// pointer spells the current path as a JSON pointer, "/" for the root.
func (s *scrubber) pointer() string {
	var sb strings.Builder
	for _, t := range s.path {
		sb.WriteByte('/')
		if t.index >= 0 {
			sb.WriteString(strconv.Itoa(t.index))
		} else {
			sb.WriteString(escapePointer(t.name))
		}
	}
	return pointerOrRoot(sb.String())
}

func (s *scrubber) str(in string) (string, bool) {
	if len(in) < s.shortest || len(s.secrets) == 0 || !slices.ContainsFunc(s.minimal, func(secret string) bool {
		return strings.Contains(in, secret)
	}) {
		return in, false
	}
	out, hit := in, false
	for _, secret := range s.secrets {
		if strings.Contains(out, secret) {
			out = strings.ReplaceAll(out, secret, RedactionMarker(secret))
			hit = true
		}
	}
	return out, hit
}

// value returns v scrubbed; v itself, sharing its memory, when nothing in it
// changed.
func (s *scrubber) value(v bundle.Value) bundle.Value {
	switch v.Kind() {
	case bundle.String:
		str, _ := v.Str()
		if out, hit := s.str(str); hit {
			s.where = append(s.where, s.pointer())
			return bundle.StringValue(out)
		}
		return v
	case bundle.Array:
		items := v.Items()
		var out []bundle.Value // made at the first change
		for i, item := range items {
			s.path = append(s.path, pathToken{index: i})
			sv := s.value(item)
			s.path = s.path[:len(s.path)-1]
			if out == nil && !same(sv, item) {
				out = make([]bundle.Value, len(items))
				copy(out, items[:i])
			}
			if out != nil {
				out[i] = sv
			}
		}
		if out == nil {
			return v
		}
		return bundle.ArrayValue(out...)
	case bundle.Object:
		members := v.Members()
		var out []bundle.Member // made at the first change
		for i, m := range members {
			name, hit := s.str(m.Name)
			s.path = append(s.path, pathToken{name: name, index: -1})
			if hit {
				s.where = append(s.where, s.pointer()+" (member name)")
			}
			sv := s.value(m.Value)
			s.path = s.path[:len(s.path)-1]
			if out == nil && (hit || !same(sv, m.Value)) {
				out = make([]bundle.Member, len(members))
				copy(out, members[:i])
			}
			if out != nil {
				out[i] = bundle.Member{Name: name, Value: sv}
			}
		}
		if out == nil {
			return v
		}
		return bundle.ObjectValue(out...)
	}
	return v
}

// same reports whether a scrubbed value is the value it came from (value returns
// its argument when nothing changed).
func same(a, b bundle.Value) bool {
	switch a.Kind() {
	case bundle.String:
		sa, _ := a.Str()
		sb, _ := b.Str()
		return b.Kind() == bundle.String && len(sa) == len(sb) && unsafe.StringData(sa) == unsafe.StringData(sb)
	case bundle.Array:
		ia, ib := a.Items(), b.Items()
		return b.Kind() == bundle.Array && len(ia) == len(ib) && (len(ia) == 0 || &ia[0] == &ib[0])
	case bundle.Object:
		ma, mb := a.Members(), b.Members()
		return b.Kind() == bundle.Object && len(ma) == len(mb) && (len(ma) == 0 || &ma[0] == &mb[0])
	}
	return true // numbers, booleans and null are never changed
}

// escapePointer escapes a JSON pointer token (RFC 6901).
func escapePointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// unescapePointer undoes escapePointer.
func unescapePointer(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// SecretInSignedError is a secret found in a member that a signature covers or the
// verifier re-derives (bundle.Signed, bundle.Derived): it cannot be scrubbed there
// without breaking witnessSha256, discovery.sha256 or a derived value, so the
// bundle must not be signed at all.
type SecretInSignedError struct {
	// Pointers are the places, as JSON pointers into the scrubbed bundle: a member
	// name that held the secret appears with the secret's RedactionMarker.
	Pointers []string
}

func (e *SecretInSignedError) Error() string {
	return fmt.Sprintf("a secret (the signing key, a --secret value, a secret OPENWOP_* variable or the conformance canary) is in signed content at %s: signing would publish it, and scrubbing it would break the digests the signature covers; re-mint the bundle (bundle mint --unsigned scrubs secrets; give it the same --secret values) and sign that", strings.Join(e.Pointers, ", "))
}

// ScrubUnbound scrubs an assembled bundle for signing: it replaces every secret in
// a member nothing binds (bundle.Unsigned: generatedAt, host.name, discovery.url,
// detail.nonPass…) with its RedactionMarker, and refuses with
// *SecretInSignedError when any secret is in a signed or derived member. It returns
// the scrubbed value and the places scrubbed, as Scrub does; the value is v itself
// when nothing was found.
func ScrubUnbound(v bundle.Value, secrets []string) (bundle.Value, []string, error) {
	out, where := Scrub(v, secrets)
	var bound []string
	for _, ptr := range where {
		if BindingAt(ptr) != bundle.Unsigned {
			bound = append(bound, ptr)
		}
	}
	if len(bound) > 0 {
		return v, nil, &SecretInSignedError{Pointers: bound}
	}
	return out, where, nil
}

// BindingAt returns how the member at a JSON pointer into a bundle is bound (see
// bundle.Bindings): the binding of the longest listed member path the pointer is in,
// array indexes read as "[]". A " (member name)" suffix, as Scrub reports, is
// ignored. A pointer under no listed member is Unsigned.
func BindingAt(ptr string) bundle.Binding {
	ptr = strings.TrimSuffix(ptr, " (member name)")
	segments := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var prefixes []string
	path := ""
	for _, seg := range segments {
		seg = unescapePointer(seg)
		if _, err := strconv.Atoi(seg); err == nil && path != "" {
			path += "[]"
		} else if path == "" {
			path = seg
		} else {
			path += "." + seg
		}
		prefixes = append(prefixes, path, strings.TrimSuffix(path, "[]"))
	}
	for i := len(prefixes) - 1; i >= 0; i-- {
		for _, b := range bundle.Bindings {
			if b.Member == prefixes[i] {
				return b.Binding
			}
		}
	}
	return bundle.Unsigned
}
