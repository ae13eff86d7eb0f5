package verify

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/schemas"
)

// Options is the verification policy: the keys the caller trusts and the profile
// registry to derive profiles with. The zero Options checks everything it can
// without trust: the result is at best COHERENT.
type Options struct {
	// HostKeys are the keys the caller trusts for host signatures; the key for a
	// bundle is chosen by keys.Set.Select.
	HostKeys keys.Set
	// VerifierKeys are the keys the caller trusts for independent verifier signatures.
	VerifierKeys keys.Set
	// Registry derives v2 profiles. Nil means derivability at major 2 is not checked.
	Registry *profiles.Registry
	// Keyring, when set, resolves signature.keyId among pinned keys (after an exact
	// key-id match in HostKeys, before HostKeys' single-key fallback), and says which
	// keys are revoked: a key the keyring revokes is never used, whichever way it
	// was supplied, so such a bundle is at best COHERENT (see RevokedKey).
	Keyring *keys.Keyring
}

// Parse reads a bundle file and verifies it. The error is non-nil only when the text
// is not I-JSON (a *bundle.SyntaxError); everything else is in the Verdict.
func Parse(data []byte, opts Options) (*Verdict, error) {
	b, problems, err := bundle.Parse(data)
	if err != nil {
		return nil, err
	}
	return Bundle(b, problems, opts), nil
}

// Bundle judges a decoded bundle. The document (b.Raw) is validated against the
// embedded bundle v3 JSON Schema (package schemas); each failure is a schema
// rejection naming its JSON pointer. problems are the decoder's findings: every one
// of them is also a schema failure, so they are reported only if the schema finds
// nothing (which would be a bug in the schema, and must not hide a problem).
func Bundle(b *bundle.Bundle, problems []bundle.Problem, opts Options) *Verdict {
	c := &checker{b: b, opts: opts, v: &Verdict{
		Rejections:        []Rejection{},
		Unverified:        []string{},
		Notes:             []string{},
		CertifiedProfiles: []string{},
		OptedOut:          []string{},
	}}
	c.summarize()
	c.run(problems)
	c.conclude()
	return c.v
}

type checker struct {
	b    *bundle.Bundle
	opts Options
	v    *Verdict

	attestation      []byte
	signatureChecked bool // the host signature was checked under a trusted key
	keyringDated     bool // the keyring supplied the host key's dates
	claimsIndep      bool
	docDigestOK      bool
}

func (c *checker) reject(kind Kind, profile, format string, args ...any) {
	c.v.Rejections = append(c.v.Rejections, Rejection{Kind: kind, Detail: fmt.Sprintf(format, args...), Profile: profile})
}

func (c *checker) note(format string, args ...any) {
	c.v.Notes = append(c.v.Notes, fmt.Sprintf(format, args...))
}

func (c *checker) summarize() {
	b := c.b
	s := Summary{
		Host: b.Host.Name, HostVersion: b.Host.Version, Vendor: b.Host.Vendor, Build: b.Host.Build,
		Suite: b.Suite.Version, TargetMajor: b.Suite.TargetMajor, GeneratedAt: b.GeneratedAt,
		DiscoveryURL: b.Discovery.URL, Totals: b.Results.Totals, Rows: len(b.Results.Requirements),
		AssertionCount: b.AssertionCount, WitnessSha256: b.WitnessSha256, DiscoverySha256: b.Discovery.Sha256,
		ClaimedProfiles: []string{}, Relaxations: []string{}, EvidenceTiers: []string{},
		Deployment: b.Host.Deployment, HasDiscoveryDoc: b.Discovery.Document != nil,
	}
	if b.Signature != nil {
		s.SignatureKeyID = b.Signature.KeyID
	}
	for _, p := range b.ClaimedProfiles {
		s.ClaimedProfiles = append(s.ClaimedProfiles, p.ID)
		if !slices.Contains(s.EvidenceTiers, p.EvidenceTier) {
			s.EvidenceTiers = append(s.EvidenceTiers, p.EvidenceTier)
		}
	}
	for _, r := range b.Host.Relaxations {
		s.Relaxations = append(s.Relaxations, r.Obligation)
	}
	if b.Durability != nil {
		s.DurabilityRung = b.Durability.Rung
	}
	c.v.Summary = s
}

