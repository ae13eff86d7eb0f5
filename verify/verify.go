package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/certcut/certcut/declaration"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/jsonkind"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
)

// Options is the verification policy: the keys the caller trusts and the profile
// registry to derive profiles with. The zero Options checks everything it can
// without trust: the result is at best COHERENT.
type Options struct {
	// HostKeys are the keys the caller trusts for host signatures. The key for a
	// bundle is the one named by its signature.keyId (keys.Set.Select): a key's id
	// comes from a <keyId>.pub.pem file name, a keyring or a discovery document.
	HostKeys keys.Set
	// VerifierKeys are the keys the caller trusts for independent verifier
	// signatures, chosen by verifierSignature.keyId the same way.
	VerifierKeys keys.Set
	// Registry derives v2 profiles. Nil means derivability at major 2 is not checked.
	Registry *profiles.Registry
	// Keyring, when set, resolves signature.keyId among pinned keys (after an exact
	// key-id match in HostKeys), and says which keys are revoked: a host or verifier
	// key the keyring revokes is never used, whichever way it was supplied, so such
	// a bundle is at best COHERENT (see RevokedKey, RevokedVerifierKey).
	Keyring *keys.Keyring
	// UnsafeLoneKeyAnyKeyID weakens key choice to the reference --verify rule: when
	// HostKeys (or VerifierKeys) is one key given as a PEM file or a raw key — not
	// read from a directory (keys.Set.Lone) — and neither its id nor the keyring
	// names the bundle's key id, that key is used anyway, and a note says when its
	// id differs. Commands that judge one bundle as the reference does (verify,
	// show, report) set it; gate, census and diff never do: there a bundle whose key
	// id no trusted key names is not checked at all.
	UnsafeLoneKeyAnyKeyID bool
	// TSA holds the TSA certificates the caller trusts (--tsa-cert). A token
	// that comes with a bundle (Timestamps) gives the signing time only when its
	// signer chains to one of them; with none, tokens are still checked for
	// form, imprint and usage, and their time is shown as not trusted. With
	// some, a token that does not chain to them is a timestamp-untrusted
	// rejection.
	TSA *timestamp.Trust
	// Expect, when set, binds the bundle to a deploy: it must be the cut of this
	// build and major (build-kind, build-mismatch, target-major), beside every
	// other check.
	Expect *Expect
	// Now is the verifier's clock, which bounds the signing time from above (a
	// bundle that exists now was signed by now): a retirement still to come
	// needs no token. Zero means the current time.
	Now time.Time
	// Maturity, when set, applies the maturity bound (RFC 0197 §C.7) to the
	// bundle's discovery document (declared.go): each family record is noted;
	// an overstated one at a bound suite is a maturity-overstated rejection only
	// when the host signature verified, since the bound rests on suite.version
	// and the document, which only the signature binds.
	Maturity *MaturityPolicy
	// Advisories, when set, notes a bundle whose suite.version is in one of
	// its ranges (a suite release known to produce wrong rows): a note, never
	// a rejection.
	Advisories *declaration.Advisories
}

// Expect is what a deploy expects of the bundle it is about to serve: the cut
// of the build being deployed, for the major it serves (the question OpenWOP's
// installer asks before serving evidence: may this host serve this bundle as
// its own for this commit and major?).
type Expect struct {
	// Build is the build being deployed: host.build must have its kind
	// (build-kind) and exactly its id (build-mismatch). A zero Build is not
	// checked. host.build is signed.
	Build bundle.Build
	// Major, when non-zero, is the major the deploy serves: suite.targetMajor
	// must be it (target-major). targetMajor is unsigned; what binds it is that
	// the bundle is judged by that major's rules (at major 2, derivability and
	// the floor rows).
	Major int
}

// Timestamps are the RFC 3161 replies that come with a bundle; bundle timestamp
// writes them beside it (timestamp.HostFile, timestamp.VerifierFile). Either may
// be nil.
type Timestamps struct {
	Host     *timestamp.File // the token of signature.sig
	Verifier *timestamp.File // the token of verifierSignature.sig
}

// MaxRejectionsPerKind bounds how many rejections of one kind a verdict lists, and
// MaxNotes how many notes: a hostile bundle with a million bad rows must not make
// a million lines. What is left out is counted (Verdict.OmittedRejections) and
// summed up in one more rejection of that kind (or one more note); the outcome is
// the same either way.
const (
	MaxRejectionsPerKind = 100
	MaxNotes             = 100
)

