package mint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
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
var secretEnvName = lazyre.New(`KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL`)

// MinEnvSecretLen is the shortest value of a secret-named OPENWOP_* variable that
// is taken for a secret. Shorter values are settings (an algorithm name, a flag, a
// short id): scrubbing them would rewrite every place the same word appears, the
// discovery document included, and a credential is never that short. Explicit
// --secret values have no minimum.
const MinEnvSecretLen = 12

// commonWords are values of secret-named variables that are settings, not
// credentials, whatever their length: algorithm names and booleans (numbers are
// recognised by form). They are compared lower-cased.
var commonWords = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"enabled": true, "disabled": true, "none": true, "null": true,
	"ed25519": true, "ed448": true, "eddsa": true, "ecdsa": true, "rsa": true, "x25519": true,
	"es256": true, "es384": true, "es512": true, "rs256": true, "rs384": true, "rs512": true,
	"ps256": true, "ps384": true, "ps512": true, "hs256": true, "hs384": true, "hs512": true,
	"sha256": true, "sha-256": true, "sha384": true, "sha-384": true, "sha512": true, "sha-512": true,
	"p-256": true, "p-384": true, "p-521": true, "secp256k1": true, "rsa-pss": true, "rsassa-pss": true,
	"hmac-sha256": true, "hmac-sha512": true, "aes-256-gcm": true, "chacha20-poly1305": true,
	"ecdsa-p256-sha256": true, "ecdsa-p384-sha384": true, "rsa-pss-sha256": true, "ed25519-sha512": true,
}

// numberForm matches a value that is a number (a TTL, a port, a count).
var numberForm = lazyre.New(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// notASecret says why the value of a secret-named environment variable is not
// taken for a secret, or "" when it is one.
func notASecret(value string) string {
	v := strings.TrimSpace(value)
	switch {
	case numberForm().MatchString(v):
		return "a number"
	case commonWords[strings.ToLower(v)]:
		return "an algorithm name or a boolean"
	case len(v) < MinEnvSecretLen:
		return fmt.Sprintf("%d characters, fewer than %d", len(v), MinEnvSecretLen)
	}
	return ""
}

// SecretSet is what must never enter evidence, with where each value came from,
// and notes on what was considered and left alone (never quoting a value).
type SecretSet struct {
	// Values are the secrets, longest first (see Secrets).
	Values []string
	// LeftAlone says, one note each, which candidate was not taken for a secret
	// and why: an environment value too short or a common word, a value the
	// discovery document publishes (DropPublished).
	LeftAlone []string
	// Published are the notes of DropPublished for secrets that came from the
	// signing key's PEM: a published private key, which the caller must warn of.
	Published []string
	from      map[string]string
}

// From names where a secret came from, never quoting it: "--secret", "the
// environment variable NAME", "the signing key", "the conformance canary".
func (s *SecretSet) From(value string) string { return s.from[value] }

// Secrets collects what must never enter evidence (see CollectSecrets) and
// returns the values alone, sorted longest first, so a secret inside a longer
// one is never half-scrubbed.
func Secrets(given []string, env []string, keyPEM []byte, exempt ...string) []string {
	return CollectSecrets(given, env, keyPEM, exempt...).Values
}

// CollectSecrets collects what must never enter evidence: the given values, the
// value of every OPENWOP_* environment variable whose name says KEY, TOKEN,
// SECRET, PASSWORD or CREDENTIAL — unless it is a setting rather than a
// credential (shorter than MinEnvSecretLen, a number, or a common word such as
// an algorithm name or a boolean; LeftAlone notes it) — the signing key's PEM
// text (whole, and its base64 body), and the canary. Blank values are dropped
// (scrubbing "" would blank every string), and so is any value equal to an
// exempt one (the published key id). Given values keep no minimum: the caller
// named them.
func CollectSecrets(given []string, env []string, keyPEM []byte, exempt ...string) *SecretSet {
	out := &SecretSet{from: map[string]string{}}
	add := func(s, from string) {
		if strings.TrimSpace(s) == "" || slices.Contains(exempt, s) {
			return
		}
		if _, ok := out.from[s]; !ok {
			out.from[s] = from
		}
	}
	for _, s := range given {
		add(s, "a --secret value")
	}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "OPENWOP_") || !secretEnvName().MatchString(name) {
			continue
		}
		if strings.TrimSpace(value) == "" || slices.Contains(exempt, value) || slices.Contains(exempt, strings.TrimSpace(value)) {
			continue
		}
		if why := notASecret(value); why != "" {
			out.LeftAlone = append(out.LeftAlone, name+" ("+why+"): a setting, not a credential")
			continue
		}
		add(value, "the value of "+name)
		add(strings.TrimSpace(value), "the value of "+name)
	}
	for _, s := range PEMSecrets(keyPEM) {
		add(s, "the signing key's private key text")
	}
	add(Canary, "the conformance canary")
	out.sort()
	return out
}

