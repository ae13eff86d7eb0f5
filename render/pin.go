package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/certcut/certcut/keys"
)

// Pin is what 'bundle keys trust' did to a keyring.
type Pin struct {
	Keyring string `json:"keyring"`
	Host    string `json:"host"`
	// Origin is the first of Origins ("" for none), kept for older readers.
	Origin          string           `json:"origin"`
	Origins         []string         `json:"origins"`
	Source          string           `json:"source"`
	Describe        string           `json:"-"`
	DiscoverySha256 string           `json:"discoverySha256"`
	Result          keys.TrustResult `json:"result"`
	// UnpinnedOrigin is the origin of a bundle's (unsigned) discovery.url when
	// it is not among Origins: gate will FAIL the bundle's tier.
	UnpinnedOrigin string `json:"unpinnedOrigin,omitempty"`
}

// WritePin says what was pinned, from where, and asks for a review.
func WritePin(w io.Writer, p *Pin) error {
	sw := SafeWriter(w)
	if p.Origins == nil {
		p.Origins = []string{}
	}
	fmt.Fprintf(sw, "keyring:   %s\n", Inline(p.Keyring))
	fmt.Fprintf(sw, "host:      %s %s\n", Inline(p.Host), Inline(orDash(strings.Join(p.Origins, ", "))))
	fmt.Fprintf(sw, "source:    %s\n", Inline(p.Describe))
	for _, l := range []struct {
		label string
		ids   []string
	}{{"added", p.Result.Added}, {"updated", p.Result.Updated}, {"unchanged", p.Result.Unchanged}} {
		if len(l.ids) > 0 {
			fmt.Fprintf(sw, "%-10s %s\n", l.label+":", Inline(strings.Join(l.ids, ", ")))
		}
	}
	if p.UnpinnedOrigin != "" {
		fmt.Fprintf(sw, "note:      the bundle's discovery.url names %s (not signed), which is not among the origins you pinned; gate will FAIL its tier\n", Inline(p.UnpinnedOrigin))
	}
	fmt.Fprintln(sw, "Review the keyring diff before committing it: pinning a key is granting trust.")
	return sw.(*safeWriter).err
}