// Key match: how the trusted key a signature was checked under was chosen.
const (
	MatchKeyID   = "key-id"   // a supplied key named like the bundle's key id
	MatchKeyring = "keyring"  // the keyring's entry for the key id
	MatchLoneKey = "lone-key" // the only key given, whatever its id (Options.UnsafeLoneKeyAnyKeyID)
)

// Parse reads a bundle file and verifies it. The error is non-nil only when the text
// is not I-JSON (a *bundle.SyntaxError); everything else is in the Verdict.
func Parse(data []byte, opts Options) (*Verdict, error) {
	return ParseWith(data, opts, Timestamps{})
}

// ParseWith is Parse for a bundle that comes with time-stamp tokens (Judge).
func ParseWith(data []byte, opts Options, ts Timestamps) (*Verdict, error) {
	b, problems, err := bundle.Parse(data)
	if err != nil {
		return nil, err
	}
	return Judge(b, problems, opts, ts), nil
}

// Bundle judges a decoded bundle. The document (b.Raw) is checked against the
// bundle v3 JSON Schema (bundle.CheckSchema: the generated schema's checks, made
// in Go); each failure is a schema rejection naming its JSON pointer. problems are the decoder's findings: every one
// of them is also a schema failure, so they are reported only if the schema finds
// nothing (which would be a bug in the schema, and must not hide a problem).
func Bundle(b *bundle.Bundle, problems []bundle.Problem, opts Options) *Verdict {
	return Judge(b, problems, opts, Timestamps{})
}

// Judge is Bundle for a bundle that comes with time-stamp tokens. Each token is
// checked against its signature (a problem is a timestamp-* rejection); a host
// token trusted under Options.TSA gives the signing time (Verdict.SigningTime),
// and the host key's retiredAt and notBefore are judged at it
// (Verdict.KeyDates): a key retired before the trusted time, or one retired with
// no trusted time at all (only the unsigned generatedAt), leaves the verdict at
// best COHERENT.
func Judge(b *bundle.Bundle, problems []bundle.Problem, opts Options, ts Timestamps) *Verdict {
	c := &checker{b: b, opts: opts, ts: ts, v: &Verdict{
		Rejections:        []Rejection{},
		Unverified:        []string{},
		Notes:             []string{},
		CertifiedProfiles: []string{},
		OptedOut:          []string{},
		Unsigned:          map[string]json.RawMessage{},
	}, kept: map[Kind]int{}, omitted: map[Kind]int{}, withdrawn: map[string]bool{}, derived: map[string]bool{}}
	if k := jsonkind.Of(b.Raw); k != jsonkind.Bundle {
		c.v.NotABundle = string(k)
	}
	c.summarize()
	c.run(problems)
	c.finish()
	c.conclude()
	return c.v
}

type checker struct {
	b    *bundle.Bundle
	opts Options
	ts   Timestamps
	v    *Verdict
	// hostToken and verifierToken are the host and verifier signatures' tokens
	// when they are trusted.
	hostToken, verifierToken *timestamp.Token

	attestation      []byte
	signatureChecked bool // the host signature was checked under a trusted key
	claimsIndep      bool
	docDigestOK      bool
	// hostKeys are the keys that speak for the host: the trusted key chosen for
	// signature.keyId (even a revoked one) and the keys the bundle's own document
	// publishes as the host's. A verifier signature valid under one of them is the
	// host's own (independent-self-signed).
	hostKeys []keys.PublicKey
	relaxed  []string // profiles a declared or observed relaxation denies

	kept, omitted map[Kind]int    // rejections listed and left out, per kind
	withdrawn     map[string]bool // profiles a profile-scoped rejection withdrew (listed or not)
	notesOmitted  int
	derived       map[string]bool // unsigned members re-derived from signed data (see unsigned)
}

// reject records a rejection; past MaxRejectionsPerKind of its kind it is only
// counted. A profile-scoped one withdraws its profile either way.
func (c *checker) reject(kind Kind, profile, format string, args ...any) {
	if profile != "" {
		c.withdrawn[profile] = true
	}
	if c.keep(kind) {
		c.v.Rejections = append(c.v.Rejections, Rejection{Kind: kind, Detail: fmt.Sprintf(format, args...), Profile: profile})
	}
}

// keep reports whether one more rejection of kind is listed, counting it.
func (c *checker) keep(kind Kind) bool {
	if c.kept[kind] >= MaxRejectionsPerKind {
		c.omitted[kind]++
		return false
	}
	c.kept[kind]++
	return true
}

