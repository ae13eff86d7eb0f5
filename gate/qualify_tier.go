package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/keys"
)

// tierCheck decides bundle.tier: the host tier of the origin of discovery.url,
// which no signature covers. It passes only when that origin is bound to the
// signed bundle — by the keyring entry of the key the signature verified under
// (keyringPin), by the git history of the committed file (BindByHistory), or by
// the --live fetch (withLive) — or, weaker, when the user accepts the unsigned
// URL (Config.TrustUnsignedOrigin). A keyring entry that pins the signing key to
// other origins FAILs it: the bundle claims another host's origin. Without an
// offline binder and with --live, the check stays BLOCKED until withLive settles
// it.
func (r *Repo) tierCheck(ctx context.Context, a *assessment) check {
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
	hb, err := r.historyOf(ctx).bind(a.entry.File, a.entry.Sha256)
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
// about. An index read while ctx was cancelled (its git processes killed) is
// returned but not kept.
func (r *Repo) historyOf(ctx context.Context) *historyIndex {
	r.historyMu.Lock()
	defer r.historyMu.Unlock()
	if r.history != nil {
		return r.history
	}
	{
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
		h := buildHistoryIndex(ctx, from, dirs, r.HistoryBase, bundleFacts(r.Entries))
		if ctx.Err() != nil {
			return h
		}
		r.history = h
	}
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
// the tier check from it when no offline binder held. Only assessOf calls it,
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
