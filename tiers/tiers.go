// Package tiers reads OpenWOP's evidence/host-tiers.json (RFC 0220 §D): the
// acceptance evidence tier of each deployed host, keyed by the origin of the
// discovery URL its bundles name. An origin the file does not list is unknown and
// never qualifies: a side revision, a tunnel or a loopback host is not a deployed
// tier-2 host.
package tiers

import (
	"fmt"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// File is the parsed host-tiers.json.
type File struct {
	Schema  string `json:"$schema,omitempty"`
	Comment string `json:"$comment,omitempty"`
	Hosts   []Host `json:"hosts"`
	// Path is where the file was read from, for messages.
	Path string `json:"-"`
}

// Host is one row: a host, the origins it serves its discovery document from, its
// tier (1 steward-verified, 2 steward-affiliated, 3 independent) and the
// governance line that places it.
type Host struct {
	Name    string   `json:"name"`
	Origins []string `json:"origins"`
	Tier    int      `json:"tier"`
	Source  string   `json:"source,omitempty"`
}

// Match is the outcome of looking a bundle's discovery URL up.
type Match struct {
	// Origin is the discovery URL's origin (scheme://host[:port]).
	Origin string `json:"origin"`
	// Listed reports whether the file lists the origin; Host and Tier are set only then.
	Listed bool   `json:"listed"`
	Host   string `json:"host,omitempty"`
	Tier   int    `json:"tier,omitempty"`
}

// String reads "tier 1 (openwop-app)" or "not listed: unknown, never qualifies".
func (m Match) String() string {
	if !m.Listed {
		return "not listed in host-tiers.json: unknown, never qualifies"
	}
	return fmt.Sprintf("tier %d (%s)", m.Tier, m.Host)
}

// Load reads and parses a host-tiers.json file.
func Load(path string) (*File, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Path = path
	return f, nil
}

// Parse parses host-tiers.json: {"$comment"?, "hosts": [{name, origins[], tier,
// source?}]}, as strictly as a bundle (bundle.DecodeStrict): exact-case names,
// duplicate and unknown members refused, so a second "Tier" cannot override the
// "tier" a reviewer reads. A host without a name, origins, or a tier of at least 1
// is an error, and so is an origin listed twice.
func Parse(data []byte) (*File, error) {
	var f File
	if err := bundle.DecodeStrict(data, &f); err != nil {
		return nil, fmt.Errorf("not a host-tiers file: %w", err)
	}
	if f.Hosts == nil {
		return nil, fmt.Errorf(`not a host-tiers file: no "hosts" array`)
	}
	seen := map[string]string{}
	for i, h := range f.Hosts {
		if h.Name == "" || len(h.Origins) == 0 || h.Tier < 1 {
			return nil, fmt.Errorf("hosts[%d] needs a name, at least one origin and a tier ≥ 1", i)
		}
		for j, o := range h.Origins {
			norm, err := bundle.Origin(o)
			if err != nil {
				return nil, fmt.Errorf("hosts[%d].origins[%d]: %w", i, j, err)
			}
			f.Hosts[i].Origins[j] = norm
			if prev, dup := seen[norm]; dup {
				return nil, fmt.Errorf("hosts[%d].origins[%d]: origin %s is already listed for %s; an origin has one tier", i, j, norm, prev)
			}
			seen[norm] = h.Name
		}
	}
	return &f, nil
}

// Lookup finds the tier of the host whose origin is the discovery URL's origin.
// The error says the URL has no origin; an unlisted origin is a Match with
// Listed false.
func (f *File) Lookup(discoveryURL string) (Match, error) {
	origin, err := bundle.Origin(discoveryURL)
	if err != nil {
		return Match{}, err
	}
	for _, h := range f.Hosts {
		for _, o := range h.Origins {
			if o == origin {
				return Match{Origin: origin, Listed: true, Host: h.Name, Tier: h.Tier}, nil
			}
		}
	}
	return Match{Origin: origin}, nil
}