func (c *checker) note(format string, args ...any) {
	if len(c.v.Notes) >= MaxNotes {
		c.notesOmitted++
		return
	}
	c.v.Notes = append(c.v.Notes, fmt.Sprintf(format, args...))
}

// finish sums up what the caps left out — after the last listed rejection of each
// kind, one rejection of that kind that counts the rest (bundle-wide: it stands for
// rejections of any scope) — then sets the certified list and the unsigned claims.
func (c *checker) finish() {
	if len(c.omitted) > 0 {
		out := make([]Rejection, 0, len(c.v.Rejections)+len(c.omitted))
		for i, r := range c.v.Rejections {
			out = append(out, r)
			n := c.omitted[r.Kind]
			if n == 0 || slices.ContainsFunc(c.v.Rejections[i+1:], func(later Rejection) bool { return later.Kind == r.Kind }) {
				continue
			}
			out = append(out, Rejection{Kind: r.Kind, Omitted: n, Detail: fmt.Sprintf("%d more %s rejections are not listed (a verdict lists the first %d of each kind)", n, r.Kind, MaxRejectionsPerKind)})
			c.v.OmittedRejections += n
		}
		c.v.Rejections = out
	}
	if c.notesOmitted > 0 {
		c.v.Notes = append(c.v.Notes, fmt.Sprintf("%d more notes are not listed (a verdict lists the first %d)", c.notesOmitted, MaxNotes))
	}
	c.certify()
	c.unsigned()
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
		if c.keep(KindSchema) {
			c.v.Rejections = append(c.v.Rejections, Rejection{Kind: KindSchema, Detail: p.String(), Pointer: p.Pointer, MissingMember: p.Missing})
		}
	}
	rows := b.Results.Requirements
	c.rowRules(rows)
	c.digestRules(rows)
	c.expectRules()
	c.signatureRules()
	c.independentRules()
	c.timestampRules()
	if b.Durability != nil {
		if err := bundle.CheckRungClaim(b.Durability.Rung, rows); err != nil {
			c.reject(KindRungNotDerivable, "", "%v", err)
		}
	}
	c.profileRules(rows)
	c.attribute()
	c.keyDates()
	c.verifierKeyDates()
	c.declaredRules()
}