func (c *checker) run(problems []bundle.Problem) {
	b, root := c.b, c.b.Raw
	if bv, ok := root.Get("bundleVersion"); !ok || !isString(bv, bundle.Version) {
		c.reject(KindNotV3, "", "bundleVersion is %s, not the string \"3\"; %s", describe(bv, ok), notV3Hint(root))
		return
	}
	for _, p := range schemaProblems(root, problems) {
		c.v.Rejections = append(c.v.Rejections, Rejection{Kind: KindSchema, Detail: p.String(), Pointer: p.Pointer})
	}
	rows := b.Results.Requirements
	c.rowRules(rows)
	c.digestRules(rows)
	c.signatureRules()
	c.independentRules()
	if b.Durability != nil {
		if err := bundle.CheckRungClaim(b.Durability.Rung, rows); err != nil {
			c.reject(KindRungNotDerivable, "", "%v", err)
		}
	}
	c.profileRules(rows)
	c.attribute()
}

// schemaProblems returns the schema validator's findings, sorted by pointer; the
// decoder's problems only when the validator has none (see Bundle).
func schemaProblems(root bundle.Value, decoded []bundle.Problem) []bundle.Problem {
	if ps := schemas.Bundle().Validate(root); len(ps) > 0 {
		return ps
	}
	return decoded
}

// rowRules: duplicate-requirement, reason-missing, vacuous-pass, totals-mismatch.
func (c *checker) rowRules(rows []bundle.Row) {
	seen := make(map[string]int, len(rows))
	for i, r := range rows {
		if first, dup := seen[r.ID]; dup {
			c.reject(KindDuplicateRequirement, "", "row %s appears more than once (rows %d and %d of results.requirements)", r.ID, first, i)
		} else {
			seen[r.ID] = i
		}
	}
	for _, r := range rows {
		if r.Result != bundle.ExecutedPass && TrimJS(r.DetailText()) == "" {
			c.reject(KindReasonMissing, "", "row %s is %s but gives no reason in detail", r.ID, r.Result)
		}
	}
	for _, r := range rows {
		if r.Result == bundle.ExecutedPass && r.AssertionCount() <= 0 {
			what := "no assertions member"
			if r.Assertions != nil {
				what = fmt.Sprintf("assertions %d", *r.Assertions)
			}
			c.reject(KindVacuousPass, "", "row %s is executed-pass with %s: a pass must assert something", r.ID, what)
		}
	}
	counted := bundle.CountRows(rows)
	for _, result := range bundle.Results {
		stored, actual := c.b.Results.Totals.Get(result), counted.Get(result)
		if stored != actual {
			c.reject(KindTotalsMismatch, "", "results.totals.%s is %d, but %d rows are %s", bundle.TotalsMember(result), stored, actual, result)
		}
	}
}

// digestRules: witness-digest, assertion-count, detail-missing, build-missing.
func (c *checker) digestRules(rows []bundle.Row) {
	b := c.b
	witness, err := bundle.WitnessDigest(b.Raw)
	c.v.WitnessRecomputed = witness
	switch {
	case err != nil:
		c.reject(KindWitnessDigest, "", "the rows cannot be canonicalized: %v", err)
	case witness != b.WitnessSha256:
		c.reject(KindWitnessDigest, "", "witnessSha256 is %s, but the signed rows digest to %s: rows, relaxations or deployment were changed after signing", orNone(b.WitnessSha256), witness)
	}
	var sum int64
	for _, r := range rows {
		sum += r.AssertionCount()
	}
	if sum != b.AssertionCount {
		c.reject(KindAssertionCount, "", "assertionCount is %d, but the rows' assertions sum to %d", b.AssertionCount, sum)
	}
	nonPass := 0
	for _, r := range rows {
		if r.Result != bundle.ExecutedPass {
			nonPass++
		}
	}
	if nonPass > 0 && !b.Raw.Has("detail") {
		c.reject(KindDetailMissing, "", "%d rows are not executed-pass, but the bundle has no detail.nonPass", nonPass)
	}
	if b.Host.Build.Kind == "" || b.Host.Build.ID == "" {
		c.reject(KindBuildMissing, "", "host.build must name the build the suite ran against ({kind, id}); it is %s", describeBuild(b.Raw))
	}
}