func (s *SecretSet) sort() {
	s.Values = s.Values[:0]
	for v := range s.from {
		s.Values = append(s.Values, v)
	}
	slices.SortFunc(s.Values, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
}

// DropPublished removes from the set every secret that occurs in the discovery
// document doc (in a string or a member name), and notes each: the document is
// public by definition (it is served at /.well-known/openwop), so a value found
// there is not a secret, and it is left alone everywhere — in the document, which
// is never rewritten (its digest must stay the served document's), and in the
// rows. at is the document's JSON pointer in the bundle, for the notes. A nil
// doc drops nothing.
func (s *SecretSet) DropPublished(doc *bundle.Value, at string) {
	if doc == nil || len(s.Values) == 0 {
		return
	}
	sc := newScrubber(s.Values)
	if !sc.anyIn(*doc) {
		return // the common case: the walk below, with its pointers, finds nothing
	}
	found := map[string]string{} // secret -> first pointer
	var path []pathToken
	look := func(text string, suffix string) {
		if !sc.mayHold(text) {
			return
		}
		for _, secret := range s.Values {
			if _, seen := found[secret]; !seen && strings.Contains(text, secret) {
				found[secret] = at + pointerAt(path) + suffix
			}
		}
	}
	var walk func(v bundle.Value)
	walk = func(v bundle.Value) {
		switch v.Kind() {
		case bundle.String:
			str, _ := v.Str()
			look(str, "")
		case bundle.Array:
			for i, item := range v.Items() {
				path = append(path, pathToken{index: i})
				walk(item)
				path = path[:len(path)-1]
			}
		case bundle.Object:
			for _, m := range v.Members() {
				path = append(path, pathToken{name: m.Name, index: -1})
				look(m.Name, " (member name)")
				walk(m.Value)
				path = path[:len(path)-1]
			}
		}
	}
	walk(*doc)
	if len(found) == 0 {
		return
	}
	for _, secret := range s.Values { // longest first: a stable order
		ptr, ok := found[secret]
		if !ok {
			continue
		}
		from := s.from[secret]
		note := fmt.Sprintf("%s is published in the discovery document at %s: the document is public, so it is not a secret; not scrubbed anywhere", from, strings.TrimSuffix(ptr, "/"))
		s.LeftAlone = append(s.LeftAlone, note)
		if strings.HasPrefix(from, "the signing key") {
			s.Published = append(s.Published, note)
		}
		delete(s.from, secret)
	}
	s.sort()
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
	s.root = v
	out, _ := s.value(v)
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
	// grams holds (hashed) every eight bytes a minimal secret has at an offset
	// below stride. A minimal secret in a string covers a multiple of stride
	// (stride is shortest−7) with the eight bytes there: a string in which none
	// of the eight bytes at 0, stride, 2·stride… are in grams holds no secret.
	// nil when secrets are too short for the test to pay.
	grams  *gramSet
	stride int
	where  []string
	root   bundle.Value
	path   []int // the index of each item or member the walk is in, from root
}

// gramBytes is how many bytes the sampled test looks at, at each place: eight,
// so that a secret made of words common in the evidence ("openwop-…", the
// canary) seldom matches where those words merely start.
const gramBytes = 8

// gramSet is a set of hashed eight-byte strings: a member may be a false one,
// never a missing one.
type gramSet [1 << 13 / 64]uint64

func gramHash(b string) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(b), gramBytes)) * 0x9E3779B97F4A7C15 >> (64 - 13)
}

func (g *gramSet) add(b string)      { h := gramHash(b); g[h/64] |= 1 << (h % 64) }
func (g *gramSet) has(b string) bool { h := gramHash(b); return g[h/64]&(1<<(h%64)) != 0 }

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
	if s.shortest >= 2*gramBytes { // a stride of at least 9
		s.grams, s.stride = new(gramSet), s.shortest-gramBytes+1
		for _, secret := range s.minimal {
			for o := 0; o < s.stride; o++ {
				s.grams.add(secret[o:])
			}
		}
	}
	return s
}