// schemaProblems returns the bundle schema's findings (bundle.CheckSchema, the
// schema's checks in Go), sorted by pointer; the decoder's problems only when the
// schema has none (see Bundle).
func schemaProblems(root bundle.Value, decoded []bundle.Problem) []bundle.Problem {
	if ps := bundle.CheckSchema(root); len(ps) > 0 {
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
	if sum, ok := bundle.SumAssertions(rows); !ok {
		c.reject(KindAssertionCount, "", "assertionCount is %d, but the rows' assertions sum past %d (2^63−1): no count can be right", b.AssertionCount, int64(math.MaxInt64))
	} else if sum != b.AssertionCount {
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

// expectRules: build-kind, build-mismatch, target-major (Options.Expect). The
// build is compared exactly, as the installer compares it: an abbreviated commit
// is not the commit, and a build of another kind is not compared by id.
func (c *checker) expectRules() {
	e := c.opts.Expect
	if e == nil {
		return
	}
	got, want := c.b.Host.Build, e.Build
	switch {
	case want == bundle.Build{}:
	case got.Kind != want.Kind:
		c.reject(KindBuildKind, "", "host.build.kind is %q, but the deploy expects a %q build (%s:%s): this bundle is not the cut of the build being deployed", got.Kind, want.Kind, want.Kind, want.ID)
	case got.ID != want.ID:
		why := "this bundle is the cut of another build"
		if got.ID != "" && strings.HasPrefix(want.ID, got.ID) {
			why = "an abbreviated id names no build exactly: cut the bundle with the full id"
		}
		c.reject(KindBuildMismatch, "", "host.build.id is %q, but the deploy expects %s:%s: %s", got.ID, want.Kind, want.ID, why)
	}
	if e.Major != 0 && c.b.Suite.TargetMajor != e.Major {
		c.reject(KindTargetMajor, "", "suite.targetMajor is %d, but the deploy serves major %d: this bundle is not the cut for it", c.b.Suite.TargetMajor, e.Major)
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
	if b.Host.SigningKeyID != "" && b.Host.SigningKeyID != sig.KeyID {
		c.note("host.signingKeyId is %s, but signature.keyId is %s: the bundle names two keys (neither member is signed); the key was chosen by signature.keyId", b.Host.SigningKeyID, sig.KeyID)
	}
	key, match, ok := c.hostKey(sig.KeyID)
	if !ok {
		c.v.NoTrustedKey = c.noKeyReason(sig.KeyID, "host", c.opts.HostKeys, true)
		return
	}
	c.hostKeys = append(c.hostKeys, key)
	if match == MatchLoneKey {
		c.loneKeyNote("--host-key", key, sig.KeyID, "signature.keyId")
	}
	if r, revoked := c.revocation(key, sig.KeyID); revoked {
		c.v.RevokedKey = r
		return
	}
	c.v.HostKey = keyUse(key, match)
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
}

// hostKey picks the trusted key for keyID: an exact key-id match among HostKeys,
// else the keyring's entry, else — only with UnsafeLoneKeyAnyKeyID — the lone
// key. A key that the keyring pins (by its bytes) takes the keyring's notBefore
// and retiredAt.
func (c *checker) hostKey(keyID string) (keys.PublicKey, string, bool) {
	key, found := c.opts.HostKeys.Select(keyID)
	match := MatchKeyID
	if !found && c.opts.Keyring != nil {
		if e, ok := c.opts.Keyring.Lookup(keyID); ok {
			if k, err := e.Key(c.opts.Keyring.Path); err == nil {
				key, found, match = k, true, MatchKeyring
			}
		}
	}
	if !found && c.opts.UnsafeLoneKeyAnyKeyID {
		key, found = c.opts.HostKeys.Lone()
		match = MatchLoneKey
	}
	if found && key.Source != keys.SourceKeyring {
		if e, ok := c.opts.Keyring.ForKey(key.Key); ok {
			if key.RetiredAt == "" {
				key.RetiredAt = e.RetiredAt
			}
			if key.NotBefore == "" {
				key.NotBefore = e.NotBefore
			}
		}
	}
	return key, match, found
}

// verifierKey picks the trusted key for a verifier signature under keyID: an exact
// key-id match among VerifierKeys, else — only with UnsafeLoneKeyAnyKeyID — the
// lone// key. Like a host key, a key the keyring pins (by its bytes) takes the
// keyring's notBefore and retiredAt where its own source names none.
func (c *checker) verifierKey(keyID string) (keys.PublicKey, string, bool) {
	k, ok := c.opts.VerifierKeys.Select(keyID)
	match := MatchKeyID
	if !ok && c.opts.UnsafeLoneKeyAnyKeyID {
		k, ok = c.opts.VerifierKeys.Lone()
		match = MatchLoneKey
	}
	if !ok {
		return keys.PublicKey{}, "", false
	}
	if e, pinned := c.opts.Keyring.ForKey(k.Key); pinned {
		if k.RetiredAt == "" {
			k.RetiredAt = e.RetiredAt
		}
		if k.NotBefore == "" {
			k.NotBefore = e.NotBefore
		}
	}
	return k, match, true
}

// loneKeyNote says that the lone key was used although its id is another.
func (c *checker) loneKeyNote(flag string, key keys.PublicKey, keyID, member string) {
	if key.KeyID != "" && key.KeyID != keyID {
		c.note("the only %s given, %s, is named %s, not %s (%s); it was used anyway, as the reference --verify uses its one key", flag, givenKey(key), key.KeyID, keyID, member)
	}
}

// revocation reports whether the keyring revokes this key (by its bytes).
func (c *checker) revocation(key keys.PublicKey, keyID string) (*KeyRevocation, bool) {
	e, ok := c.opts.Keyring.ForKey(key.Key)
	if !ok || !e.Revoked() {
		return nil, false
	}
	id := e.KeyID
	if id == "" {
		id = keyID
	}
	return &KeyRevocation{KeyID: id, Fingerprint: key.Fingerprint(), RevokedAt: e.RevokedAt, Reason: e.RevocationReason, Keyring: c.opts.Keyring.Path}, true
}

// noKeyReason says why no trusted key was chosen for keyID: which keys of set
// (role "host" or "verifier") were given, and that none is named keyID; for the
// host, also what the keyring pins.
func (c *checker) noKeyReason(keyID, role string, set keys.Set, withKeyring bool) string {
	var parts []string
	given := make([]string, 0, min(len(set), 5))
	for i, k := range set {
		if i == 5 {
			given = append(given, fmt.Sprintf("and %d more", len(set)-5))
			break
		}
		given = append(given, givenKey(k))
	}
	switch len(set) {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("the supplied %s key is not named %s (given: %s)", role, keyID, given[0]))
	default:
		parts = append(parts, fmt.Sprintf("none of the %d supplied %s keys is named %s (given: %s)", len(set), role, keyID, strings.Join(given, ", ")))
	}
	if withKeyring && c.opts.Keyring != nil {
		parts = append(parts, fmt.Sprintf("keyring %s pins no key %s", c.opts.Keyring.Path, keyID))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("no --%s-key was given", role)
	}
	return strings.Join(parts, ", and ")
}

// KeyIDHint explains, after a reason that no supplied key is named like the
// bundle's key, where a key's id comes from.
const KeyIDHint = "a key is chosen by its id, which a <keyId>.pub.pem file name, a keyring entry or a discovery document gives it"

// givenKey names a supplied key for a message: its file (with its id when the name
// does not say it) or, for a raw key, its fingerprint.
func givenKey(k keys.PublicKey) string {
	where := k.Origin
	if where == "" {
		where = string(k.Source) + " key " + k.Fingerprint()
	}
	switch {
	case k.KeyID == "":
		return where + ", which names no key id"
	case k.Source == keys.SourcePEMFile && strings.HasSuffix(where, k.KeyID+keys.PEMSuffix):
		return where
	}
	return where + " (" + k.KeyID + ")"
}

// independentRules: independent-unsigned, independent-self-signed,
// verifier-signature-invalid, independent-unverifiable.
//
// Self-signing is judged by key bytes, not only by id: a verifier signature that
// is the host signature itself, or that verifies under a key speaking for the host
// (the trusted host key, or a key the bundle's own document publishes as the
// host's), is the host's own, whatever its keyId says.
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
		case b.Signature != nil && vs.Sig == b.Signature.Sig:
			c.reject(KindIndependentSelfSigned, "", "verifierSignature.sig is the host signature itself: an independent verifier signs with its own key")
			return
		}
		if k, ok := c.hostSigned(vs.Sig); ok {
			c.reject(KindIndependentSelfSigned, "", "the verifier signature (keyId %s) verifies under the host's key %s: an independent verifier signs with its own key, whatever id it names", vs.KeyID, k.Describe())
			return
		}
	}
	if vs == nil || vs.Sig == "" {
		return
	}
	key, match, ok := c.verifierKey(vs.KeyID)
	if !ok {
		if c.claimsIndep {
			why := c.noKeyReason(vs.KeyID, "verifier", c.opts.VerifierKeys, false)
			if len(c.opts.VerifierKeys) > 0 {
				why += "; " + KeyIDHint
			}
			c.reject(KindIndependentUnverifiable, "", "a profile claims the independent tier, signed by verifier key %s, but %s", vs.KeyID, why)
		}
		return
	}
	if match == MatchLoneKey {
		c.loneKeyNote("--verifier-key", key, vs.KeyID, "verifierSignature.keyId")
	}
	if r, revoked := c.revocation(key, vs.KeyID); revoked {
		c.v.RevokedVerifierKey = r
		if !c.claimsIndep {
			c.note("verifier key %s (%s) is revoked in keyring %s since %s (%s): the verifier signature was not checked; a revoked key never verifies", r.KeyID, r.Fingerprint, r.Keyring, r.RevokedAt, r.Reason)
		}
		return
	}
	c.v.VerifierKey = keyUse(key, match)
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

// hostSigned returns the key speaking for the host under which sig verifies, if
// any: the trusted host key, or a key the bundle's own discovery document
// publishes under signature.keyId or host.signingKeyId.
func (c *checker) hostSigned(sig string) (keys.PublicKey, bool) {
	if c.attestation == nil {
		return keys.PublicKey{}, false
	}
	candidates := slices.Clone(c.hostKeys)
	for _, id := range []string{c.b.Host.SigningKeyID, c.v.Summary.SignatureKeyID} {
		if id == "" {
			continue
		}
		if k, err := keys.FromDiscovery(c.b.Discovery.Document, id, keys.SourceSelfPublished, "discovery.document"); err == nil {
			candidates = append(candidates, k)
		}
	}
	for _, k := range candidates {
		if keys.Verify(k.Key, c.attestation, sig) == nil {
			return k, true
		}
	}
	return keys.PublicKey{}, false
}

// profileRules: too-many-claims, profile-claim-duplicate,
// undeclared-relaxation-observed, relaxed-profile-certified,
// blocked-certified, discovery-digest, discovery-versions-mismatch,
// opted-out-but-advertised, profile-not-derivable, certified-not-witnessed.
func (c *checker) profileRules(rows []bundle.Row) {
	b := c.b
	reg := c.opts.Registry
	if n, m := len(b.ClaimedProfiles), len(b.Host.Relaxations); n > MaxClaimedProfiles || m > MaxRelaxations {
		// The relaxation and certification rules compare claims with claims; past
		// these bounds a hostile bundle could make them run for minutes. No real
		// bundle comes near them (the registry has three profiles), and the
		// bundle-wide rejection withdraws every profile anyway.
		c.reject(KindTooManyClaims, "", "the bundle claims %d profiles and declares %d relaxations; certcut judges at most %d and %d", n, m, MaxClaimedProfiles, MaxRelaxations)
		c.discoveryRules(reg)
		return
	}
	c.claimRules()
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
	decidable := c.discoveryRules(reg)

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
		// The claimed list is unsigned: a claim the signed document derives cannot be
		// dropped to hide an uncertified profile (spec §6.2 step 2: a major-2 bundle
		// claims every profile whose predicate holds).
		for _, id := range reg.Derived(*doc) {
			if !slices.Contains(claimedIDs, id) {
				c.reject(KindProfileClaimMissing, "", "the signed discovery document derives %s, but the bundle does not claim it: claimedProfiles is not signed, and a bundle claims every profile its document derives", id)
			}
		}
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

	if b.Suite.TargetMajor == 2 && reg != nil {
		c.floorRules(rows, reg)
	}
	c.relaxed = slices.Concat(declaredDenied, observedDenied)
}

// claimRules: profile-claim-duplicate. claimedProfiles is unsigned, and each rule
// that judges a claim judges every claim; still, a profile claimed twice (say once
// certified: false, as minted, and again certified: true, appended by hand) is a
// bundle no emitter writes, and readers that take the first or the last claim of
// an id would disagree about it. Each repeat is a bundle-wide rejection, so such
// a bundle certifies nothing.
func (c *checker) claimRules() {
	first := make(map[string]int, len(c.b.ClaimedProfiles))
	for i, p := range c.b.ClaimedProfiles {
		if j, dup := first[p.ID]; dup {
			c.reject(KindProfileClaimDuplicate, "", "claimedProfiles[%d] claims %s again (first claimed at claimedProfiles[%d], certified %t; again certified %t): a profile is claimed once, and claimedProfiles is not signed", i, p.ID, j, c.b.ClaimedProfiles[j].Certified, p.Certified)
			continue
		}
		first[p.ID] = i
	}
}

// discoveryRules: discovery-digest and discovery-versions-mismatch; it reports
// whether derivability is decidable (the document is there, hashes to
// discovery.sha256, the major is 2 and a registry was given) and says why not.
func (c *checker) discoveryRules(reg *profiles.Registry) bool {
	b := c.b
	doc := b.Discovery.Document
	decidable := false
	switch {
	case doc == nil:
		c.gap(GapDerivability, "derivability not checked: the bundle carries no discovery.document (bundles cut before suite 2.0.5), so discovery.sha256 cannot be re-derived either")
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
			c.versionRules(*doc)
		}
		switch {
		case !c.docDigestOK:
			c.gap(GapDerivability, "derivability not checked: the discovery document does not match discovery.sha256")
		case b.Suite.TargetMajor == 1:
			c.gap(GapDerivability, "derivability not checked: major-1 profiles derive from the v1 profile catalog, which certcut does not ship")
		case b.Suite.TargetMajor != 2:
			c.gap(GapDerivability, fmt.Sprintf("derivability not checked: suite.targetMajor %d has no profile registry", b.Suite.TargetMajor))
		case reg == nil:
			c.gap(GapDerivability, "derivability not checked: no v2 profile registry was given")
		default:
			decidable = true
		}
	}
	c.v.DerivabilityChecked = decidable
	return decidable
}

