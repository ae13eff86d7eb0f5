// Package verify judges one certification bundle: it re-derives every claim from the
// signed rows (totals, assertion count, witness digest, discovery digest, certified
// profiles, durability rung), checks the signatures under keys the caller trusts,
// and returns a Verdict. The Verdict is data; text, JSON and reports render it.
//
// The rules and their order are those of the reference verifyBundleV3
// (conformance/src/lib/certification-bundle-v3.ts), restated in docs/verify.md.
package verify

import (
	"encoding/json"
	"slices"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/declaration"
)

// Kind names one rejection rule.
type Kind string

// Rejection kinds, in the order the verifier checks them. schema,
// discovery-versions-mismatch, profile-claim-missing, certified-not-witnessed,
// too-many-claims, profile-claim-duplicate, the four timestamp-* kinds and the
// deploy binding's build-kind, build-mismatch and target-major (Options.Expect;
// the checks OpenWOP's installer makes before serving a bundle) are certcut's
// own; the others are the reference verifyBundleV3's.
const (
	KindNotV3                        Kind = "not-v3"
	KindSchema                       Kind = "schema"
	KindDuplicateRequirement         Kind = "duplicate-requirement"
	KindReasonMissing                Kind = "reason-missing"
	KindVacuousPass                  Kind = "vacuous-pass"
	KindTotalsMismatch               Kind = "totals-mismatch"
	KindWitnessDigest                Kind = "witness-digest"
	KindAssertionCount               Kind = "assertion-count"
	KindDetailMissing                Kind = "detail-missing"
	KindBuildMissing                 Kind = "build-missing"
	KindBuildKind                    Kind = "build-kind"     // certcut's own (Options.Expect)
	KindBuildMismatch                Kind = "build-mismatch" // certcut's own (Options.Expect)
	KindTargetMajor                  Kind = "target-major"   // certcut's own (Options.Expect)
	KindSignatureMissing             Kind = "signature-missing"
	KindSignatureOver                Kind = "signature-over"
	KindSignatureInvalid             Kind = "signature-invalid"
	KindIndependentUnsigned          Kind = "independent-unsigned"
	KindIndependentSelfSigned        Kind = "independent-self-signed"
	KindVerifierSignatureInvalid     Kind = "verifier-signature-invalid"
	KindIndependentUnverifiable      Kind = "independent-unverifiable"
	KindTimestampMalformed           Kind = "timestamp-malformed" // certcut's own
	KindTimestampImprint             Kind = "timestamp-imprint"   // certcut's own
	KindTimestampUsage               Kind = "timestamp-usage"     // certcut's own
	KindTimestampUntrusted           Kind = "timestamp-untrusted" // certcut's own
	KindRungNotDerivable             Kind = "rung-not-derivable"
	KindUndeclaredRelaxationObserved Kind = "undeclared-relaxation-observed"
	KindRelaxedProfileCertified      Kind = "relaxed-profile-certified"
	KindBlockedCertified             Kind = "blocked-certified"
	KindDiscoveryDigest              Kind = "discovery-digest"
	KindDiscoveryVersionsMismatch    Kind = "discovery-versions-mismatch" // certcut's own
	KindOptedOutButAdvertised        Kind = "opted-out-but-advertised"
	KindProfileClaimMissing          Kind = "profile-claim-missing" // certcut's own
	KindProfileNotDerivable          Kind = "profile-not-derivable"
	KindCertifiedNotWitnessed        Kind = "certified-not-witnessed" // certcut's own
	KindTooManyClaims                Kind = "too-many-claims"         // certcut's own
	KindProfileClaimDuplicate        Kind = "profile-claim-duplicate" // certcut's own
	KindMaturityOverstated           Kind = "maturity-overstated"     // certcut's own (Options.Maturity)
)

// Bounds on what a bundle may claim before the rules that compare claims with
// claims run (too-many-claims): far above any real bundle, low enough that a
// hostile one cannot keep the verifier busy for minutes.
const (
	MaxClaimedProfiles = 256
	MaxRelaxations     = 256
)

