// Package mint cuts a certification bundle: it composes the rows (package rows), the
// captured discovery document (package discovery), the build, the suite and the
// relaxations into a v3 bundle, derives the claimed profiles with certified and
// witnessCount (package profiles), seals it (bundle.Seal: totals, assertionCount,
// detail.nonPass, the digests), scrubs secrets from it, signs it (package keys) and
// verifies the result with package verify before anyone writes it. It has no
// canonicalizer, digest or verifier of its own.
package mint

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/atomicfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// TimeLayout is how generatedAt is written: ECMAScript's Date.prototype.toISOString.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// DefaultSpecArtifactsVersion is suite.specArtifactsVersion when no spec-artifacts
// lock is known (the reference's "repo-layout").
const DefaultSpecArtifactsVersion = "repo-layout"

// OptOutDetail starts the detail of an opt-out row; the verifier reads the marker.
const OptOutDetail = "operator declared an honest opt-out via OPENWOP_OPTED_OUT_PROFILES: "

// OptOutScenario is the scenario of an opt-out row certcut adds: the row is
// recorded by mint, not by a scenario file, and says so.
const OptOutScenario = "bundle-mint"

// Input is everything a bundle is assembled from.
type Input struct {
	// Rows are held by the assembled bundle, not copied: leave them unchanged
	// while it is in use.
	Rows []bundle.Row
	// Discovery is the captured document, embedded as captured (never
	// scrubbed: it is public); its Sha256 (set by the capture, empty to have it
	// computed) becomes discovery.sha256.
	Discovery *discovery.Document
	Build     bundle.Build
	// Suite: Version, TargetMajor, SpecArtifactsVersion (default "repo-layout"),
	// StampSha256. Name is set by mint.
	Suite bundle.Suite
	// Host name, version and vendor; empty ones default from the document's
	// implementation member.
	HostName, HostVersion, HostVendor string
	Relaxations                       []bundle.Relaxation
	// ColocatedCompanion writes the signed host.deployment "colocated-companion".
	ColocatedCompanion bool
	// OptOuts are profile names (or family.<key>) the operator opted out of
	// (OPENWOP_OPTED_OUT_PROFILES).
	OptOuts      []string
	EvidenceTier string
	Registry     *profiles.Registry
	GeneratedAt  time.Time
	// KeyID is the host signing key id; it becomes host.signingKeyId.
	KeyID string
	// Secrets are values to keep out of evidence, beyond those found in Env, the
	// signing key and the canary. Env is a KEY=VALUE list (os.Environ()).
	Secrets []string
	Env     []string
	// KeyPEM is the signing key's PEM text (nil for a KMS key), scrubbed too.
	KeyPEM []byte
}

// UsageError is an input that is well-formed but cannot make a bundle: the caller
// must change what it asks for.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// Assembled is an unsigned, sealed, scrubbed bundle and what went into it.
type Assembled struct {
	Bundle *bundle.Bundle
	// Profiles are the claimed profiles with the reasons a profile does not certify.
	Profiles []profiles.Assessment
	// Redacted lists the JSON pointers where a secret was replaced.
	Redacted []string
	// LeftAlone notes each candidate secret that was not scrubbed, and why (see
	// SecretSet.LeftAlone); it never quotes a value.
	LeftAlone []string
	// Warnings are facts the maintainer should see that do not stop the mint.
	Warnings []string
}