// versionRules: discovery-versions-mismatch. discovery.protocolVersions and
// preferredVersion restate members of the discovery document, which
// discovery.sha256 signs; when the document (its digest checked) has the member as
// minting copies it (an array of strings, a string), the stored value must be the
// same, and the member counts as derived rather than unsigned.
func (c *checker) versionRules(doc bundle.Value) {
	d := c.b.Discovery
	if v, ok := doc.Get("protocolVersions"); ok && v.Kind() == bundle.Array {
		var want []string
		all := true
		for _, item := range v.Items() {
			s, isStr := item.Str()
			all = all && isStr
			want = append(want, s)
		}
		if all {
			c.derived["discovery.protocolVersions"] = true
			if !slices.Equal(want, d.ProtocolVersions) {
				c.reject(KindDiscoveryVersionsMismatch, "", "discovery.protocolVersions is %s, but the signed discovery document lists %s", jsonStrings(d.ProtocolVersions), jsonStrings(want))
			}
		}
	}
	if v, ok := doc.Get("preferredVersion"); ok {
		if want, isStr := v.Str(); isStr {
			c.derived["discovery.preferredVersion"] = true
			if want != d.PreferredVersion {
				c.reject(KindDiscoveryVersionsMismatch, "", "discovery.preferredVersion is %q, but the signed discovery document says %q", d.PreferredVersion, want)
			}
		}
	}
}