// signatureRules: signature-missing, signature-over, signature-invalid.
func (c *checker) signatureRules() {
	b, sig := c.b, c.b.Signature
	var err error
	c.attestation, err = bundle.Attestation(b.Raw)
	if err != nil {
		c.attestation = nil
	}
	switch {
	case sig == nil:
		c.reject(KindSignatureMissing, "", "the bundle has no signature; an unsigned v3 bundle attests nothing")
		return
	case sig.Alg != bundle.AlgEd25519:
		c.reject(KindSignatureMissing, "", "signature.alg is %q; only ed25519 is defined", sig.Alg)
		return
	case sig.KeyID == "" || sig.Sig == "":
		c.reject(KindSignatureMissing, "", "signature.keyId and signature.sig must both be non-empty")
		return
	}
	if over, _ := b.Raw.Path("signature", "over"); !isExactOver(over) {
		c.reject(KindSignatureOver, "", "signature.over must be exactly [%s], in that order", quoteList(bundle.SignatureOver))
	}
	key, ok := c.hostKey(sig.KeyID)
	if !ok {
		return
	}
	if e, revoked := c.revoked(key); revoked {
		c.v.RevokedKey = &KeyRevocation{KeyID: e.KeyID, Fingerprint: key.Fingerprint(), RevokedAt: e.RevokedAt, Reason: e.RevocationReason, Keyring: c.opts.Keyring.Path}
		return
	}
	c.v.HostKey = keyUse(key)
	if c.attestation == nil {
		c.reject(KindSignatureInvalid, "", "the attestation payload cannot be built from this bundle")
		return
	}
	if err := keys.Verify(key.Key, c.attestation, sig.Sig); err != nil {
		c.reject(KindSignatureInvalid, "", "signature by %s does not verify under %s: %v", sig.KeyID, key.Describe(), err)
		return
	}
	c.v.SignatureVerified = true
	c.signatureChecked = true
	if key.Source == keys.SourceKeyring || c.keyringDated {
		if problem := keys.DateProblem(sig.KeyID, key.NotBefore, key.RetiredAt, b.GeneratedAt); problem != "" {
			c.note("keyring: %s", problem)
		}
	}
}

// hostKey picks the trusted key for keyID: an exact key-id match among HostKeys,
// else the keyring's entry, else HostKeys' single-key fallback. A key that the
// keyring pins (by its bytes) takes the keyring's notBefore and retiredAt.
func (c *checker) hostKey(keyID string) (keys.PublicKey, bool) {
	var key keys.PublicKey
	found := false
	for _, k := range c.opts.HostKeys {
		if k.KeyID != "" && k.KeyID == keyID {
			key, found = k, true
			break
		}
	}
	if !found && c.opts.Keyring != nil {
		if e, ok := c.opts.Keyring.Lookup(keyID); ok {
			if k, err := e.Key(c.opts.Keyring.Path); err == nil {
				key, found = k, true
			}
		}
	}
	if !found {
		key, found = c.opts.HostKeys.Select(keyID)
	}
	if found && key.Source != keys.SourceKeyring {
		if e, ok := c.opts.Keyring.ForKey(key.Key); ok {
			if key.RetiredAt == "" {
				key.RetiredAt = e.RetiredAt
			}
			if key.NotBefore == "" {
				key.NotBefore = e.NotBefore
			}
			c.keyringDated = e.RetiredAt != "" || e.NotBefore != ""
		}
	}
	return key, found
}

// revoked reports whether the keyring revokes this key (by its bytes).
func (c *checker) revoked(key keys.PublicKey) (keys.KeyringEntry, bool) {
	e, ok := c.opts.Keyring.ForKey(key.Key)
	return e, ok && e.Revoked()
}

