package verify

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/timestamp"
)

// SelfAssertedTime qualifies every comparison of a key's dates with generatedAt:
// the bundle's time is its own word. Verify reasons and gate reasons append it.
const SelfAssertedTime = "generatedAt, which no signature covers, is the bundle's own word, not a trusted time"

// tokenKinds maps a token's problem to its rejection kind.
var tokenKinds = map[timestamp.Problem]Kind{
	timestamp.Malformed:           KindTimestampMalformed,
	timestamp.WrongImprint:        KindTimestampImprint,
	timestamp.NoTimeStampingUsage: KindTimestampUsage,
	timestamp.Untrusted:           KindTimestampUntrusted,
}

// timestampRules: timestamp-malformed, timestamp-imprint, timestamp-usage,
// timestamp-untrusted. Each token that came with the bundle is checked against
// the signature it stamps; the host token, trusted, sets the signing time.
// Without one, the signing time is generatedAt, marked unsigned.
func (c *checker) timestampRules() {
	b := c.b
	c.v.SigningTime = SigningTime{Source: TimeGeneratedAt, Time: b.GeneratedAt}
	if f := c.ts.Host; f != nil {
		tok, why := c.checkToken("host", f, b.Signature)
		c.v.SigningTime = signingTime(b, f, tok, why)
		if tok != nil && tok.Trusted {
			c.hostToken = tok
		}
	}
	if f := c.ts.Verifier; f != nil {
		tok, why := c.checkToken("verifier", f, b.VerifierSignature)
		st := signingTime(b, f, tok, why)
		c.v.VerifierSigningTime = &st
		if tok != nil && tok.Trusted {
			c.verifierToken = tok
		}
	}
}

func signingTime(b *bundle.Bundle, f *timestamp.File, tok *timestamp.Token, why string) SigningTime {
	if tok == nil || !tok.Trusted {
		return SigningTime{Source: TimeGeneratedAt, Time: b.GeneratedAt, Token: f.Path, TokenNotTrusted: why}
	}
	st := SigningTime{Source: TimeRFC3161, Time: tok.Time.Format(time.RFC3339Nano), TSA: tok.TSA, TrustedBy: tok.Anchor, Serial: tok.Serial, Token: f.Path}
	if tok.Accuracy > 0 {
		st.Accuracy = tok.Accuracy.String()
	}
	return st
}

// checkToken checks one token against the signature it stamps (role "host" or
// "verifier"). A problem is a rejection; the token is returned when it is well
// formed, with why its time does not count when it is not trusted.
func (c *checker) checkToken(role string, f *timestamp.File, sig *bundle.Signature) (*timestamp.Token, string) {
	what := fmt.Sprintf("%s (the token of the %s signature)", f.Path, role)
	if sig == nil || sig.Sig == "" {
		c.reject(KindTimestampImprint, "", "%s: the bundle has no %s signature for it to stamp", what, role)
		return nil, "refused: the bundle has no " + role + " signature"
	}
	raw, err := keys.DecodeSignature(sig.Sig)
	if err != nil {
		c.reject(KindTimestampImprint, "", "%s: the %s signature cannot be decoded to match it: %v", what, role, err)
		return nil, "refused: the signature cannot be decoded"
	}
	tok, err := timestamp.Check(f.Reply, raw, c.opts.TSA)
	var te *timestamp.Error
	switch {
	case errors.As(err, &te):
		kind := tokenKinds[te.Problem]
		c.reject(kind, "", "%s: %s", what, te.Detail)
		return nil, "refused (" + string(kind) + ")"
	case err != nil:
		c.reject(KindTimestampMalformed, "", "%s: %v", what, err)
		return nil, "refused (" + string(KindTimestampMalformed) + ")"
	case !tok.Trusted:
		return tok, tok.Untrusted
	}
	return tok, ""
}

// keyDates judges the trusted host key's retiredAt and notBefore at the signing
// time, when the host signature verified under it. retiredAt comes from the
// key's source (a keyring, a discovery document given as --host-key) or, when
// that names none, from the bundle's own discovery document when it publishes
// the very key the signature verified under (discovery.sha256 is signed, so the
// document is the host's word once the signature verifies).
func (c *checker) keyDates() {
	k := c.v.HostKey
	if k == nil || !c.v.SignatureVerified {
		return
	}
	retired, notBefore := k.RetiredAt, k.NotBefore
	if a := c.v.SelfPublished; retired == "" && a.Outcome == AttributionVerifies && a.PublicKey == k.PublicKey {
		retired = a.RetiredAt
	}
	if retired == "" && notBefore == "" {
		return
	}
	kd := c.judgeKeyDates("key "+c.v.Summary.SignatureKeyID, retired, notBefore, c.hostToken, &c.v.SigningTime)
	c.v.KeyDates = kd
	if kd.Status != KeyInService {
		c.gap(GapKeyDates, kd.Reason)
	}
}