// Assemble builds the unsigned bundle: rows (plus opt-out rows the rows lack), the
// discovery capture, build, suite, host, relaxations and deployment; the claimed
// profiles with witnessCount and certified (profiles.Assess); durability.rung when
// the rows derive one. It scrubs every secret (CollectSecrets) from the bundle
// before sealing, so the digests are over the scrubbed text, then seals it. The
// discovery document is never scrubbed: it is public, so a secret found in it is
// no secret, and is left alone in the rows too (Assembled.LeftAlone says so).
func Assemble(in Input) (*Assembled, error) {
	if err := check(in); err != nil {
		return nil, err
	}
	doc := in.Discovery.Value
	out := &Assembled{}
	rows := in.Rows[:len(in.Rows):len(in.Rows)] // an opt-out row is appended to a copy
	for _, name := range in.OptOuts {
		if fam, isFamily := strings.CutPrefix(name, "family."); isFamily {
			if v, ok := doc.Get(fam); ok && v.Kind() == bundle.Object {
				return nil, usage("cannot opt out of %s: the discovery document advertises the %s family (a verifier rejects opted-out-but-advertised)", name, fam)
			}
		} else if in.Registry.Derives(doc, name) {
			return nil, usage("cannot opt out of %s: the discovery document derives it (a verifier rejects opted-out-but-advertised)", name)
		}
		id := "openwop.profile." + name
		if slices.ContainsFunc(rows, func(r bundle.Row) bool { return r.ID == id }) {
			continue
		}
		zero := int64(0)
		detail := OptOutDetail + name
		rows = append(rows, bundle.Row{ID: id, Scenario: OptOutScenario, Result: bundle.Skipped, Assertions: &zero, Detail: &detail})
	}

	name, version, vendor := in.Discovery.Implementation()
	host := bundle.Host{Name: in.HostName, Version: in.HostVersion, Vendor: in.HostVendor, Build: in.Build, SigningKeyID: in.KeyID, Relaxations: in.Relaxations}
	if host.Name == "" {
		host.Name = name
	}
	if host.Version == "" {
		host.Version = version
	}
	if host.Vendor == "" {
		host.Vendor = vendor
	}
	if host.Name == "" || host.Version == "" {
		return nil, usage("the host's name and version are unknown: the discovery document has no implementation.name/version; pass --host-name and --host-version")
	}
	if in.ColocatedCompanion {
		host.Deployment = bundle.DeploymentColocatedCompanion
	}
	suite := in.Suite
	suite.Name = bundle.SuiteName
	if suite.SpecArtifactsVersion == "" {
		suite.SpecArtifactsVersion = DefaultSpecArtifactsVersion
	}
	docCopy := doc
	b := &bundle.Bundle{
		BundleVersion: bundle.Version,
		GeneratedAt:   in.GeneratedAt.UTC().Format(TimeLayout),
		Suite:         suite,
		Host:          host,
		Discovery: bundle.Discovery{
			URL:              in.Discovery.URL,
			ProtocolVersions: nonNil(in.Discovery.ProtocolVersions()),
			PreferredVersion: in.Discovery.PreferredVersion(),
			Document:         &docCopy,
		},
		Results: bundle.ResultSet{Requirements: rows},
	}

	// Scrub the whole bundle, then read it back: what is sealed and signed is
	// exactly the scrubbed text. The discovery document is public by definition
	// and is never rewritten: a secret it holds is not one (DropPublished), so
	// nothing in it matches what is left to scrub.
	set := CollectSecrets(in.Secrets, in.Env, in.KeyPEM, in.KeyID)
	set.DropPublished(&doc, "/discovery/document")
	out.LeftAlone = set.LeftAlone
	for _, note := range set.Published {
		out.Warnings = append(out.Warnings, "the signing key's private key text is in the discovery document, which is public: the key is compromised; retire it ("+note+")")
	}
	scrubbed, where := Scrub(b.Value(), set.Values)
	if slices.ContainsFunc(where, func(ptr string) bool { return strings.HasPrefix(ptr, "/discovery/document/") }) {
		return nil, fmt.Errorf("scrubbing secrets would rewrite the discovery document (%s), which is never rewritten", strings.Join(where, ", "))
	}
	out.Redacted = where
	b.Raw = scrubbed // what b encodes to: Seal, Sign and Encode take its rows from it
	if len(where) > 0 {
		decoded, problems := bundle.Decode(scrubbed)
		for _, p := range problems {
			if p.Pointer != "/signature" {
				return nil, fmt.Errorf("scrubbing secrets broke the bundle at %s (%s): a secret equals a structural value; drop it from --secret or the environment", p.Pointer, p.Message)
			}
		}
		seen := map[string]bool{}
		for _, r := range decoded.Results.Requirements {
			if seen[r.ID] {
				return nil, fmt.Errorf("scrubbing secrets made two row ids equal (%s); a secret appears in requirement ids", r.ID)
			}
			seen[r.ID] = true
		}
		b = decoded
		b.Signature = nil
	}
	doc = *b.Discovery.Document

	declared := make([]string, len(b.Host.Relaxations))
	for i, r := range b.Host.Relaxations {
		declared[i] = r.Obligation
	}
	out.Profiles = in.Registry.Assess(doc, b.Results.Requirements, declared)
	for _, a := range out.Profiles {
		b.ClaimedProfiles = append(b.ClaimedProfiles, bundle.ClaimedProfile{ID: a.ID, EvidenceTier: in.EvidenceTier, WitnessCount: a.WitnessCount, Certified: a.Certified})
	}
	if len(b.ClaimedProfiles) == 0 {
		out.Warnings = append(out.Warnings, "the discovery document derives no profile of the registry ("+in.Registry.Source+"): the bundle claims none")
	}
	b.Durability = nil
	if rung, err := bundle.DeriveRung(b.Results.Requirements); err == nil {
		b.Durability = &bundle.Durability{Rung: rung}
	}
	// The capture computed the document's digest, and the document is embedded
	// as captured.
	if err := b.SealWithDiscoveryDigest(in.Discovery.Sha256); err != nil {
		return nil, fmt.Errorf("sealing the bundle: %w", err)
	}
	if b.AssertionCount < 1 {
		return nil, &InputError{Msg: "the rows assert nothing (the sum of their assertions is 0); a bundle witnesses at least one assertion"}
	}
	out.Warnings = append(out.Warnings, keyWarnings(doc, in.KeyID)...)
	out.Bundle = b
	return out, nil
}

