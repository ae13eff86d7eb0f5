package mint

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
	if len(keyPEM) > 0 {
		text := string(keyPEM)
		add(text)
		add(strings.TrimSpace(text))
		var body []string
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "-----") {
				continue
			}
			body = append(body, line)
			add(line)
		}
		add(strings.Join(body, ""))
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

// Scrub replaces every occurrence of every secret in every string of v, member
// names included, with its RedactionMarker, and returns the new value and the JSON
// pointers (RFC 6901) of the strings it changed; a changed member name is reported
// as its pointer with " (member name)".
func Scrub(v bundle.Value, secrets []string) (bundle.Value, []string) {
	s := scrubber{secrets: secrets}
	out := s.value(v, "")
	return out, s.where
}

type scrubber struct {
	secrets []string
	where   []string
}

func (s *scrubber) str(in string) (string, bool) {
	out, hit := in, false
	for _, secret := range s.secrets {
		if strings.Contains(out, secret) {
			out = strings.ReplaceAll(out, secret, RedactionMarker(secret))
			hit = true
		}
	}
	return out, hit
}

func (s *scrubber) value(v bundle.Value, ptr string) bundle.Value {
	switch v.Kind() {
	case bundle.String:
		str, _ := v.Str()
		if out, hit := s.str(str); hit {
			s.where = append(s.where, pointerOrRoot(ptr))
			return bundle.StringValue(out)
		}
		return v
	case bundle.Array:
		items := v.Items()
		out := make([]bundle.Value, len(items))
		for i, item := range items {
			out[i] = s.value(item, ptr+"/"+strconv.Itoa(i))
		}
		return bundle.ArrayValue(out...)
	case bundle.Object:
		members := v.Members()
		out := make([]bundle.Member, len(members))
		for i, m := range members {
			name := m.Name
			if scrubbed, hit := s.str(name); hit {
				s.where = append(s.where, pointerOrRoot(ptr+"/"+escapePointer(name))+" (member name)")
				name = scrubbed
			}
			out[i] = bundle.Member{Name: name, Value: s.value(m.Value, ptr+"/"+escapePointer(m.Name))}
		}
		return bundle.ObjectValue(out...)
	}
	return v
}

func escapePointer(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