// independentRules: independent-unsigned, independent-self-signed,
// verifier-signature-invalid, independent-unverifiable.
func (c *checker) independentRules() {
	b := c.b
	for _, p := range b.ClaimedProfiles {
		c.claimsIndep = c.claimsIndep || p.EvidenceTier == bundle.TierIndependent
	}
	vs := b.VerifierSignature
	hostKeyID := ""
	if b.Signature != nil {
		hostKeyID = b.Signature.KeyID
	}
	if c.claimsIndep {
		switch {
		case vs == nil || vs.KeyID == "" || vs.Sig == "":
			c.reject(KindIndependentUnsigned, "", "a profile claims the independent tier, but verifierSignature lacks keyId or sig")
			return
		case vs.KeyID == hostKeyID || vs.KeyID == b.Host.SigningKeyID:
			c.reject(KindIndependentSelfSigned, "", "verifierSignature uses key %s, the host's own key: an independent verifier signs with its own", vs.KeyID)
			return
		}
	}
	if vs == nil || vs.Sig == "" {
		return
	}
	key, ok := c.opts.VerifierKeys.Select(vs.KeyID)
	if !ok {
		if c.claimsIndep {
			c.reject(KindIndependentUnverifiable, "", "a profile claims the independent tier, signed by verifier key %s, but no verifier key was supplied (--verifier-key)", vs.KeyID)
		}
		return
	}
	c.v.VerifierKey = keyUse(key)
	if c.attestation == nil {
		c.reject(KindVerifierSignatureInvalid, "", "the attestation payload cannot be built from this bundle")
		return
	}
	if vs.Alg != bundle.AlgEd25519 {
		c.reject(KindVerifierSignatureInvalid, "", "verifierSignature.alg is %q; only ed25519 is defined", vs.Alg)
		return
	}
	if err := keys.Verify(key.Key, c.attestation, vs.Sig); err != nil {
		c.reject(KindVerifierSignatureInvalid, "", "verifier signature by %s does not verify under %s: %v", vs.KeyID, key.Describe(), err)
		return
	}
	c.v.VerifierSignatureVerified = true
}