// InputError is row content that cannot make a bundle.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func check(in Input) error {
	switch {
	case in.Discovery == nil:
		return usage("no discovery document: give --discovery URL or --discovery-file FILE")
	case len(in.Rows) == 0:
		return usage("no rows: give at least one of --ledger, --rows, --vitest, --junit")
	case in.Registry == nil:
		return usage("no profile registry")
	case in.Suite.Version == "":
		return usage("the suite version is required (--suite-version), e.g. 2.45.30")
	case in.Suite.TargetMajor != 2:
		return usage("target major %d: certcut mints major-2 bundles only (major-1 profiles derive from the v1 catalog, which certcut does not ship)", in.Suite.TargetMajor)
	case in.Suite.StampSha256 != "" && !isHex64(in.Suite.StampSha256):
		return usage("the suite stamp must be 64 lowercase hex digits, is %q", in.Suite.StampSha256)
	case in.KeyID == "":
		return usage("the signing key id is required (--key-id): it becomes host.signingKeyId and signature.keyId")
	case !keys.KeyIDPattern.MatchString(in.KeyID):
		return usage("key id %q does not match %s", in.KeyID, keys.KeyIDPattern)
	}
	if err := CheckBuild(in.Build); err != nil {
		return err
	}
	switch in.EvidenceTier {
	case bundle.TierSelf, bundle.TierSteward, bundle.TierIndependent:
	default:
		return usage("evidence tier %q is not one of self, steward, independent", in.EvidenceTier)
	}
	for i, r := range in.Relaxations {
		if err := CheckRelaxation(r); err != nil {
			return usage("relaxation %d: %v", i+1, err)
		}
	}
	return nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckBuild checks a host.build: a known kind and a non-empty id.
func CheckBuild(b bundle.Build) error {
	switch b.Kind {
	case bundle.BuildCommit, bundle.BuildImageDigest, bundle.BuildArtifactSHA256:
	case "":
		return usage("the build is required: --build commit:<sha>|image-digest:<digest>|artifact-sha256:<hex>, or --build-from-git DIR")
	default:
		return usage("build kind %q is not one of commit, image-digest, artifact-sha256", b.Kind)
	}
	if strings.TrimSpace(b.ID) == "" {
		return usage("the build id is empty (--build %s:<id>)", b.Kind)
	}
	return nil
}

