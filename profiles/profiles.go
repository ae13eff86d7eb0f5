// Package profiles is the OpenWOP v2 profile registry (spec/v2/profiles.json): which
// profiles a discovery document derives, which profiles a relaxation denies, and the
// relaxations a run's rows reveal without declaring them. Minting and verification
// both call it, so a claim and its check can never disagree.
package profiles

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

//go:generate go run ./gen

//go:embed v2-profiles.json
var embeddedV2 []byte

// Registry is a profile registry as OpenWOP publishes it.
type Registry struct {
	Schema        string    `json:"$schema,omitempty"`
	Comment       string    `json:"$comment,omitempty"`
	GeneratedFrom string    `json:"generatedFrom,omitempty"`
	Profiles      []Profile `json:"profiles"`
	// Source says where the registry came from: "embedded" or a file path.
	Source string `json:"-"`
}

// Profile is one profile: a predicate over the discovery document and the floor
// scenarios that witness it.
type Profile struct {
	ID             string    `json:"id"`
	Summary        string    `json:"summary,omitempty"`
	Predicate      Predicate `json:"predicate"`
	FloorScenarios []string  `json:"floorScenarios"`
	RequirementIDs []string  `json:"requirementIds,omitempty"`
	Note           string    `json:"note,omitempty"`
}

// Predicate lists the root members a document must have: each family as a JSON
// object, each metadata key present with any value.
type Predicate struct {
	Families []string `json:"families,omitempty"`
	Metadata []string `json:"metadata,omitempty"`
}

// Default returns the embedded registry of the three v2 profiles.
//
// It is the file read by Parse, compiled in (default_gen.go, written by `go
// generate ./profiles`; a test holds the two equal), so that judging a bundle
// decodes no JSON policy file.
func Default() *Registry { return defaultRegistry() }

// Load reads a registry file such as spec/v2/profiles.json.
func Load(path string) (*Registry, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, fmt.Errorf("read profile registry: %w", err)
	}
	return Parse(data, path)
}

// LoadOrDefault is Load, or Default for an empty path: a command's --registry.
func LoadOrDefault(path string) (*Registry, error) {
	if path == "" {
		return Default(), nil
	}
	return Load(path)
}

// Parse reads a registry from JSON, as strictly as a bundle (bundle.DecodeStrict:
// exact-case names, duplicate and unknown members refused); source names it in
// messages.
func Parse(data []byte, source string) (*Registry, error) {
	var r Registry
	if err := bundle.DecodeStrict(data, &r); err != nil {
		return nil, fmt.Errorf("profile registry %s: %w", source, err)
	}
	if len(r.Profiles) == 0 {
		return nil, fmt.Errorf("profile registry %s lists no profiles (expected the shape of spec/v2/profiles.json)", source)
	}
	seen := map[string]bool{}
	for i, p := range r.Profiles {
		if p.ID == "" {
			return nil, fmt.Errorf("profile registry %s: profile %d has no id", source, i)
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("profile registry %s lists %s twice", source, p.ID)
		}
		seen[p.ID] = true
	}
	r.Source = source
	return &r, nil
}

// Profile returns the profile with the given id.
func (r *Registry) Profile(id string) (Profile, bool) {
	for _, p := range r.Profiles {
		if p.ID == id {
			return p, true
		}
	}
	return Profile{}, false
}

// Holds reports whether a discovery document satisfies the profile's predicate at
// major 2: every family a non-null, non-array object at the root, every metadata key
// present. An empty predicate holds for every document.
func (p Profile) Holds(doc bundle.Value) bool {
	for _, f := range p.Predicate.Families {
		if v, ok := doc.Get(f); !ok || v.Kind() != bundle.Object {
			return false
		}
	}
	for _, m := range p.Predicate.Metadata {
		if !doc.Has(m) {
			return false
		}
	}
	return true
}

// Derives reports whether the document derives the profile id; an id the registry
// does not list is never derived.
func (r *Registry) Derives(doc bundle.Value, id string) bool {
	p, ok := r.Profile(id)
	return ok && p.Holds(doc)
}

// Derived returns, in registry order, every profile the document derives.
func (r *Registry) Derived(doc bundle.Value) []string {
	var ids []string
	for _, p := range r.Profiles {
		if p.Holds(doc) {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// Family returns the family an obligation belongs to: its text before the first '.'
// ("webhooks.egress-guard" → "webhooks").
func Family(obligation string) string {
	family, _, _ := strings.Cut(obligation, ".")
	return family
}

// RelaxedBy returns the subset of ids, in order, that the obligations deny
// (profilesRelaxedBy): a profile is denied when its predicate lists an obligation's
// family, or when its id contains the family as a substring (kept for v1 aliases).
// The empty family (an obligation "" or ".egress-guard") is a substring of every
// id, so it denies every profile, as the reference's String.includes does: an
// obligation nobody can place relaxes everything rather than nothing. A nil
// registry applies the substring rule alone.
func (r *Registry) RelaxedBy(obligations, ids []string) []string {
	var denied []string
	for _, id := range ids {
		var families []string
		if r != nil {
			if p, ok := r.Profile(id); ok {
				families = p.Predicate.Families
			}
		}
		for _, o := range obligations {
			if denies(Family(o), id, families) {
				denied = append(denied, id)
				break
			}
		}
	}
	return denied
}

// denies reports whether a relaxation of family denies the profile id whose
// predicate lists families.
func denies(family, id string, families []string) bool {
	return strings.Contains(id, family) || slices.Contains(families, family)
}

// The one relaxation a run reveals without declaring it (UNDECLARED_RELAXATION_WITNESSES):
// the webhook egress guard is open when its refusal row fails.
const (
	EgressGuardRow        = "openwop.requirement.0171.webhook-egress-refused"
	EgressGuardObligation = "webhooks.egress-guard"
)

// ObservedRelaxations returns the obligations the rows show relaxed: today,
// webhooks.egress-guard when the egress-refusal row is executed-fail.
func ObservedRelaxations(rows []bundle.Row) []string {
	for i := range rows {
		if rows[i].ID == EgressGuardRow && rows[i].Result == bundle.ExecutedFail {
			return []string{EgressGuardObligation}
		}
	}
	return nil
}