// floorRules: certified-not-witnessed, and the witnessCount and floor notes. A
// profile's certified flag is the minter's word; at major 2 it is re-derived from
// the profile's floor rows (openwop.floor.<stem> for each of the registry's
// floorScenarios, signed through witnessSha256), as profiles.ClassifyFloorRow
// classifies them: a certified profile must have at least one witnessed floor row
// and none executed-fail, blocked or skipped. A floor row the bundle does not
// carry (the scenario joined the floor after the bundle was cut) and an
// inapplicable one are noted, not held against it.
func (c *checker) floorRules(rows []bundle.Row, reg *profiles.Registry) {
	byID := profiles.FloorRowsByID(rows)
	for _, p := range c.b.ClaimedProfiles {
		// Every claim is judged, a repeated one too (profile-claim-duplicate
		// rejects the repeat; this rule still refuses its certified flag).
		rp, known := reg.Profile(p.ID)
		if !known {
			continue
		}
		witnessed := 0
		var refuted, missing, inapplicable []string
		for _, f := range rp.Floor(byID) {
			switch f.State {
			case profiles.FloorWitnessed:
				witnessed++
			case profiles.FloorRefuted:
				refuted = append(refuted, f.RowID+" is "+f.Row.Result)
			case profiles.FloorMissing:
				missing = append(missing, f.Stem)
			case profiles.FloorInapplicable:
				inapplicable = append(inapplicable, f.RowID)
			}
		}
		if p.WitnessCount != witnessed {
			c.note("%s: witnessCount is %d, but %d of its floor rows are executed-pass (re-derived from the signed rows; witnessCount itself is unsigned)", p.ID, p.WitnessCount, witnessed)
		}
		if !p.Certified {
			continue
		}
		var why []string
		if len(refuted) > 0 {
			why = append(why, "its floor row "+strings.Join(refuted, ", "))
		}
		if witnessed == 0 {
			switch {
			case len(rp.FloorScenarios) == 0:
				why = append(why, fmt.Sprintf("the registry (%s) lists no floor scenario for it, so nothing witnesses it", reg.Source))
			default:
				why = append(why, fmt.Sprintf("none of its %d floor rows is executed-pass with assertions", len(rp.FloorScenarios)))
			}
		}
		if len(why) > 0 {
			c.reject(KindCertifiedNotWitnessed, p.ID, "%s is marked certified, but %s: its floor does not witness it", p.ID, strings.Join(why, "; and "))
		}
		if len(missing) > 0 {
			c.note("%s: the bundle carries no floor row for %d of its %d floor scenarios (%s): a scenario that joined the floor after suite %s, or one that never ran; not held against it", p.ID, len(missing), len(rp.FloorScenarios), strings.Join(missing, ", "), c.b.Suite.Version)
		}
		if len(inapplicable) > 0 {
			c.note("%s: inapplicable floor rows neither witness nor refute it: %s", p.ID, strings.Join(inapplicable, ", "))
		}
	}
}