// ProfileScoped reports whether rejections of the kind name the profile they
// withdraw (every other kind withdraws all profiles).
func (k Kind) ProfileScoped() bool {
	switch k {
	case KindUndeclaredRelaxationObserved, KindRelaxedProfileCertified, KindProfileNotDerivable, KindCertifiedNotWitnessed:
		return true
	}
	return false
}

// Rejection is one problem found. A rejection with a Profile withdraws only that
// profile from the certified list; one without withdraws all of them.
type Rejection struct {
	Kind    Kind   `json:"kind"`
	Detail  string `json:"detail"`
	Profile string `json:"profile,omitempty"`
	// Pointer is the JSON pointer (RFC 6901) of the member a schema rejection is
	// about ("" is the whole document); empty for the other kinds.
	Pointer string `json:"pointer,omitempty"`
	// MissingMember: a schema rejection saying the member at Pointer is
	// required and absent. Not in the JSON form.
	MissingMember bool `json:"-"`
	// Omitted, when non-zero, says this rejection stands for that many more of its
	// kind that are not listed (Verdict.OmittedRejections); it names no profile.
	Omitted int `json:"omitted,omitempty"`
}

// Outcome is the overall judgement.
type Outcome string

// Outcomes, with their exit codes in the CLI: VERIFIED 0, REJECTED 1, COHERENT 2.
// UNREADABLE (3) is the CLI's word for a file that is not JSON or not readable; the
// verifier itself never returns it.
const (
	Verified   Outcome = "VERIFIED"
	Rejected   Outcome = "REJECTED"
	Coherent   Outcome = "COHERENT"
	Unreadable Outcome = "UNREADABLE"
)

// ExitCode maps an outcome to the exit code the reference CLI uses.
func (o Outcome) ExitCode() int {
	switch o {
	case Verified:
		return 0
	case Rejected:
		return 1
	case Coherent:
		return 2
	}
	return 3
}

// Severity orders outcomes from best to worst, so that a run over several files
// exits with the worst: VERIFIED < COHERENT < REJECTED < UNREADABLE.
func (o Outcome) Severity() int {
	switch o {
	case Verified:
		return 0
	case Coherent:
		return 1
	case Rejected:
		return 2
	}
	return 3
}

// Attribution outcomes: what became of signature.keyId in a discovery document. The
// four failures stay distinct (spec §4.2).
type AttributionOutcome string

// Attribution outcomes.
const (
	AttributionVerifies        AttributionOutcome = "verifies"
	AttributionNoDocument      AttributionOutcome = "no-document"
	AttributionNoSigningKeys   AttributionOutcome = "no-signing-keys"
	AttributionKeyNotPublished AttributionOutcome = "key-not-published"
	AttributionDoesNotVerify   AttributionOutcome = "does-not-verify"
)

// Attribution is the result of resolving the signing key in a discovery document and
// checking the signature under it.
type Attribution struct {
	Outcome   AttributionOutcome `json:"outcome"`
	KeyID     string             `json:"keyId"`
	PublicKey string             `json:"publicKey,omitempty"`
	RetiredAt string             `json:"retiredAt,omitempty"`
	Detail    string             `json:"detail"`
}

// KeyUse says which key the host signature was checked under and where it came from.
type KeyUse struct {
	KeyID       string `json:"keyId,omitempty"`
	Source      string `json:"source"`
	Origin      string `json:"origin,omitempty"`
	PublicKey   string `json:"publicKey"`
	Fingerprint string `json:"fingerprint"`
	RetiredAt   string `json:"retiredAt,omitempty"`
	NotBefore   string `json:"notBefore,omitempty"`
	// Match says how the key was chosen: "key-id" (a supplied key named like the
	// bundle's key id), "keyring" (the keyring pins the key id) or "lone-key" (the
	// only key given, whatever its id: Options.UnsafeLoneKeyAnyKeyID).
	Match string `json:"match"`
}

