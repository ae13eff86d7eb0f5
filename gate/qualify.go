package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

// A bundle's qualification is made in three parts: the assessment of the
// signed bundle and its checks (this file), the binding of its unsigned origin
// to a host tier (qualify_tier.go), and a colocated companion's pairing with its
// served-host bundle (qualify_pairing.go).

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
	// mu guards the computation of a cached assessment (assessOf), settled
	// says it is made.
	mu        sync.Mutex
	settled   bool
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

// assessOf returns the assessment of an entry, made exactly once per run
// however many requests ask at the same time: the offline checks and, with
// --live, the live check when every other check passes (withLive). Every
// request then reads the same settled assessment, whichever asked first; ctx
// serves the git subprocesses and the live fetch of the first to ask. An
// assessment made while ctx was cancelled is returned to that caller only and
// not kept: the next request makes it again (a cancelled git or fetch must
// not become a verdict of the run).
func (r *Repo) assessOf(ctx context.Context, e *Entry) *assessment {
	r.mu.Lock()
	slot, ok := r.assess[e]
	if !ok {
		slot = &assessment{entry: e}
		r.assess[e] = slot
	}
	r.mu.Unlock()
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.settled {
		return slot
	}
	a := r.assessNow(ctx, e)
	if a.liveCanDecide() {
		r.withLive(ctx, a)
	}
	if ctx.Err() != nil {
		return a
	}
	slot.settle(a)
	slot.settled = true
	return slot
}

// settle copies a computed assessment into the cached slot (its lock excepted).
func (a *assessment) settle(from *assessment) {
	a.entry, a.checks, a.companion, a.pairedP = from.entry, from.checks, from.companion, from.pairedP
	a.tier, a.tierName, a.origin, a.liveDone = from.tier, from.tierName, from.origin, from.liveDone
	a.tierListed, a.unbound, a.tierAwaitsLive = from.tierListed, from.unbound, from.tierAwaitsLive
}

func (r *Repo) assessNow(ctx context.Context, e *Entry) *assessment {
	a := &assessment{entry: e}
	if e.Bundle == nil {
		a.checks = []check{{id: CritVerified, title: "verifies", status: Fail, reason: "unreadable: " + errString(e.Err)}}
		return a
	}
	b := e.Bundle
	a.origin, _ = bundle.Origin(b.Discovery.URL)
	a.companion = IsCompanion(b)
	if a.companion {
		a.checks = append(a.checks, r.companionCheck(ctx, a))
	} else {
		a.checks = append(a.checks, verifiedCheck(e), r.keyCheck(e))
	}
	a.checks = append(a.checks, certifiedCheck(e), relaxationsCheck(b), guardCheck(b))
	a.checks = append(a.checks, r.declaredChecks(ctx, e)...)
	if !a.companion {
		a.checks = append(a.checks, r.tierCheck(ctx, a))
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

func relaxationsCheck(b *Facts) check {
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

func guardCheck(b *Facts) check {
	c := newCheck(CritGuard)
	for _, r := range b.Host.Relaxations {
		if r.Obligation == profiles.EgressGuardObligation {
			c.status, c.reason = Fail, "the bundle declares the relaxation "+profiles.EgressGuardObligation+" (the loopback lane): the guard was open"
			return c
		}
	}
	for _, r := range b.Rows {
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