// certify sets the certified list: the profiles marked certified, minus those a
// profile-scoped rejection withdrew, minus relaxed ones; none when any rejection
// is bundle-wide.
func (c *checker) certify() {
	for _, r := range c.v.Rejections {
		if r.Profile == "" {
			return
		}
	}
	c.v.CertifiedProfiles = slices.DeleteFunc(c.stillCertified(), func(id string) bool { return slices.Contains(c.relaxed, id) })
}

// stillCertified returns the profiles marked certified that no profile-scoped
// rejection has withdrawn yet.
func (c *checker) stillCertified() []string {
	out := []string{}
	listed := map[string]bool{}
	for _, p := range c.b.ClaimedProfiles {
		if p.Certified && !c.withdrawn[p.ID] && !listed[p.ID] {
			listed[p.ID] = true
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
	// When the signature verified under this very key, keyDates judges its
	// retirement at the signing time; these notes are for a key not trusted.
	judged := c.v.HostKey != nil && c.v.SignatureVerified && c.v.HostKey.PublicKey == a.PublicKey && a.Outcome == AttributionVerifies
	if key.RetiredAt != "" && !judged {
		if after(b.GeneratedAt, key.RetiredAt) {
			c.note("key %s was retired at %s, before this bundle was generated: generatedAt, which no signature covers, says %s", a.KeyID, key.RetiredAt, b.GeneratedAt)
		} else {
			c.note("key %s is retired (%s); it stays valid for the bundles it signed before then, and generatedAt, which no signature covers, says this one was generated at %s", a.KeyID, key.RetiredAt, b.GeneratedAt)
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
		v.Unverified, v.Gaps = []string{}, nil
		return
	}
	if !c.signatureChecked {
		reason := "host signature not checked: " + v.NoTrustedKey
		if len(c.opts.HostKeys) > 0 {
			reason += "; " + KeyIDHint
		}
		if r := v.RevokedKey; r != nil {
			reason = fmt.Sprintf("host signature not checked: key %s (%s) is revoked in keyring %s since %s (%s); a revoked key never verifies", r.KeyID, r.Fingerprint, r.Keyring, r.RevokedAt, r.Reason)
		}
		reason += "; self-published, not trusted: " + v.SelfPublished.Detail
		v.Unverified = append([]string{reason}, v.Unverified...)
		v.Gaps = append([]Gap{{Kind: GapHostKey, Detail: reason}}, v.Gaps...)
	}
	if c.claimsIndep && !v.VerifierSignatureVerified {
		reason := "independent tier claimed, but the verifier signature was not verified"
		if r := v.RevokedVerifierKey; r != nil {
			reason = fmt.Sprintf("independent tier claimed, but verifier key %s (%s) is revoked in keyring %s since %s (%s); a revoked key never verifies", r.KeyID, r.Fingerprint, r.Keyring, r.RevokedAt, r.Reason)
		}
		c.gap(GapIndependent, reason)
	}
	if len(v.Unverified) > 0 {
		v.Outcome = Coherent
	} else {
		v.Outcome = Verified
	}
}

// gap records one reason the verdict is not VERIFIED, typed and as text.
func (c *checker) gap(kind GapKind, detail string) {
	c.v.Unverified = append(c.v.Unverified, detail)
	c.v.Gaps = append(c.v.Gaps, Gap{Kind: kind, Detail: detail})
}

func keyUse(k keys.PublicKey, match string) *KeyUse {
	return &KeyUse{KeyID: k.KeyID, Source: string(k.Source), Origin: k.Origin, PublicKey: k.Base64URL(), Fingerprint: k.Fingerprint(), RetiredAt: k.RetiredAt, NotBefore: k.NotBefore, Match: match}
}

// unsigned fills Verdict.Unsigned: every member bundle.Bindings calls unsigned that
// the bundle carries, with its value, except those this verdict re-derived.
func (c *checker) unsigned() {
	for _, mb := range bundle.Bindings {
		if mb.Binding != bundle.Unsigned || c.derived[mb.Member] {
			continue
		}
		v, ok := memberValue(c.b.Raw, mb.Member)
		if !ok {
			continue
		}
		if mb.Member == "detail.nonPass" {
			v = bundle.IntValue(int64(len(v.Items())))
		}
		if raw, err := bundle.Canonical(v); err == nil {
			c.v.Unsigned[mb.Member] = raw
		}
	}
}

// memberValue returns the value at a Bindings path ("host.name",
// "claimedProfiles[].evidenceTier": an array of each element's value).
func memberValue(root bundle.Value, path string) (bundle.Value, bool) {
	head, rest, more := strings.Cut(path, ".")
	name, each := strings.CutSuffix(head, "[]")
	v, ok := root.Get(name)
	if !ok {
		return bundle.Value{}, false
	}
	if each {
		if v.Kind() != bundle.Array {
			return bundle.Value{}, false
		}
		items := make([]bundle.Value, 0, len(v.Items()))
		for _, it := range v.Items() {
			if !more {
				items = append(items, it)
			} else if iv, ok := memberValue(it, rest); ok {
				items = append(items, iv)
			}
		}
		return bundle.ArrayValue(items...), true
	}
	if !more {
		return v, true
	}
	return memberValue(v, rest)
}