// profileRules: undeclared-relaxation-observed, relaxed-profile-certified,
// blocked-certified, discovery-digest, opted-out-but-advertised,
// profile-not-derivable; and the certified list.
func (c *checker) profileRules(rows []bundle.Row) {
	b := c.b
	reg := c.opts.Registry
	var claimedIDs, declared []string
	for _, p := range b.ClaimedProfiles {
		claimedIDs = append(claimedIDs, p.ID)
	}
	for _, r := range b.Host.Relaxations {
		declared = append(declared, r.Obligation)
	}
	declaredDenied := reg.RelaxedBy(declared, claimedIDs)
	observed := profiles.ObservedRelaxations(rows)
	observedDenied := reg.RelaxedBy(observed, claimedIDs)

	for _, p := range b.ClaimedProfiles {
		if p.Certified && slices.Contains(observedDenied, p.ID) && !slices.Contains(declaredDenied, p.ID) {
			c.reject(KindUndeclaredRelaxationObserved, p.ID, "row %s is executed-fail, so %s is relaxed without being declared; %s cannot certify", profiles.EgressGuardRow, profiles.EgressGuardObligation, p.ID)
		}
	}
	for _, p := range b.ClaimedProfiles {
		if p.Certified && slices.Contains(declaredDenied, p.ID) {
			c.reject(KindRelaxedProfileCertified, p.ID, "%s is marked certified, but the declared relaxations (%s) deny it", p.ID, strings.Join(declared, ", "))
		}
	}
	if blocked := bundle.CountRows(rows).Blocked; blocked > 0 {
		if still := c.stillCertified(); len(still) > 0 {
			c.reject(KindBlockedCertified, "", "%d rows are blocked, yet %s still marked certified: a run with blocked rows certifies nothing", blocked, strings.Join(still, ", "))
		}
	}

	doc := b.Discovery.Document
	decidable := false
	switch {
	case doc == nil:
		c.v.Unverified = append(c.v.Unverified, "derivability not checked: the bundle carries no discovery.document (bundles cut before suite 2.0.5), so discovery.sha256 cannot be re-derived either")
	default:
		digest, err := bundle.DiscoveryDigest(*doc)
		c.v.DiscoveryRecomputed = digest
		switch {
		case err != nil:
			c.reject(KindDiscoveryDigest, "", "discovery.document cannot be canonicalized: %v", err)
		case digest != b.Discovery.Sha256:
			c.reject(KindDiscoveryDigest, "", "discovery.sha256 is %s, but the embedded document hashes to %s", orNone(b.Discovery.Sha256), digest)
		default:
			c.docDigestOK = true
		}
		switch {
		case !c.docDigestOK:
			c.v.Unverified = append(c.v.Unverified, "derivability not checked: the discovery document does not match discovery.sha256")
		case b.Suite.TargetMajor == 1:
			c.v.Unverified = append(c.v.Unverified, "derivability not checked: major-1 profiles derive from the v1 profile catalog, which certcut does not ship")
		case b.Suite.TargetMajor != 2:
			c.v.Unverified = append(c.v.Unverified, fmt.Sprintf("derivability not checked: suite.targetMajor %d has no profile registry", b.Suite.TargetMajor))
		case reg == nil:
			c.v.Unverified = append(c.v.Unverified, "derivability not checked: no v2 profile registry was given")
		default:
			decidable = true
		}
	}
	c.v.DerivabilityChecked = decidable

	const optOutPrefix, optOutMarker = "openwop.profile.", "OPENWOP_OPTED_OUT_PROFILES"
	for _, r := range rows {
		if !strings.HasPrefix(r.ID, optOutPrefix) || r.Result != bundle.Skipped || !strings.Contains(r.DetailText(), optOutMarker) {
			continue
		}
		name := strings.TrimPrefix(r.ID, optOutPrefix)
		c.v.OptedOut = append(c.v.OptedOut, name)
		if !decidable {
			continue
		}
		if fam, isFamily := strings.CutPrefix(name, "family."); isFamily {
			if v, ok := doc.Get(fam); ok && v.Kind() == bundle.Object {
				c.reject(KindOptedOutButAdvertised, "", "row %s opts family %s out, but the discovery document advertises it", r.ID, fam)
			}
		} else if reg.Derives(*doc, name) {
			c.reject(KindOptedOutButAdvertised, "", "row %s opts profile %s out, but the discovery document derives it", r.ID, name)
		}
	}
	slices.Sort(c.v.OptedOut)
	if decidable {
		for _, p := range b.ClaimedProfiles {
			if p.Certified && !reg.Derives(*doc, p.ID) {
				why := "its predicate does not hold on the discovery document"
				if _, known := reg.Profile(p.ID); !known {
					why = "the profile registry (" + reg.Source + ") does not list it"
				}
				c.reject(KindProfileNotDerivable, p.ID, "%s is marked certified, but %s", p.ID, why)
			}
		}
	}

	c.v.CertifiedProfiles = c.stillCertified()
	for _, r := range c.v.Rejections {
		if r.Profile == "" {
			c.v.CertifiedProfiles = []string{}
			break
		}
	}
	if relaxed := slices.Concat(declaredDenied, observedDenied); len(relaxed) > 0 {
		c.v.CertifiedProfiles = slices.DeleteFunc(c.v.CertifiedProfiles, func(id string) bool { return slices.Contains(relaxed, id) })
	}
}

// stillCertified returns the profiles marked certified that no profile-scoped
// rejection has withdrawn yet.
func (c *checker) stillCertified() []string {
	out := []string{}
	for _, p := range c.b.ClaimedProfiles {
		if !p.Certified {
			continue
		}
		withdrawn := slices.ContainsFunc(c.v.Rejections, func(r Rejection) bool { return r.Profile == p.ID })
		if !withdrawn && !slices.Contains(out, p.ID) {
			out = append(out, p.ID)
		}
	}
	return out
}