// mayHold reports whether text may hold a secret; false means it holds none.
func (s *scrubber) mayHold(text string) bool {
	if len(text) < s.shortest || len(s.secrets) == 0 {
		return false
	}
	if s.grams != nil {
		for j := 0; j+gramBytes <= len(text); j += s.stride {
			if s.grams.has(text[j:]) {
				return true
			}
		}
		return false
	}
	return true
}

// anyIn reports whether a string or a member name in v holds one of the
// secrets: the same test as the scrub's, without keeping a path.
func (s *scrubber) anyIn(v bundle.Value) bool {
	holds := func(text string) bool {
		return s.mayHold(text) && slices.ContainsFunc(s.minimal, func(secret string) bool { return strings.Contains(text, secret) })
	}
	switch v.Kind() {
	case bundle.String:
		str, _ := v.Str()
		return holds(str)
	case bundle.Array:
		for _, item := range v.Items() {
			if !s.inert(item) && s.anyIn(item) {
				return true
			}
		}
	case bundle.Object:
		for _, m := range v.Members() {
			if holds(m.Name) || !s.inert(m.Value) && s.anyIn(m.Value) {
				return true
			}
		}
	}
	return false
}

// pathToken is a member name, or an array index when index >= 0.
type pathToken struct {
	name  string
	index int
}

// pointerAt spells a path as a JSON pointer, "/" for the root.
func pointerAt(path []pathToken) string {
	var sb strings.Builder
	for _, t := range path {
		sb.WriteByte('/')
		if t.index >= 0 {
			sb.WriteString(strconv.Itoa(t.index))
		} else {
			sb.WriteString(escapePointer(t.name))
		}
	}
	return pointerOrRoot(sb.String())
}

// pointer spells where the walk is as a JSON pointer, member names scrubbed.
// The walk keeps only the index of each item or member it is in (no name, so
// stepping costs no pointer write); the names are read back from the root.
func (s *scrubber) pointer() string {
	path := make([]pathToken, len(s.path))
	cur := s.root
	for i, idx := range s.path {
		if cur.Kind() == bundle.Array {
			path[i] = pathToken{index: idx}
			cur = cur.Items()[idx]
			continue
		}
		m := cur.Members()[idx]
		name, _ := s.str(m.Name)
		path[i] = pathToken{name: name, index: -1}
		cur = m.Value
	}
	return pointerAt(path)
}

func (s *scrubber) str(in string) (string, bool) {
	if !s.mayHold(in) || !slices.ContainsFunc(s.minimal, func(secret string) bool {
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

// inert reports whether v holds no secret without looking further: a number, a
// boolean, null, or a string shorter than the shortest secret.
func (s *scrubber) inert(v bundle.Value) bool {
	switch v.Kind() {
	case bundle.Array, bundle.Object:
		return false
	case bundle.String:
		return v.Len() < s.shortest
	}
	return true
}

// value returns v scrubbed, and whether anything in it changed: v itself,
// sharing its memory, when nothing did.
func (s *scrubber) value(v bundle.Value) (bundle.Value, bool) {
	switch v.Kind() {
	case bundle.String:
		str, _ := v.Str()
		if len(str) < s.shortest {
			break
		}
		if out, hit := s.str(str); hit {
			s.where = append(s.where, s.pointer())
			return bundle.StringValue(out), true
		}
	case bundle.Array:
		items := v.Items()
		var out []bundle.Value // made at the first change
		for i := range items {
			sv, changed := items[i], false
			if !s.inert(sv) {
				s.path = append(s.path, i)
				sv, changed = s.value(sv)
				s.path = s.path[:len(s.path)-1]
			}
			if changed && out == nil {
				out = make([]bundle.Value, len(items))
				copy(out, items[:i])
			}
			if out != nil {
				out[i] = sv
			}
		}
		if out != nil {
			return bundle.ArrayValue(out...), true
		}
	case bundle.Object:
		members := v.Members()
		var out []bundle.Member // made at the first change
		for i := range members {
			s.path = append(s.path, i)
			name, hit := members[i].Name, false
			if len(name) >= s.shortest {
				name, hit = s.str(name)
			}
			if hit {
				s.where = append(s.where, s.pointer()+" (member name)")
			}
			sv, changed := members[i].Value, false
			if !s.inert(sv) {
				sv, changed = s.value(sv)
			}
			s.path = s.path[:len(s.path)-1]
			if (hit || changed) && out == nil {
				out = make([]bundle.Member, len(members))
				copy(out, members[:i])
			}
			if out != nil {
				out[i] = bundle.Member{Name: name, Value: sv}
			}
		}
		if out != nil {
			return bundle.ObjectValue(out...), true
		}
	}
	return v, false
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