// ParseBuild reads "kind:id".
func ParseBuild(s string) (bundle.Build, error) {
	kind, id, ok := strings.Cut(s, ":")
	if !ok {
		return bundle.Build{}, usage("--build %q: write kind:id, e.g. commit:5aa8686e… or image-digest:sha256:c13b…", s)
	}
	b := bundle.Build{Kind: kind, ID: id}
	return b, CheckBuild(b)
}

// CheckRelaxation checks one declared relaxation.
func CheckRelaxation(r bundle.Relaxation) error {
	switch {
	case strings.TrimSpace(r.Obligation) == "":
		return errors.New("the obligation is empty")
	case r.Durability != "session" && r.Durability != "deployment" && r.Durability != "persisted":
		return fmt.Errorf("durability %q is not one of session, deployment, persisted", r.Durability)
	case strings.TrimSpace(r.Reason) == "":
		return fmt.Errorf("relaxation %s gives no reason", r.Obligation)
	}
	return nil
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// keyWarnings says whether the document publishes the signing key, which a
// verifier (and every gate) resolves the key id in.
func keyWarnings(doc bundle.Value, keyID string) []string {
	_, err := keys.FromDiscovery(&doc, keyID, keys.SourceDiscovery, "discovery document")
	var notPublished *keys.KeyNotPublishedError
	switch {
	case errors.Is(err, keys.ErrNoSigningKeys):
		return []string{"the discovery document publishes no signingKeys[]: publish the key (`bundle keys public` prints the entry) so verifiers can attribute the bundle"}
	case errors.As(err, &notPublished):
		return []string{fmt.Sprintf("the discovery document does not publish key %s (it publishes %s): publish it before you publish the bundle", keyID, strings.Join(notPublished.Published, ", "))}
	case err != nil:
		return []string{"the discovery document's entry for " + keyID + " is unusable: " + err.Error()}
	}
	return nil
}

// Sign signs an assembled bundle as its host and, when verifier is set, adds the
// independent verifier's signature. It also warns when the document publishes the
// key id with a different public key.
func Sign(a *Assembled, host *keys.Signer, keyID string, verifier *keys.Signer, verifierKeyID string) error {
	b := a.Bundle
	if err := keys.SignBundle(b, host, keyID); err != nil {
		return err
	}
	if b.Discovery.Document != nil {
		if pub, err := keys.FromDiscovery(b.Discovery.Document, keyID, keys.SourceDiscovery, ""); err == nil && !pub.Key.Equal(host.Public) {
			a.Warnings = append(a.Warnings, "the discovery document publishes "+keyID+" with a different public key than the one signing: the bundle will not attribute to the host")
		}
	}
	if verifier != nil {
		if err := keys.CountersignBundle(b, verifier, verifierKeyID); err != nil {
			return err
		}
	}
	return nil
}

// PublishedKey returns the key the discovery document publishes as keyID, and
// whether it publishes a usable one: the key every reviewer resolving keyID
// there verifies the signature under.
func PublishedKey(doc *bundle.Value, keyID string) (keys.PublicKey, bool) {
	if doc == nil {
		return keys.PublicKey{}, false
	}
	pub, err := keys.FromDiscovery(doc, keyID, keys.SourceDiscovery, "discovery document")
	return pub, err == nil
}

// UnpublishedKeyError is a signing key whose public half is not the one the
// bundle's discovery document publishes under its key id: every reviewer resolves
// the key id there, so the bundle would be REJECTED [signature-invalid]. Nothing is
// signed. A key not yet published is signed with only when the caller opts out
// explicitly (Job.UnpublishedKey, SignJob.UnpublishedKey).
//
// Absent is set when the document publishes no usable key under the id at all
// (no signingKeys[], or not this id): a reviewer then cannot attribute the
// bundle to the host, so it is refused the same way.
type UnpublishedKeyError struct {
	KeyID  string
	Absent bool
}

func (e *UnpublishedKeyError) Error() string {
	if e.Absent {
		return fmt.Sprintf("the discovery document does not publish a key %s: every reviewer resolves %s there, so no reviewer could attribute the bundle to the host; publish the key first (`bundle keys public` prints its signingKeys[] entry) and capture the document again, or pass --unpublished-key to sign with a key not yet published", e.KeyID, e.KeyID)
	}
	return fmt.Sprintf("the signing key is not the key the discovery document publishes as %s (its public half differs): every reviewer resolves %s there, so the bundle would be REJECTED [signature-invalid]; sign with the published key, or pass --unpublished-key to sign with a key not yet published", e.KeyID, e.KeyID)
}

// selfCheckHostKey picks the key the self-check verifies a host signature under:
// the key the document publishes as keyID, as a reviewer would, when it publishes
// one. A signer whose public half differs, or a document that publishes no usable
// key under keyID, is refused (*UnpublishedKeyError) unless unpublished is set;
// then the signer's own key is used, and notPublished says so.
func selfCheckHostKey(doc *bundle.Value, signer *keys.Signer, keyID string, unpublished bool) (key keys.PublicKey, notPublished bool, err error) {
	pub, ok := PublishedKey(doc, keyID)
	switch {
	case ok && pub.Key.Equal(signer.Public):
		// The published key, byte for byte; named as the signer's, so the
		// verdict describes the key that signed.
		return signer.Key(keyID), false, nil
	case !unpublished:
		return keys.PublicKey{}, false, &UnpublishedKeyError{KeyID: keyID, Absent: !ok}
	}
	return signer.Key(keyID), true, nil
}

// Tolerated are the rejections a freshly signed bundle may carry and still be
// written (spec §6.2 step 7): a blocked run whose profiles are certified, and an
// independent tier whose verifier key was not at hand.
var Tolerated = []verify.Kind{verify.KindBlockedCertified, verify.KindIndependentUnverifiable}

// ToleratedUnsigned adds what an intentionally unsigned bundle (mint --unsigned,
// or a verifier countersigning first) lacks.
var ToleratedUnsigned = []verify.Kind{verify.KindBlockedCertified, verify.KindIndependentUnverifiable, verify.KindSignatureMissing, verify.KindIndependentUnsigned}

// RefusedError is a bundle the self-check rejected: it must not be published.
type RefusedError struct {
	Verdict *verify.Verdict
	// Refused are the rejections that are not tolerated.
	Refused []verify.Rejection
}

func (e *RefusedError) Error() string {
	parts := make([]string, len(e.Refused))
	for i, r := range e.Refused {
		parts[i] = "[" + string(r.Kind) + "] " + r.Detail
	}
	return fmt.Sprintf("the bundle does not verify (%d problem(s)): %s", len(e.Refused), strings.Join(parts, "; "))
}

// EncodingError is a bundle certcut encoded that its own reader refuses: a defect
// in certcut (Encode refuses the inputs it knows make one), never a verdict.
type EncodingError struct{ Err error }

func (e *EncodingError) Error() string {
	return fmt.Sprintf("the bundle certcut encoded is not I-JSON (%v)", e.Err)
}
func (e *EncodingError) Unwrap() error { return e.Err }

// SelfCheck verifies the bytes about to be written, exactly as `bundle verify` would
// with the given keys, and returns a *RefusedError when any rejection outside
// tolerated remains. The verdict is returned either way. Bytes that do not parse
// are an *EncodingError.
func SelfCheck(data []byte, hostKeys, verifierKeys keys.Set, reg *profiles.Registry, tolerated []verify.Kind) (*verify.Verdict, error) {
	v, err := verify.Parse(data, verify.Options{HostKeys: hostKeys, VerifierKeys: verifierKeys, Registry: reg})
	if err != nil {
		return nil, &EncodingError{Err: err}
	}
	unsignedOK := slices.Contains(tolerated, verify.KindSignatureMissing)
	var refused []verify.Rejection
	for _, r := range v.Rejections {
		if unsignedOK && missingSignature(r) {
			continue // the schema's view of the same missing signatures
		}
		if !slices.Contains(tolerated, r.Kind) {
			refused = append(refused, r)
		}
	}
	if len(refused) > 0 {
		return v, &RefusedError{Verdict: v, Refused: refused}
	}
	return v, nil
}

// missingSignature reports whether r is the schema's complaint that signature or
// verifierSignature is absent, which an intentionally unsigned bundle carries.
func missingSignature(r verify.Rejection) bool {
	return r.Kind == verify.KindSchema && r.MissingMember && (r.Pointer == "/signature" || r.Pointer == "/verifierSignature")
}

// Encode returns the bundle file: 2-space indented JSON in the reference member
// order, then a newline. It refuses, with *InputError naming the member, a number
// the file could not carry: one whose shortest form is an integer literal beyond
// ±(2^53−1) — 1e17 in a discovery document is written 100000000000000000 — which
// every I-JSON reader, certcut's verifier included, refuses. Such a number comes
// from an input (the discovery document, a row's evidence, a bundle to sign).
func Encode(b *bundle.Bundle) ([]byte, error) {
	v := b.Value()
	out, err := bundle.IndentIJSON(v) // checks the numbers as it writes them
	if err != nil {
		// Name the number, if one is at fault (first in the walk, as before any
		// other refusal).
		if nerr := checkNumbers(v); nerr != nil {
			return nil, nerr
		}
		return nil, err
	}
	return out, nil
}

// checkNumbers finds the first number of v that would not read back under the
// I-JSON rules once written, and says where it is and where it comes from.
func checkNumbers(v bundle.Value) error { return describeNumber(v) }

// readsBack reports whether the number f, once written, reads back: a safe
// integer, or a number with a fraction. Others (integers beyond ±(2^53−1)) may
// or may not, and are looked at closely by describeNumber.
func readsBack(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) <= bundle.MaxSafeInteger || f != math.Trunc(f) && !math.IsNaN(f)
}

