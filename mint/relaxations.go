package mint

import (
	"fmt"
	"io"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// Environment variables the reference CLI reads, read by certcut too.
const (
	EnvSigningKey    = "OPENWOP_BUNDLE_SIGNING_KEY"
	EnvSigningKeyID  = "OPENWOP_BUNDLE_SIGNING_KEY_ID"
	EnvVerifierKey   = "OPENWOP_BUNDLE_VERIFIER_KEY"
	EnvVerifierKeyID = "OPENWOP_BUNDLE_VERIFIER_KEY_ID"
	// EnvRelaxations holds declared relaxations as a JSON array (ParseRelaxations).
	EnvRelaxations = "OPENWOP_HOST_RELAXATIONS"
	// EnvOptOuts holds opted-out profiles, comma-separated.
	EnvOptOuts = "OPENWOP_OPTED_OUT_PROFILES"
)

// RelaxationSyntaxError is a relaxation written OBLIGATION:DURABILITY:REASON that
// does not read, or reads to a relaxation CheckRelaxation refuses.
type RelaxationSyntaxError struct {
	Text string
	Err  error
}

func (e *RelaxationSyntaxError) Error() string {
	return fmt.Sprintf("%q: %v", e.Text, e.Err)
}

func (e *RelaxationSyntaxError) Unwrap() error { return e.Err }

// ParseRelaxation reads one relaxation written OBLIGATION:DURABILITY:REASON (the
// reason may hold colons), and checks it (CheckRelaxation).
func ParseRelaxation(s string) (bundle.Relaxation, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 {
		return bundle.Relaxation{}, &RelaxationSyntaxError{Text: s, Err: fmt.Errorf("write OBLIGATION:DURABILITY:REASON, e.g. webhooks.egress-guard:deployment:loopback receiver only")}
	}
	r := bundle.Relaxation{Obligation: parts[0], Durability: parts[1], Reason: parts[2]}
	if err := CheckRelaxation(r); err != nil {
		return bundle.Relaxation{}, &RelaxationSyntaxError{Text: s, Err: err}
	}
	return r, nil
}

// ReadRelaxations reads a relaxations file (ParseRelaxations), at most
// limitedfile.MaxPolicy bytes; path "-" reads stdin.
func ReadRelaxations(path string, stdin io.Reader) ([]bundle.Relaxation, error) {
	data, err := limitedfile.ReadArg(path, stdin, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return ParseRelaxations(data)
}

// ParseRelaxations reads a JSON array of closed {obligation, durability, reason}
// objects, each checked (CheckRelaxation).
func ParseRelaxations(data []byte) ([]bundle.Relaxation, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if v.Kind() != bundle.Array {
		return nil, fmt.Errorf("expected a JSON array of {obligation, durability, reason}, found %s", v.Kind())
	}
	var out []bundle.Relaxation
	for i, item := range v.Items() {
		if item.Kind() != bundle.Object {
			return nil, fmt.Errorf("relaxation %d is %s, not an object", i+1, item.Kind())
		}
		var r bundle.Relaxation
		for _, m := range item.Members() {
			s, ok := m.Value.Str()
			if !ok {
				return nil, fmt.Errorf("relaxation %d: %s must be a string", i+1, m.Name)
			}
			switch m.Name {
			case "obligation":
				r.Obligation = s
			case "durability":
				r.Durability = s
			case "reason":
				r.Reason = s
			default:
				return nil, fmt.Errorf("relaxation %d: unknown member %q (a relaxation has obligation, durability, reason)", i+1, m.Name)
			}
		}
		if err := CheckRelaxation(r); err != nil {
			return nil, fmt.Errorf("relaxation %d: %v", i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Getenv looks name up in env, a KEY=VALUE list (os.Environ()).
func Getenv(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// RelaxationsFromEnv reads $OPENWOP_HOST_RELAXATIONS from env (a JSON array;
// none when unset or blank), as the reference CLI does when no relaxation is
// given otherwise.
func RelaxationsFromEnv(env []string) ([]bundle.Relaxation, error) {
	text := strings.TrimSpace(Getenv(env, EnvRelaxations))
	if text == "" {
		return nil, nil
	}
	rs, err := ParseRelaxations([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvRelaxations, err)
	}
	return rs, nil
}

// OptOutsFromEnv reads $OPENWOP_OPTED_OUT_PROFILES from env: profile names,
// comma-separated.
func OptOutsFromEnv(env []string) []string {
	var out []string
	for _, name := range strings.Split(Getenv(env, EnvOptOuts), ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}
