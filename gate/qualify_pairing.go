package gate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
)

// LegacyUnmarkedCompanions are companions committed before host.deployment existed,
// named by witnessSha256 and treated as marked (RFC 0216 §C.10).
var LegacyUnmarkedCompanions = map[string]string{
	"c1d336b74698e5c44895201893ae09c8d0017fe1b8ed0dfdbf87c3436c10068e": "openwop-app colocated companion, 2026-09-25 (suite 2.38.0), cut before RFC 0216 §B",
}

// IsCompanion reports whether a bundle is a colocated companion.
func IsCompanion(b *Facts) bool {
	if b == nil {
		return false
	}
	_, legacy := LegacyUnmarkedCompanions[b.WitnessSha256]
	return b.Host.Deployment == bundle.DeploymentColocatedCompanion || legacy
}

// companionCheck decides whether a colocated companion pairs with a qualifying,
// certified served-host bundle P (RFC 0216 §C.9): same host, same image digest,
// signed under a key P's discovery document publishes for certification bundles
// (verified through verify), and equivalent discovery documents.
func (r *Repo) companionCheck(ctx context.Context, a *assessment) check {
	c := newCheck(CritCompanion)
	comp := a.entry.Bundle
	if r.Anchors == nil {
		c.status, c.reason = Blocked, "no harness-trust-anchor list at "+r.AnchorsFile+": what a companion may witness cannot be decided"
		return c
	}
	if !allCertified(comp) {
		c.status, c.reason = Fail, "the companion is not certified, so it pairs with nothing"
		return c
	}
	var tried []string
	for _, p := range r.Entries {
		if p == a.entry || p.Bundle == nil || IsCompanion(p.Bundle) || !allCertified(p.Bundle) {
			continue
		}
		why := r.pairingFailures(a.entry, p)
		if len(why) == 0 {
			pa := r.assessOf(ctx, p)
			if !pa.qualifies() {
				tried = append(tried, fmt.Sprintf("%s pairs but does not qualify (%s)", p.File, firstN(pa.why(), 2)))
				continue
			}
			a.pairedP, a.tier, a.tierName = p, pa.tier, pa.tierName
			c.status, c.reason = Pass, fmt.Sprintf("pairs with %s (sha256 %s, tier %d): same host and image, signed under its published key %s, equivalent discovery; it witnesses only harness-trust-anchor rows", p.File, short(p.Sha256), pa.tier, comp.Signature.KeyID)
			return c
		}
		if !slices.Contains(why, "same-host") {
			tried = append(tried, fmt.Sprintf("%s: %s", p.File, strings.Join(why, ", ")))
		}
	}
	if _, legacy := LegacyUnmarkedCompanions[comp.WitnessSha256]; legacy {
		tried = append([]string{"the legacy unmarked companion (RFC 0216 §C.10)"}, tried...)
	}
	c.status = Fail
	if len(tried) == 0 {
		c.reason = "pairs with nothing: no certified bundle of the same host"
	} else {
		c.reason = "pairs with nothing: " + firstN(tried, 3)
	}
	return c
}

func allCertified(b *Facts) bool {
	if len(b.ClaimedProfiles) == 0 {
		return false
	}
	for _, p := range b.ClaimedProfiles {
		if !p.Certified {
			return false
		}
	}
	return true
}

// pairingFailures lists why p cannot be the companion's pair (empty: it pairs).
func (r *Repo) pairingFailures(ce, pe *Entry) []string {
	comp, p := ce.Bundle, pe.Bundle
	var why []string
	if comp.Host.Name != p.Host.Name || comp.Host.Vendor != p.Host.Vendor {
		why = append(why, "same-host")
	}
	cb, pb := comp.Host.Build, p.Host.Build
	if !(cb.Kind == bundle.BuildImageDigest && pb.Kind == bundle.BuildImageDigest && cb.ID != "" && cb.ID == pb.ID) {
		why = append(why, "same-image")
	}
	if len(why) > 0 {
		// The cheap conditions failed: the pair is out, and the costly ones (a full
		// verification, two canonicalisations) would only add reasons.
		return why
	}
	if !r.attributable(ce, pe) {
		why = append(why, "attributable")
	}
	if !r.equivalentDiscovery(ce, pe) {
		why = append(why, "equivalent-discovery")
	}
	return why
}