// describeNumber walks v to the first number that does not read back once written
// and says where it is and where it comes from.
func describeNumber(v bundle.Value) error {
	var path []pathToken
	var walk func(v bundle.Value) error
	walk = func(v bundle.Value) error {
		switch v.Kind() {
		case bundle.Number:
			if f, _ := v.Float(); readsBack(f) {
				return nil // written as a safe integer or with a fraction: reads back
			}
			where := pointerAt(path)
			text, err := bundle.Canonical(v)
			if err == nil {
				_, err = bundle.ParseIJSON(text)
			}
			if err != nil {
				return &InputError{Msg: fmt.Sprintf("the number at %s cannot be written as I-JSON: it is written %s, an integer beyond ±(2^53−1) that every I-JSON reader (and so every verifier) refuses; it comes from %s: write it there as a string or as a smaller number", where, text, numberSource(where))}
			}
		case bundle.Array:
			for i, item := range v.Items() {
				path = append(path, pathToken{index: i})
				err := walk(item)
				path = path[:len(path)-1]
				if err != nil {
					return err
				}
			}
		case bundle.Object:
			for _, m := range v.Members() {
				path = append(path, pathToken{name: m.Name, index: -1})
				err := walk(m.Value)
				path = path[:len(path)-1]
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(v)
}

func numberSource(ptr string) string {
	switch {
	case strings.HasPrefix(ptr, "/discovery/document/"):
		return "the discovery document"
	case strings.HasPrefix(ptr, "/results/requirements/"):
		return "a row of the inputs"
	}
	return "the input"
}

// RejectedSuffix is appended to the output path to name where a bundle the
// self-check refused is written instead.
const RejectedSuffix = ".rejected.json"

// WriteRejected writes a bundle the self-check refused (see SelfCheck) to
// out + RejectedSuffix, atomically, replacing an older one, and never to out; it
// returns the path written. mint and sign both use it.
func WriteRejected(out string, data []byte) (string, error) {
	path := out + RejectedSuffix
	return path, atomicfile.Write(path, data, 0o644, true)
}