// KeyRevocation says that the trusted key chosen for the host (or verifier)
// signature is revoked in the keyring, so it was not used: a revoked key never
// verifies.
type KeyRevocation struct {
	KeyID       string `json:"keyId"`
	Fingerprint string `json:"fingerprint"`
	RevokedAt   string `json:"revokedAt"`
	Reason      string `json:"reason"`
	Keyring     string `json:"keyring"`
}

// Signing-time sources (SigningTime.Source).
const (
	// TimeRFC3161: a time-stamp token checked under a TSA certificate the
	// caller trusts says the signature existed then.
	TimeRFC3161 = "rfc3161"
	// TimeGeneratedAt: nothing but the bundle's own generatedAt, which no
	// signature covers.
	TimeGeneratedAt = "generatedAt (unsigned)"
)

// SigningTime is when a signature was made, with where that time comes from.
type SigningTime struct {
	// Source is TimeRFC3161 or TimeGeneratedAt.
	Source string `json:"source"`
	// Time is the token's time (RFC 3339, UTC) or generatedAt as the bundle
	// gives it ("" when it gives none).
	Time string `json:"time"`
	// Accuracy is the token's stated accuracy ("1s"); the signature existed no
	// later than Time plus Accuracy.
	Accuracy string `json:"accuracy,omitempty"`
	// TSA is the subject of the certificate that signed the token, TrustedBy
	// the trusted certificate (--tsa-cert) its chain ends at, Serial the
	// token's serial number.
	TSA       string `json:"tsa,omitempty"`
	TrustedBy string `json:"trustedBy,omitempty"`
	Serial    string `json:"serial,omitempty"`
	// Token is the token file read, if any.
	Token string `json:"token,omitempty"`
	// TokenNotTrusted says, when a token came but Source is still
	// TimeGeneratedAt, why it does not count (no --tsa-cert, a token that
	// carries no certificate, or the problem a rejection names).
	TokenNotTrusted string `json:"tokenNotTrusted,omitempty"`
}

// Trusted reports whether the time is a trusted token's.
func (t SigningTime) Trusted() bool { return t.Source == TimeRFC3161 }

// Key-date statuses (KeyDates.Status).
const (
	// KeyInService: the signature was made while the key was in service, as a
	// trusted time (or, for a retirement still to come, the clock) shows.
	KeyInService = "in-service"
	// KeyDatesSelfAsserted: only generatedAt, which nothing signs, says the key
	// was in service: the verdict is at best COHERENT.
	KeyDatesSelfAsserted = "self-asserted"
	// KeyOutOfService: the trusted time (or the bundle's own generatedAt) puts
	// the signature outside the key's service.
	KeyOutOfService = "out-of-service"
)

// KeyDates is the judgement of a key's dates (the host's, or the verifier's) at
// the signing time.
type KeyDates struct {
	Status    string `json:"status"`
	RetiredAt string `json:"retiredAt,omitempty"`
	NotBefore string `json:"notBefore,omitempty"`
	// Reason says why, in words; when Status is not KeyInService it is also
	// one of the verdict's notIndependentlyVerified reasons.
	Reason string `json:"reason"`
}

// Summary is what a reviewer reads first: whose bundle, which build, which suite,
// what it counts.
type Summary struct {
	Host            string        `json:"host"`
	HostVersion     string        `json:"hostVersion"`
	Vendor          string        `json:"vendor,omitempty"`
	Build           bundle.Build  `json:"build"`
	Suite           string        `json:"suite"`
	TargetMajor     int           `json:"targetMajor"`
	GeneratedAt     string        `json:"generatedAt"`
	DiscoveryURL    string        `json:"discoveryUrl"`
	Totals          bundle.Totals `json:"totals"`
	Rows            int           `json:"rows"`
	AssertionCount  int64         `json:"assertionCount"`
	WitnessSha256   string        `json:"witnessSha256"`
	DiscoverySha256 string        `json:"discoverySha256"`
	SignatureKeyID  string        `json:"signatureKeyId"`
	ClaimedProfiles []string      `json:"claimedProfiles"`
	Relaxations     []string      `json:"relaxations"`
	Deployment      string        `json:"deployment,omitempty"`
	DurabilityRung  string        `json:"durabilityRung,omitempty"`
	EvidenceTiers   []string      `json:"evidenceTiers"`
	HasDiscoveryDoc bool          `json:"hasDiscoveryDocument"`
}

