// Package attest writes and checks certcut's judgements as signed in-toto
// attestations, the envelope supply-chain tools already read: a DSSE envelope
// (payloadType application/vnd.in-toto+json) holding an in-toto Statement v1.
//
// # What is attested
//
// Bundle judges one bundle file with package verify and states the result:
//
//   - subjects: the host build the bundle names (host.build, which the host
//     signature covers): commit → {"gitCommit": id}, image-digest sha256:HEX →
//     {"sha256": HEX}, artifact-sha256 → {"sha256": HEX}; and the bundle file itself,
//     named by its path in the repository, {"sha256": digest of its bytes}. A build id
//     that is no full digest (an abbreviated commit) gives no build subject: the
//     statement then has the bundle file as its only subject, and says why.
//   - predicate PredicateVSA: a SLSA Verification Summary (VSA) v1: verifier.id
//     names certcut and its version; timeVerified; resourceUri is the bundle's
//     discovery.url; policy is certcut's verify rules (VerifyPolicyURI); inputAttestations is the bundle
//     file and its digest; verificationResult is PASSED for a VERIFIED bundle, FAILED
//     for a COHERENT one (only with AllowCoherent); verifiedLevels holds one
//     ProfileLevelPrefix+id per profile verify certified (["FAILED"] when FAILED).
//   - predicate PredicateBundle: the bundle itself (its canonical JSON) as the
//     predicate.
//
// Gate states an Accepted-gate decision (a gate.Report) as a VSA whose subject and
// resourceUri are the RFC file (its path in the repository and the SHA-256 of its
// text), whose policy is the gate file (or the RFC) with its digest, whose inputs are
// the bundles the decision relied on with the digests the gate judged, and whose
// result is PASSED or FAILED. A BLOCKED decision is no result: Gate refuses it
// (*BlockedError).
//
// # What it does not say
//
// A VSA is certcut's judgement, signed by whoever ran certcut: not the host's claim.
// Its resourceUri comes from discovery.url, which the host signature does not
// cover; the bundle subject's annotations say so ("certcut.unsigned"). What the
// signer vouches for is the verdict, the subjects' digests and the inputs' digests.
//
// # Encoding
//
// Statements and predicates are built with the in-toto attestation Go bindings
// (github.com/in-toto/attestation/go) and validated with them; the payload is their
// protojson form written as RFC 8785 canonical JSON, so the same inputs and time
// give the same bytes. Envelopes are signed and checked through sigstore's
// signature/dsse over the DSSE pre-authentication encoding; the envelope file is one
// line of JSON ({payloadType, payload, signatures: [{keyid, sig}]}), keyid being the
// signer's key id (an unauthenticated hint, as DSSE defines it).
//
// # Checking
//
// Verify checks an envelope under keys the caller trusts: the DSSE signature over
// PAE, the statement's shape (in-toto Statement v1; for a VSA its required fields;
// for a bundle predicate, that it is a bundle whose build matches a subject), and
// optionally a subject digest and the predicate type. Its outcome uses verify's
// words: VERIFIED, REJECTED (with one Problem per failure; a VSA recording FAILED is
// one), COHERENT (everything holds but no trusted key checked the signature).
//
// Example, as the CLI does it:
//
//	a, err := attest.Bundle(attest.BundleRequest{Data: data, Name: "evidence/v2-host-bundles/demo-host.json",
//		Verify: opts, Predicate: attest.PredicateVSA, Version: "v0.3.0", Time: time.Now()})
//	envelope, err := attest.Sign(a.Statement, signer, "demo-attestor-1")
//	res, err := attest.Verify(envelope, attest.Policy{Keys: trusted, SubjectDigest: "sha256:" + sum})
package attest