// verifierKeyDates judges the trusted verifier key's retiredAt and notBefore as
// keyDates judges the host key's: at the verifier token's trusted time when
// one came with the bundle, else by generatedAt and the clock. A verifier key
// out of service, or retired with no trusted time, does not carry the
// independent tier: when a profile claims it the verdict is at best COHERENT;
// otherwise the verifier signature vouches for nothing the verdict uses, and a
// note says so.
func (c *checker) verifierKeyDates() {
	k := c.v.VerifierKey
	if k == nil || !c.v.VerifierSignatureVerified || (k.RetiredAt == "" && k.NotBefore == "") {
		return
	}
	st := c.v.VerifierSigningTime
	if st == nil {
		st = &SigningTime{Source: TimeGeneratedAt, Time: c.b.GeneratedAt}
	}
	id := k.KeyID
	if vs := c.b.VerifierSignature; vs != nil && vs.KeyID != "" {
		id = vs.KeyID
	}
	kd := c.judgeKeyDates("verifier key "+id, k.RetiredAt, k.NotBefore, c.verifierToken, st)
	c.v.VerifierKeyDates = kd
	switch {
	case kd.Status == KeyInService:
	case c.claimsIndep:
		c.gap(GapVerifierKeyDates, kd.Reason+"; the independent tier rests on this key's signature")
	default:
		c.note("%s; no profile claims the independent tier, so the verifier signature carries nothing here", kd.Reason)
	}
}

// judgeKeyDates applies the rule docs/timestamps.md states:
//
//   - with a trusted token, the signature existed by the token's time plus its
//     accuracy (T): a key retired before T, or valid only after T, is out of
//     service; otherwise in service;
//   - without one, a retirement still to come (after the verifier's clock) is
//     in service; a bundle whose own generatedAt lies outside the key's dates
//     is out of service (it says so itself); any other retired key is
//     self-asserted: only generatedAt, which nothing signs, says it signed in
//     time. A notBefore that generatedAt satisfies is not held against the
//     bundle: backdating below it makes a bundle look worse, not better.
//
// who names the key ("key K", "verifier key K"); tok is the trusted token of
// the signature the key made (nil when none), st that signature's signing time.
func (c *checker) judgeKeyDates(who, retired, notBefore string, tok *timestamp.Token, st *SigningTime) *KeyDates {
	kd := &KeyDates{RetiredAt: retired, NotBefore: notBefore}
	set := func(status, format string, args ...any) *KeyDates {
		kd.Status, kd.Reason = status, fmt.Sprintf(format, args...)
		return kd
	}
	var r, nb time.Time
	for _, d := range []struct {
		name, value string
		at          *time.Time
	}{{"retiredAt", retired, &r}, {"notBefore", notBefore, &nb}} {
		if d.value == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, d.value)
		if err != nil {
			return set(KeyDatesSelfAsserted, "%s has %s %q, which is not an RFC 3339 time: its service cannot be judged", who, d.name, d.value)
		}
		*d.at = t
	}
	if tok != nil {
		by := tok.Latest().UTC().Format(time.RFC3339Nano)
		from := fmt.Sprintf("the rfc3161 token of %s", tok.TSA)
		switch {
		case retired != "" && tok.Latest().After(r):
			return set(KeyOutOfService, "%s was retired at %s, but the trusted time shows the signature only by %s (%s, its accuracy included): it is not shown to predate the retirement", who, retired, by, from)
		case notBefore != "" && tok.Latest().Before(nb):
			return set(KeyOutOfService, "%s is valid from %s, but the trusted time shows the signature existed already by %s (%s)", who, notBefore, by, from)
		}
		var within []string
		if retired != "" {
			within = append(within, "before its retirement at "+retired)
		}
		if notBefore != "" {
			within = append(within, "after the start of its validity at "+notBefore)
		}
		return set(KeyInService, "%s was in service when it signed: the trusted time %s (%s) is %s", who, by, from, strings.Join(within, " and "))
	}
	gen, genErr := time.Parse(time.RFC3339Nano, c.b.GeneratedAt)
	now := c.opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	switch {
	case retired != "" && genErr == nil && gen.After(r):
		return set(KeyOutOfService, "%s was retired at %s, but the bundle says it was generated at %s (%s)", who, retired, c.b.GeneratedAt, SelfAssertedTime)
	case notBefore != "" && genErr == nil && gen.Before(nb):
		return set(KeyOutOfService, "%s is valid from %s, but the bundle says it was generated at %s (%s)", who, notBefore, c.b.GeneratedAt, SelfAssertedTime)
	case retired != "" && r.After(now):
		return set(KeyInService, "%s retires at %s, which is still to come: the bundle was signed before then", who, retired)
	case retired != "":
		return set(KeyDatesSelfAsserted, "%s was retired at %s; only generatedAt (%s), which no signature covers, says the bundle was signed before then%s: an RFC 3161 token made before the retirement would show it (bundle timestamp; --tsa-cert)", who, retired, orNone(c.b.GeneratedAt), tokenNote(st))
	}
	return set(KeyInService, "%s is valid from %s, and generatedAt says %s (%s)", who, notBefore, c.b.GeneratedAt, SelfAssertedTime)
}

// tokenNote says why the token that came with the bundle for a signature (its
// signing time st) gave no trusted time ("" when none came).
func tokenNote(st *SigningTime) string {
	if st.Token == "" || st.Trusted() {
		return ""
	}
	return fmt.Sprintf("; the token %s does not count: %s", st.Token, st.TokenNotTrusted)
}