// Verdict is the judgement of one bundle.
type Verdict struct {
	Outcome Outcome `json:"verdict"`
	// NotABundle says, for a JSON document that is not a certification bundle at
	// all (no bundleVersion), what it looks like ("a discovery document …"). The
	// verdict is still the reference's: REJECTED, not-v3. Readers of files
	// (ReadBundle, the CLI) refuse such a document before judging it
	// (Recognize, *NotABundleError).
	NotABundle string `json:"notABundle,omitempty"`
	// Rejections lists the problems found, in rule order: at most
	// MaxRejectionsPerKind of each kind, then one rejection of that kind counting
	// the rest (see OmittedRejections).
	Rejections []Rejection `json:"rejections"`
	// OmittedRejections counts the rejections found but not listed.
	OmittedRejections int `json:"omittedRejections"`
	// Unverified lists, for a COHERENT bundle, why it is not VERIFIED.
	Unverified []string `json:"notIndependentlyVerified"`
	// Gaps is Unverified typed: one Gap per entry, in the same order, its
	// Detail the entry's text. Callers that must tell the reasons apart read
	// Kind, never the sentence. Not part of the JSON form (Unverified is).
	Gaps []Gap `json:"-"`
	// Notes are facts worth a reviewer's attention that do not change the verdict.
	Notes []string `json:"notes"`

	SignatureVerified         bool     `json:"signatureVerified"`
	VerifierSignatureVerified bool     `json:"verifierSignatureVerified"`
	CertifiedProfiles         []string `json:"certifiedProfiles"`
	DerivabilityChecked       bool     `json:"derivabilityChecked"`
	OptedOut                  []string `json:"optedOut"`

	// HostKey is the trusted key the host signature was checked under, if any.
	HostKey *KeyUse `json:"hostKey"`
	// RevokedKey is set when the keyring revokes the key the host signature would
	// have been checked under; the signature was then not checked.
	RevokedKey *KeyRevocation `json:"revokedKey"`
	// NoTrustedKey says, when no trusted key was chosen for signature.keyId (and
	// none revoked), why: which keys were given and that none is named so.
	NoTrustedKey string `json:"noTrustedKey,omitempty"`
	// VerifierKey is the trusted key the verifier signature was checked under, if any.
	VerifierKey *KeyUse `json:"verifierKey"`
	// RevokedVerifierKey is set when the keyring revokes the key the verifier
	// signature would have been checked under; it was then not checked.
	RevokedVerifierKey *KeyRevocation `json:"revokedVerifierKey"`
	// SigningTime says when the host signature was made, as far as anything
	// shows: the time of a trusted RFC 3161 token, or else generatedAt, which
	// nothing signs.
	SigningTime SigningTime `json:"signingTime"`
	// VerifierSigningTime is the same for the verifier signature, when a token
	// for it came with the bundle; nil otherwise.
	VerifierSigningTime *SigningTime `json:"verifierSigningTime,omitempty"`
	// Maturity is the maturity bound applied to the bundle (Options.Maturity);
	// nil when no declaration was given.
	Maturity *declaration.Maturity `json:"maturity,omitempty"`
	// SuiteAdvisory is the advisory whose range holds suite.version
	// (Options.Advisories); nil when none does.
	SuiteAdvisory *declaration.Advisory `json:"suiteAdvisory,omitempty"`
	// KeyDates judges the trusted host key's retiredAt and notBefore at
	// SigningTime; nil when the key has no dates or was not used.
	KeyDates *KeyDates `json:"keyDates,omitempty"`
	// VerifierKeyDates judges the trusted verifier key's retiredAt and notBefore
	// at VerifierSigningTime (or generatedAt) as KeyDates does the host key's;
	// nil when the key has no dates or the verifier signature did not verify.
	VerifierKeyDates *KeyDates `json:"verifierKeyDates,omitempty"`
	// SelfPublished resolves signature.keyId in the bundle's own discovery document.
	// It is reported, never trusted: a bundle can publish any key it likes.
	SelfPublished Attribution `json:"selfPublished"`

	// Unsigned lists the claims the bundle makes that no signature covers and this
	// verdict did not re-derive: each member bundle.Bindings calls unsigned that the
	// bundle carries, keyed by its path, with its value as the bundle gives it (for a
	// path with "[]", an array of every element's value; for detail.nonPass, the
	// number of its entries). discovery.protocolVersions and preferredVersion are
	// left out when they were checked against the signed discovery document.
	Unsigned map[string]json.RawMessage `json:"unsigned"`

	// Recomputed digests, for comparison with the stored ones.
	WitnessRecomputed   string `json:"witnessRecomputed"`
	DiscoveryRecomputed string `json:"discoveryRecomputed,omitempty"`

	Summary Summary `json:"bundle"`
}