// attribute resolves signature.keyId in the bundle's own discovery document and
// checks the signature under it. The result is reported, never trusted.
func (c *checker) attribute() {
	b := c.b
	a := &c.v.SelfPublished
	if b.Signature == nil || b.Signature.KeyID == "" {
		a.Outcome, a.Detail = AttributionDoesNotVerify, "the bundle has no signature key id"
		return
	}
	a.KeyID = b.Signature.KeyID
	key, err := keys.FromDiscovery(b.Discovery.Document, a.KeyID, keys.SourceSelfPublished, "discovery.document")
	var notPublished *keys.KeyNotPublishedError
	switch {
	case errors.Is(err, keys.ErrNoDocument):
		a.Outcome, a.Detail = AttributionNoDocument, "the bundle carries no discovery document; its signature attests integrity only"
		return
	case errors.Is(err, keys.ErrNoSigningKeys):
		a.Outcome, a.Detail = AttributionNoSigningKeys, "the bundle's discovery document publishes no signingKeys[]"
		return
	case errors.As(err, &notPublished):
		a.Outcome, a.Detail = AttributionKeyNotPublished, notPublished.Error()
		return
	case err != nil:
		a.Outcome, a.Detail = AttributionDoesNotVerify, err.Error()
		return
	}
	a.PublicKey, a.RetiredAt = key.Base64URL(), key.RetiredAt
	if c.attestation == nil || keys.Verify(key.Key, c.attestation, b.Signature.Sig) != nil {
		a.Outcome, a.Detail = AttributionDoesNotVerify, "the signature does not verify under the key the bundle's own discovery document publishes as "+a.KeyID
	} else {
		a.Outcome, a.Detail = AttributionVerifies, "the signature verifies under the key the bundle's own discovery document publishes as "+a.KeyID
	}
	if key.RetiredAt != "" {
		if after(b.GeneratedAt, key.RetiredAt) {
			c.note("key %s was retired at %s, before this bundle was generated (%s)", a.KeyID, key.RetiredAt, b.GeneratedAt)
		} else {
			c.note("key %s is retired (%s); it stays valid for the bundles it signed before then", a.KeyID, key.RetiredAt)
		}
	}
	if c.v.HostKey != nil && c.v.HostKey.PublicKey != a.PublicKey {
		c.note("the supplied host key %s is not the key the bundle's own discovery document publishes as %s", c.v.HostKey.Fingerprint, a.KeyID)
	}
}

// conclude sets the outcome: REJECTED on any rejection; else COHERENT when the host
// signature was not checked under a trusted key, derivability was not checked, or
// an independent signature was not verified; else VERIFIED.
func (c *checker) conclude() {
	v := c.v
	if len(v.Rejections) > 0 {
		v.Outcome = Rejected
		v.Unverified = []string{}
		return
	}
	if !c.signatureChecked {
		reason := "host signature not checked: no --host-key was given"
		switch {
		case v.RevokedKey != nil:
			r := v.RevokedKey
			reason = fmt.Sprintf("host signature not checked: key %s (%s) is revoked in keyring %s since %s (%s); a revoked key never verifies", r.KeyID, r.Fingerprint, r.Keyring, r.RevokedAt, r.Reason)
		case c.opts.Keyring != nil:
			reason = fmt.Sprintf("host signature not checked: keyring %s pins no key %s", c.opts.Keyring.Path, v.SelfPublished.KeyID)
			if len(c.opts.HostKeys) > 0 {
				reason += fmt.Sprintf(", and none of the %d supplied host keys is named so", len(c.opts.HostKeys))
			}
		case len(c.opts.HostKeys) > 1:
			reason = fmt.Sprintf("host signature not checked: none of the %d supplied host keys is named %s", len(c.opts.HostKeys), v.SelfPublished.KeyID)
		}
		v.Unverified = append([]string{reason + "; self-published, not trusted: " + v.SelfPublished.Detail}, v.Unverified...)
	}
	if c.claimsIndep && !v.VerifierSignatureVerified {
		v.Unverified = append(v.Unverified, "independent tier claimed, but the verifier signature was not verified")
	}
	if len(v.Unverified) > 0 {
		v.Outcome = Coherent
	} else {
		v.Outcome = Verified
	}
}

func keyUse(k keys.PublicKey) *KeyUse {
	return &KeyUse{KeyID: k.KeyID, Source: string(k.Source), Origin: k.Origin, PublicKey: k.Base64URL(), Fingerprint: k.Fingerprint(), RetiredAt: k.RetiredAt, NotBefore: k.NotBefore}
}
