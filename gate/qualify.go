package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

// LegacyUnmarkedCompanions are companions committed before host.deployment existed,
// named by witnessSha256 and treated as marked (RFC 0216 §C.10).
var LegacyUnmarkedCompanions = map[string]string{
	"c1d336b74698e5c44895201893ae09c8d0017fe1b8ed0dfdbf87c3436c10068e": "openwop-app colocated companion, 2026-09-25 (suite 2.38.0), cut before RFC 0216 §B",
}

// IsCompanion reports whether a bundle is a colocated companion.
func IsCompanion(b *bundle.Bundle) bool {
	if b == nil {
		return false
	}
	_, legacy := LegacyUnmarkedCompanions[b.WitnessSha256]
	return b.Host.Deployment == bundle.DeploymentColocatedCompanion || legacy
}

// check is one qualification check of one bundle.
type check struct {
	id RuleID
	// title is the rule's title, or a parameterised form of it (host tier N).
	title  string
	status Status
	reason string
}

// newCheck starts a check of the registered rule, under the rule's title.
func newCheck(id RuleID) check { return check{id: id, title: rule(id).Title} }

// criterion is the report line of a check on one bundle, made by its rule.
func (c check) criterion(ref BundleRef) Criterion {
	res := Result{Status: c.status, Reason: c.reason, Bundle: &ref}
	if r := rule(c.id); c.title != r.Title {
		res.Title = c.title
	}
	return rule(c.id).Criterion(res)
}

// assessment is whether one bundle may witness host-tier requirements.
type assessment struct {
	// once guards the computation of a cached assessment (assessOfCtx).
	once      sync.Once
	entry     *Entry
	checks    []check
	companion bool
	pairedP   *Entry
	tier      int
	tierName  string
	origin    string
	liveDone  bool
	// tierListed says the origin's listed tier, once the tier check got that far.
	tierListed string
	// unbound says, per offline binder, why it did not bind the origin.
	unbound []string
	// tierAwaitsLive: no offline binder held and --live is on; withLive settles
	// the tier check from the live fetch.
	tierAwaitsLive bool
}

func (a *assessment) qualifies() bool {
	for _, c := range a.checks {
		if c.status != Pass {
			return false
		}
	}
	return true
}

// liveCanDecide: every check passes, or the only one that does not is the tier
// check waiting for the live fetch to bind the origin.
func (a *assessment) liveCanDecide() bool {
	for _, c := range a.checks {
		if c.status != Pass && !(c.id == CritTier && a.tierAwaitsLive) {
			return false
		}
	}
	return true
}

// blockedOnly: every check that did not pass is BLOCKED.
func (a *assessment) blockedOnly() bool {
	blocked := false
	for _, c := range a.checks {
		if c.status == Fail {
			return false
		}
		blocked = blocked || c.status == Blocked
	}
	return blocked
}

func (a *assessment) why() []string {
	out := []string{}
	for _, c := range a.checks {
		if c.status != Pass {
			out = append(out, fmt.Sprintf("%s %s: %s", c.status, c.title, c.reason))
		}
	}
	return out
}

// assessOf returns the assessment of an entry, made once per run (cached).
func (r *Repo) assessOf(e *Entry) *assessment { return r.assessOfCtx(context.Background(), e) }

// assessOfCtx returns the assessment of an entry, made exactly once per run
// however many requests ask at the same time: the offline checks and, with
// --live, the live check when every other check passes (withLive). Every
// request then reads the same settled assessment, whichever asked first; ctx
// serves the live fetch of the first to ask.
func (r *Repo) assessOfCtx(ctx context.Context, e *Entry) *assessment {
	r.mu.Lock()
	slot, ok := r.assess[e]
	if !ok {
		slot = &assessment{entry: e}
		r.assess[e] = slot
	}
	r.mu.Unlock()
	slot.once.Do(func() {
		a := r.assessNow(e)
		if a.liveCanDecide() {
			r.withLive(ctx, a)
		}
		slot.settle(a)
	})
	return slot
}