// ProblemCount is the number of problems found: the rejections listed, less the
// ones that only count the rest, plus the ones left out.
func (v *Verdict) ProblemCount() int {
	if v.OmittedRejections == 0 {
		return len(v.Rejections)
	}
	summaries := 0
	for _, r := range v.Rejections {
		if r.Omitted > 0 {
			summaries++
		}
	}
	return len(v.Rejections) - summaries + v.OmittedRejections
}

// ExitCode is the verdict's exit code (0, 1 or 2).
func (v *Verdict) ExitCode() int { return v.Outcome.ExitCode() }

// HasRejection reports whether a rejection of the kind was found.
func (v *Verdict) HasRejection(k Kind) bool {
	for _, r := range v.Rejections {
		if r.Kind == k {
			return true
		}
	}
	return false
}

// Kinds returns the rejection kinds found, in order, with repeats.
func (v *Verdict) Kinds() []Kind {
	out := make([]Kind, len(v.Rejections))
	for i, r := range v.Rejections {
		out[i] = r.Kind
	}
	return out
}

// GapKind says why a COHERENT verdict is not VERIFIED.
type GapKind string

const (
	// GapHostKey: the host signature was not checked under a trusted key (none
	// given or matched, or the key is revoked).
	GapHostKey GapKind = "host-key"
	// GapDerivability: certified profiles were not re-derived (no discovery
	// document, a mismatch, no registry for the major).
	GapDerivability GapKind = "derivability"
	// GapIndependent: a profile claims the independent tier, and the verifier
	// signature was not verified (absent, unchecked or revoked key).
	GapIndependent GapKind = "independent"
	// GapKeyDates: the host key was not in service at the signing time
	// (Verdict.KeyDates says why).
	GapKeyDates GapKind = "key-dates"
	// GapVerifierKeyDates: the verifier key, on which a claimed independent
	// tier rests, was not in service at its signing time
	// (Verdict.VerifierKeyDates).
	GapVerifierKeyDates GapKind = "verifier-key-dates"
)

// Gap is one reason a verdict is COHERENT rather than VERIFIED.
type Gap struct {
	Kind   GapKind `json:"kind"`
	Detail string  `json:"detail"`
}

// HasOnlyGaps reports whether the verdict has at least one gap and every gap
// is of one of the kinds.
func (v *Verdict) HasOnlyGaps(kinds ...GapKind) bool {
	if len(v.Gaps) == 0 {
		return false
	}
	for _, g := range v.Gaps {
		if !slices.Contains(kinds, g.Kind) {
			return false
		}
	}
	return true
}