// attributable: the companion's key id is published by P for certification
// bundles, and the companion verifies under it with zero rejections.
func (r *Repo) attributable(ce, pe *Entry) bool {
	comp, p := ce.Bundle, pe.Bundle
	if comp.Signature == nil || p.Discovery.Document == nil {
		return false
	}
	published, _ := keys.SigningKeys(*p.Discovery.Document)
	var entry *keys.SigningKey
	for i := range published {
		if published[i].KeyID == comp.Signature.KeyID && published[i].Use == keys.UseCertificationBundle {
			entry = &published[i]
		}
	}
	if entry == nil {
		return false
	}
	pub, err := keys.ParseRawPublic(entry.PublicKey)
	if err != nil {
		return false
	}
	// One verification per companion and published key, however many served-host
	// bundles publish that key: many copies of one host cost one check each.
	cacheKey := ce.Sha256 + "|" + entry.KeyID + "|" + entry.PublicKey + "|" + entry.RetiredAt
	r.mu.Lock()
	v, ok := r.pairing[cacheKey]
	r.mu.Unlock()
	if !ok {
		// The entry keeps the companion's facts, not its tree: judge it whole.
		whole, err := r.Loader.Reload(ce)
		if err != nil {
			return false
		}
		opts := verify.Options{Registry: r.Loader.Options.Registry, VerifierKeys: r.Loader.Options.VerifierKeys, Keyring: r.Loader.Options.Keyring,
			HostKeys: keys.Set{{Key: pub, KeyID: entry.KeyID, Source: keys.SourceDiscovery, Origin: pe.File + " discovery.document", RetiredAt: entry.RetiredAt}}}
		v = verify.Bundle(whole, nil, opts)
		r.mu.Lock()
		r.pairing[cacheKey] = v
		r.mu.Unlock()
	}
	return len(v.Rejections) == 0 && v.SignatureVerified
}

// equivalentDiscovery compares the documents with each one's origin replaced by
// "<origin>" in every string and the oidc lane's issuers removed. Each entry's
// normalised form is computed once per run, however many pairs it is tried in.
func (r *Repo) equivalentDiscovery(a, b *Entry) bool {
	ca, okA := r.normalisedCanonical(a)
	cb, okB := r.normalisedCanonical(b)
	return okA && okB && ca == cb
}

func (r *Repo) normalisedCanonical(e *Entry) (string, bool) {
	r.mu.Lock()
	c, ok := r.normalised[e]
	r.mu.Unlock()
	if ok {
		return c, c != ""
	}
	if n, ok := normalisedDiscovery(e.Bundle); ok {
		if data, err := bundle.Canonical(n); err == nil {
			c = string(data)
		}
	}
	r.mu.Lock()
	r.normalised[e] = c
	r.mu.Unlock()
	return c, c != ""
}

func normalisedDiscovery(b *Facts) (bundle.Value, bool) {
	if b.Discovery.Document == nil {
		return bundle.Value{}, false
	}
	origin, _ := bundle.Origin(b.Discovery.URL)
	doc := replaceOrigin(*b.Discovery.Document, origin)
	if auth, ok := doc.Get("auth"); ok && auth.Kind() == bundle.Object {
		if lanes, ok := auth.Get("lanes"); ok && lanes.Kind() == bundle.Array {
			items := slices.Clone(lanes.Items())
			for i, l := range items {
				if name, _ := l.Get("lane"); l.Kind() == bundle.Object {
					if s, _ := name.Str(); s == "oidc" {
						items[i] = l.Without("issuers")
					}
				}
			}
			doc = doc.With("auth", auth.With("lanes", bundle.ArrayValue(items...)))
		}
	}
	return doc, true
}

func replaceOrigin(v bundle.Value, origin string) bundle.Value {
	switch v.Kind() {
	case bundle.String:
		s, _ := v.Str()
		if origin != "" && strings.Contains(s, origin) {
			return bundle.StringValue(strings.ReplaceAll(s, origin, "<origin>"))
		}
		return v
	case bundle.Array:
		items := make([]bundle.Value, len(v.Items()))
		for i, it := range v.Items() {
			items[i] = replaceOrigin(it, origin)
		}
		return bundle.ArrayValue(items...)
	case bundle.Object:
		ms := make([]bundle.Member, len(v.Members()))
		for i, m := range v.Members() {
			ms[i] = bundle.Member{Name: m.Name, Value: replaceOrigin(m.Value, origin)}
		}
		return bundle.ObjectValue(ms...)
	}
	return v
}