// settle copies a computed assessment into the cached slot (its once excepted).
func (a *assessment) settle(from *assessment) {
	a.entry, a.checks, a.companion, a.pairedP = from.entry, from.checks, from.companion, from.pairedP
	a.tier, a.tierName, a.origin, a.liveDone = from.tier, from.tierName, from.origin, from.liveDone
	a.tierListed, a.unbound, a.tierAwaitsLive = from.tierListed, from.unbound, from.tierAwaitsLive
}

func (r *Repo) assessNow(e *Entry) *assessment {
	a := &assessment{entry: e}
	if e.Bundle == nil {
		a.checks = []check{{id: CritVerified, title: "verifies", status: Fail, reason: "unreadable: " + errString(e.Err)}}
		return a
	}
	b := e.Bundle
	a.origin, _ = bundle.Origin(b.Discovery.URL)
	a.companion = IsCompanion(b)
	if a.companion {
		a.checks = append(a.checks, r.companionCheck(a))
	} else {
		a.checks = append(a.checks, verifiedCheck(e), r.keyCheck(e))
	}
	a.checks = append(a.checks, certifiedCheck(e), relaxationsCheck(b), guardCheck(b))
	a.checks = append(a.checks, r.declaredChecks(e)...)
	if !a.companion {
		a.checks = append(a.checks, r.tierCheck(a))
	}
	return a
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func verifiedCheck(e *Entry) check {
	c := newCheck(CritVerified)
	v := e.Verdict
	switch {
	case v.Outcome == verify.Verified:
		c.status, c.reason = Pass, "VERIFIED — zero rejections, host signature checked under "+describeKey(v)+", certified list re-derived"
	case v.Outcome == verify.Rejected:
		c.status, c.reason = Fail, fmt.Sprintf("REJECTED — %d problem(s): %s", v.ProblemCount(), firstN(rejectionLines(v), 3))
	case v.RevokedKey != nil:
		c.status, c.reason = Fail, fmt.Sprintf("signed by %s, which keyring %s revokes since %s (%s); a revoked key never verifies", v.RevokedKey.KeyID, v.RevokedKey.Keyring, v.RevokedKey.RevokedAt, v.RevokedKey.Reason)
	case !v.SignatureVerified:
		c.status, c.reason = Blocked, fmt.Sprintf("signed by %s, but no trusted key names it (%s): pin it with `bundle keys trust --from-discovery` and pass --keyring, or pass a --host-key directory holding %s.pub.pem", v.Summary.SignatureKeyID, orDash(v.NoTrustedKey), v.Summary.SignatureKeyID)
	case v.RevokedVerifierKey != nil:
		c.status, c.reason = Fail, fmt.Sprintf("the independent tier is countersigned by %s, which keyring %s revokes since %s (%s); a revoked key never verifies", v.RevokedVerifierKey.KeyID, v.RevokedVerifierKey.Keyring, v.RevokedVerifierKey.RevokedAt, v.RevokedVerifierKey.Reason)
	case keyDatesOnly(v):
		c.status, c.reason = Pass, "zero rejections, host signature checked under "+describeKey(v)+", certified list re-derived; whether the key was in service when it signed is bundle.key's question"
	case onlyIndependent(v):
		c.status, c.reason = Blocked, "COHERENT — the independent verifier signature was not checked: pass --verifier-key"
	default:
		c.status, c.reason = Fail, "COHERENT, NOT INDEPENDENTLY VERIFIED — "+strings.Join(v.Unverified, "; ")
	}
	return c
}

// keyDatesOnly: the verdict is COHERENT only because of the key's dates at the
// signing time (verify.KeyDates), which bundle.key judges.
func keyDatesOnly(v *verify.Verdict) bool {
	return v.Outcome == verify.Coherent && v.SignatureVerified && v.KeyDates != nil &&
		len(v.Gaps) == 1 && v.HasOnlyGaps(verify.GapKeyDates)
}

func onlyIndependent(v *verify.Verdict) bool {
	if v.RevokedVerifierKey != nil {
		return false
	}
	return v.HasOnlyGaps(verify.GapIndependent)
}

func describeKey(v *verify.Verdict) string {
	k := v.HostKey
	if k == nil {
		return "(none)"
	}
	s := k.Fingerprint + " (" + k.Source
	if k.Origin != "" {
		s += " " + k.Origin
	}
	if k.Match == verify.MatchLoneKey {
		s += ", the only key given"
	}
	return s + ")"
}

// keyCheck: the host key is trusted, not revoked, and was in service when it
// signed, judged at the trusted time (verify.KeyDates): a key retired before a
// trusted token's time FAILs; a retired key with no trusted time at all is
// BLOCKED (only the unsigned generatedAt says it signed in time). With
// RequireTimestamp, a bundle without a trusted RFC 3161 token FAILs.
func (r *Repo) keyCheck(e *Entry) check { return keyCheckOf(e, r.RequireTimestamp) }

// keyCheckOf is bundle.key with requireTimestamp as --require-timestamp.
func keyCheckOf(e *Entry, requireTimestamp bool) check {
	c := newCheck(CritKey)
	v := e.Verdict
	keyID := v.Summary.SignatureKeyID
	st := v.SigningTime
	switch {
	case v.RevokedKey != nil:
		c.status, c.reason = Fail, fmt.Sprintf("key %s (%s) is revoked in keyring %s since %s: %s", keyID, v.RevokedKey.Fingerprint, v.RevokedKey.Keyring, v.RevokedKey.RevokedAt, v.RevokedKey.Reason)
		return c
	case v.HostKey == nil:
		why := v.NoTrustedKey
		if why == "" {
			why = "the bundle names no signing key"
		}
		c.status, c.reason = Blocked, fmt.Sprintf("no trusted key for %s: %s", orDash(keyID), why)
		return c
	case requireTimestamp && !st.Trusted():
		why := "no time-stamp token " + filepath.Base(e.File) + timestamp.HostSuffix + " beside it"
		if st.Token != "" {
			why = "its token " + st.Token + " does not count: " + st.TokenNotTrusted
		}
		c.status, c.reason = Fail, "--require-timestamp: no trusted RFC 3161 time: "+why+" (bundle timestamp FILE --tsa URL, and pass the TSA's certificate with --tsa-cert)"
		return c
	}
	signed := fmt.Sprintf("signed by %s, %s from %s", keyID, v.HostKey.Fingerprint, strings.TrimSpace(v.HostKey.Source+" "+v.HostKey.Origin))
	if st.Trusted() {
		signed += fmt.Sprintf("; signed by %s (rfc3161, TSA %s)", st.Time, st.TSA)
	}
	kd := v.KeyDates
	switch {
	case kd == nil:
		c.status, c.reason = Pass, signed
	case kd.Status == verify.KeyOutOfService:
		c.status, c.reason = Fail, kd.Reason
	case kd.Status == verify.KeyDatesSelfAsserted:
		c.status, c.reason = Blocked, kd.Reason
	default:
		c.status, c.reason = Pass, signed+"; "+kd.Reason
	}
	return c
}

func certifiedCheck(e *Entry) check {
	c := newCheck(CritCertified)
	b, v := e.Bundle, e.Verdict
	if len(b.ClaimedProfiles) == 0 {
		c.status, c.reason = Fail, "the bundle claims no profile"
		return c
	}
	var notMarked, withdrawn, ids []string
	for _, p := range b.ClaimedProfiles {
		ids = append(ids, p.ID)
		switch {
		case !p.Certified:
			notMarked = append(notMarked, p.ID)
		case !slices.Contains(v.CertifiedProfiles, p.ID):
			withdrawn = append(withdrawn, p.ID)
		}
	}
	switch {
	case len(notMarked) > 0:
		c.status, c.reason = Fail, "claimed but not certified: "+strings.Join(notMarked, ", ")
	case len(withdrawn) > 0:
		c.status, c.reason = Fail, "marked certified, but verify withdrew: "+strings.Join(withdrawn, ", ")
	default:
		c.status, c.reason = Pass, "certified: "+strings.Join(ids, ", ")
	}
	return c
}

func relaxationsCheck(b *bundle.Bundle) check {
	c := newCheck(CritRelaxations)
	if len(b.Host.Relaxations) == 0 {
		c.status, c.reason = Pass, "host.relaxations is absent or empty"
		return c
	}
	var obl []string
	for _, r := range b.Host.Relaxations {
		obl = append(obl, r.Obligation)
	}
	c.status, c.reason = Fail, "host.relaxations declares "+strings.Join(obl, ", ")
	return c
}

func guardCheck(b *bundle.Bundle) check {
	c := newCheck(CritGuard)
	for _, r := range b.Host.Relaxations {
		if r.Obligation == profiles.EgressGuardObligation {
			c.status, c.reason = Fail, "the bundle declares the relaxation "+profiles.EgressGuardObligation+" (the loopback lane): the guard was open"
			return c
		}
	}
	for _, r := range b.Results.Requirements {
		if r.ID == profiles.EgressGuardRow {
			if r.Result == bundle.ExecutedFail {
				c.status, c.reason = Fail, fmt.Sprintf("row %s is executed-fail: the guard was open (undeclared relaxation observed)", profiles.EgressGuardRow)
				return c
			}
			c.status, c.reason = Pass, fmt.Sprintf("no %s relaxation; row %s is %s", profiles.EgressGuardObligation, profiles.EgressGuardRow, r.Result)
			return c
		}
	}
	c.status, c.reason = Pass, fmt.Sprintf("no %s relaxation; row %s is absent (never executed-fail)", profiles.EgressGuardObligation, profiles.EgressGuardRow)
	return c
}

// tierCheck decides bundle.tier: the host tier of the origin of discovery.url,
// which no signature covers. It passes only when that origin is bound to the
// signed bundle — by the keyring entry of the key the signature verified under
// (keyringPin), by the git history of the committed file (BindByHistory), or by
// the --live fetch (withLive) — or, weaker, when the user accepts the unsigned
// URL (Config.TrustUnsignedOrigin). A keyring entry that pins the signing key to
// other origins FAILs it: the bundle claims another host's origin. Without an
// offline binder and with --live, the check stays BLOCKED until withLive settles
// it.
func (r *Repo) tierCheck(a *assessment) check {
	c := check{id: CritTier, title: fmt.Sprintf("host tier %d or higher", r.MinTier)}
	b := a.entry.Bundle
	switch {
	case r.Tiers == nil:
		c.status, c.reason = Blocked, "no host-tier table at "+r.TiersFile+": the tier of "+orDash(a.origin)+" cannot be decided"
		return c
	case a.origin == "":
		c.status, c.reason = Fail, fmt.Sprintf("discovery.url %q has no origin", b.Discovery.URL)
		return c
	}
	pin := r.keyringPin(a.entry)
	if pin.entry != nil && len(pin.entry.Host.PinnedOrigins()) > 0 && !pin.entry.Host.Pins(a.origin) {
		c.status, c.reason = Fail, fmt.Sprintf("discovery.url names origin %s, but keyring %s pins the signing key %s (%s) to %s: the bundle claims another host's origin (discovery.url is not signed)",
			a.origin, pin.keyring, pin.entry.KeyID, pin.fingerprint, strings.Join(pin.entry.Host.PinnedOrigins(), ", "))
		return c
	}
	h, err := r.Tiers.Lookup(b.Discovery.URL)
	if err != nil || !h.Listed {
		c.status, c.reason = Fail, fmt.Sprintf("origin %s is not listed in %s: an unknown host never qualifies", a.origin, r.Tiers.Path)
		return c
	}
	a.tier, a.tierName = h.Tier, h.Host
	if h.Tier < r.MinTier {
		c.status, c.reason = Fail, fmt.Sprintf("origin %s is tier %d (%s), below --min-tier %d", a.origin, h.Tier, h.Host, r.MinTier)
		return c
	}
	a.tierListed = fmt.Sprintf("origin %s is tier %d (%s) in %s", a.origin, h.Tier, h.Host, r.Tiers.Path)
	if pin.entry != nil {
		c.status, c.reason = Pass, fmt.Sprintf("%s; origin bound by keyring %s entry %s, which pins the signing key with it", a.tierListed, pin.keyring, pin.entry.KeyID)
		return c
	}
	a.unbound = []string{pin.why}
	// A history that refutes the URL (*HistoryEditError) and one that cannot be
	// read (*HistoryUnavailableError) both leave the origin unbound; the reason
	// says which.
	if dup := r.samePayloadOtherURL(a.entry); dup != nil {
		a.unbound = append(a.unbound, fmt.Sprintf("git: not consulted: %s carries the same signed payload with discovery.url %s, so the payload binds neither URL", dup.File, dup.Bundle.Discovery.URL))
		if r.Live {
			a.tierAwaitsLive = true
			c.status, c.reason = Blocked, a.tierListed+", but the origin is not bound yet: the --live fetch decides"
			return c
		}
		return r.unboundTier(a, c, "")
	}
	hb, err := r.historyOf().bind(a.entry.File, a.entry.Sha256)
	if err == nil {
		c.status, c.reason = Pass, fmt.Sprintf("%s; origin bound by git history: discovery.url unchanged since commit %s on the reviewed base %s added it with the signed payload (%d committed version(s) read)", a.tierListed, short(hb.Commit), ShortRev(r.HistoryBase), hb.Versions)
		return c
	}
	var unavailable *HistoryUnavailableError
	if errors.As(err, &unavailable) {
		a.unbound = append(a.unbound, "git: "+unavailable.Reason)
	} else {
		a.unbound = append(a.unbound, "git: "+err.Error())
	}
	if r.Live {
		a.tierAwaitsLive = true
		c.status, c.reason = Blocked, a.tierListed+", but the origin is not bound yet: the --live fetch decides"
		return c
	}
	return r.unboundTier(a, c, "")
}

// historyOf reads the history of the bundles directory and of Root/evidence
// once per run (buildHistoryIndex), for every bundle the git binder is asked
// about.
func (r *Repo) historyOf() *historyIndex {
	r.historyOnce.Do(func() {
		dirs := []string{}
		for _, d := range []string{r.BundlesDir, filepath.Join(r.Root, "evidence")} {
			if abs, err := filepath.Abs(d); err == nil && !slices.Contains(dirs, abs) {
				if info, err := os.Stat(abs); err == nil && info.IsDir() {
					dirs = append(dirs, abs)
				}
			}
		}
		from := r.BundlesDir
		if len(dirs) > 0 {
			from = dirs[0]
		}
		r.history = buildHistoryIndex(context.Background(), from, dirs, r.HistoryBase, bundleFacts(r.Entries))
	})
	return r.history
}

// samePayloadOtherURL returns another loaded bundle that carries e's signed
// payload under another discovery.url: a copy whose URL was changed, which no
// history of e's own file shows. The payloads are indexed once per run.
func (r *Repo) samePayloadOtherURL(e *Entry) *Entry {
	r.byPayloadOnce.Do(func() {
		r.byPayload = map[string][]*Entry{}
		for _, o := range r.Entries {
			if o.Bundle == nil {
				continue
			}
			if p, err := o.Bundle.Attestation(); err == nil {
				r.byPayload[string(p)] = append(r.byPayload[string(p)], o)
			}
		}
	})
	mine, err := e.Bundle.Attestation()
	if err != nil {
		return nil
	}
	for _, o := range r.byPayload[string(mine)] {
		if o != e && o.Bundle.Discovery.URL != e.Bundle.Discovery.URL {
			return o
		}
	}
	return nil
}

// unboundTier settles a tier check no binder held: PASS marked unsigned under
// --trust-unsigned-origin, else BLOCKED naming the remedy.
func (r *Repo) unboundTier(a *assessment, c check, live string) check {
	why := slices.Clone(a.unbound)
	if live != "" {
		why = append(why, "live: "+live)
	}
	if r.TrustUnsignedOrigin {
		c.status, c.reason = Pass, fmt.Sprintf("%s; the origin is UNSIGNED: discovery.url is taken as the bundle states it (--trust-unsigned-origin) though nothing binds it (%s)", a.tierListed, strings.Join(why, "; "))
		return c
	}
	c.status, c.reason = Blocked, fmt.Sprintf("%s, but discovery.url is not signed and nothing binds its origin (%s). Pin the signing key with that origin (bundle keys trust --from-bundle %s --origin %s --keyring FILE) and pass --keyring FILE, or run with --live",
		a.tierListed, strings.Join(why, "; "), a.entry.File, a.origin)
	return c
}

// keyPin is the keyring entry of the key a bundle's host signature verified
// under (matched by the key's bytes, whichever flag supplied it), or why there
// is none.
type keyPin struct {
	entry       *keys.KeyringEntry
	keyring     string
	fingerprint string
	why         string
}

func (r *Repo) keyringPin(e *Entry) keyPin {
	v := e.Verdict
	ring := r.Loader.Options.Keyring
	switch {
	case v == nil || !v.SignatureVerified || v.HostKey == nil:
		return keyPin{why: "keyring: the host signature was not verified under a trusted key"}
	case ring == nil:
		return keyPin{why: "keyring: none given"}
	}
	pub, err := keys.ParseRawPublic(v.HostKey.PublicKey)
	if err != nil {
		return keyPin{why: "keyring: " + err.Error()}
	}
	ke, ok := ring.ForKey(pub)
	switch {
	case !ok:
		return keyPin{why: fmt.Sprintf("keyring: %s does not pin the signing key %s", ring.Path, v.HostKey.Fingerprint)}
	case len(ke.Host.PinnedOrigins()) == 0:
		return keyPin{why: fmt.Sprintf("keyring: %s pins the signing key as %s with no origin", ring.Path, ke.KeyID)}
	}
	return keyPin{entry: &ke, keyring: ring.Path, fingerprint: v.HostKey.Fingerprint}
}

// companionCheck decides whether a colocated companion pairs with a qualifying,
// certified served-host bundle P (RFC 0216 §C.9): same host, same image digest,
// signed under a key P's discovery document publishes for certification bundles
// (verified through verify), and equivalent discovery documents.
func (r *Repo) companionCheck(a *assessment) check {
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
			pa := r.assessOf(p)
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

func allCertified(b *bundle.Bundle) bool {
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

func normalisedDiscovery(b *bundle.Bundle) (bundle.Value, bool) {
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

// liveResult is one live fetch, cached by URL.
type liveResult struct {
	sha string
	doc *bundle.Value // the live document, when fetched
	err error
}

// liveCheck compares the bundle's discovery.sha256 with the live document
// (Deployed, not merged).
func (r *Repo) liveCheck(ctx context.Context, e *Entry) check {
	c := newCheck(CritLive)
	b := e.Bundle
	url := b.Discovery.URL
	r.mu.Lock()
	res, ok := r.live[url]
	r.mu.Unlock()
	if !ok {
		major := b.Suite.TargetMajor
		doc, err := r.Fetch(ctx, url, major)
		res = liveResult{err: err}
		if err == nil {
			res.sha = doc.Sha256
			v := doc.Value
			res.doc = &v
		}
		r.mu.Lock()
		r.live[url] = res
		r.mu.Unlock()
	}
	switch {
	case res.err != nil:
		c.status, c.reason = Blocked, "could not fetch the live document: "+res.err.Error()
	case res.sha != b.Discovery.Sha256:
		c.status, c.reason = Fail, fmt.Sprintf("drifted: %s now hashes to %s, the bundle captured %s — the deployed revision is not the one this bundle measured (GOVERNANCE §\"Deployed, not merged\")", url, short(res.sha), short(b.Discovery.Sha256))
	default:
		c.status, c.reason = Pass, fmt.Sprintf("%s hashes to %s, as captured", url, short(res.sha))
	}
	return c
}

// withLive adds the live check to an assessment being made (once), and settles
// the tier check from it when no offline binder held. Only assessOfCtx calls it,
// before the assessment is shared.
func (r *Repo) withLive(ctx context.Context, a *assessment) {
	if !r.Live || a.liveDone || a.entry.Bundle == nil {
		return
	}
	a.liveDone = true
	target := a.entry
	if a.companion && a.pairedP != nil {
		target = a.pairedP // a companion is not internet-reachable; its pair is the deployment
	}
	live := r.liveCheck(ctx, target)
	a.checks = append(a.checks, live)
	if !a.tierAwaitsLive {
		return
	}
	a.tierAwaitsLive = false
	for i := range a.checks {
		if a.checks[i].id != CritTier {
			continue
		}
		canonical := a.origin + discovery.WellKnownPath
		switch {
		case live.status == Pass && target.Bundle.Discovery.URL == canonical:
			// The origin's own /.well-known/openwop hashes to the signed
			// discovery.sha256: that origin serves what the signed bundle captured.
			// That binds the origin to the signer only when the origin publishes
			// the key the signature verified under: a copy of another host's
			// public document signed with one's own key binds nothing.
			if why := r.livePublishesSigner(target); why != "" {
				a.checks[i] = r.unboundTier(a, a.checks[i], why)
				continue
			}
			a.checks[i].status, a.checks[i].reason = Pass, fmt.Sprintf("%s; origin bound by live fetch: %s", a.tierListed, live.reason)
		case live.status == Pass:
			// Any path of a host can serve a copy (a user's page, an upload): only
			// the origin's own well-known document speaks for the origin.
			a.checks[i] = r.unboundTier(a, a.checks[i], fmt.Sprintf("the live fetch binds an origin only through %s, and discovery.url is %s", canonical, target.Bundle.Discovery.URL))
		default:
			a.checks[i] = r.unboundTier(a, a.checks[i], fmt.Sprintf("the live fetch did not bind it (%s)", strings.ToLower(string(live.status))))
		}
	}
}

// livePublishesSigner says why the live document of the entry's discovery.url
// does not speak for its signer ("" when it does): the host signature must have
// verified under a key, and the live document must publish that key — the same
// key id with the same public key bytes — in signingKeys[].
func (r *Repo) livePublishesSigner(e *Entry) string {
	v := e.Verdict
	if v == nil || !v.SignatureVerified || v.HostKey == nil {
		return "the live fetch binds an origin only to a signature verified under a key the origin publishes, and the host signature was not verified"
	}
	want, err := keys.ParseRawPublic(v.HostKey.PublicKey)
	if err != nil {
		return "the live fetch binds nothing: the verifying key cannot be read (" + err.Error() + ")"
	}
	r.mu.Lock()
	res := r.live[e.Bundle.Discovery.URL]
	r.mu.Unlock()
	if res.doc != nil {
		published, _ := keys.SigningKeys(*res.doc)
		for _, k := range published {
			if k.KeyID != v.Summary.SignatureKeyID {
				continue
			}
			if pub, err := keys.ParseRawPublic(k.PublicKey); err == nil && pub.Equal(want) {
				return ""
			}
		}
	}
	return fmt.Sprintf("the live document of %s does not publish the key the signature verified under (%s, %s): the origin serves that document, but it does not vouch for this signer", e.Bundle.Discovery.URL, orDash(v.Summary.SignatureKeyID), v.HostKey.Fingerprint)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
