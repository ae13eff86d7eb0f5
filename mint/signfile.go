package mint

import (
	"fmt"
	"maps"
	"slices"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/verify"
)

// SignJob is an assembled bundle (mint with no host signer) to sign as its host,
// or to countersign as the independent verifier.
type SignJob struct {
	// Data is the bundle file; Name names it in errors.
	Data []byte
	Name string
	// Signer signs under KeyID; AsVerifier makes the signature the
	// verifierSignature.
	Signer     *keys.Signer
	KeyID      string
	AsVerifier bool
	// HostKeys and VerifierKeys are trusted keys the self-check also uses (the
	// signer's own key is added to its role's).
	HostKeys, VerifierKeys keys.Set
	Registry               *profiles.Registry
	// Secrets must not be published (CollectSecrets): found in a signed or
	// derived member they refuse the bundle (*SecretInSignedError); in an
	// unsigned one they are scrubbed, and Signed.Redacted lists where. A value
	// the bundle's discovery document holds is public, so not a secret
	// (SecretSet.DropPublished): Signed.LeftAlone notes it. Nil is no secret.
	Secrets *SecretSet
	// UnpublishedKey signs as host with a key whose public half differs from
	// the one the bundle's discovery document publishes under KeyID; without it
	// SignFile refuses such a key (*UnpublishedKeyError). The self-check then
	// verifies under the signer's own key, and Signed.KeyNotPublished is set.
	UnpublishedKey bool
}

// Signed is a bundle signed and self-checked, not yet written.
type Signed struct {
	Bundle   *bundle.Bundle
	Data     []byte
	Verdict  *verify.Verdict
	Redacted []string
	// LeftAlone notes what was considered a secret and not scrubbed, and why.
	LeftAlone []string
	// Role is "host" or "independent verifier".
	Role string
	// KeyNotPublished: signed as host with a key the discovery document does
	// not publish under the key id (none, or another with UnpublishedKey); the
	// self-check verified under the signer's own key.
	KeyNotPublished bool
}

// MalformedError is a bundle to sign that is I-JSON but not a well-formed bundle
// (a problem other than the missing signature), or that scrubbing a secret from
// an unsigned member broke.
type MalformedError struct {
	Name    string
	Problem bundle.Problem
	// Scrubbed: the problem came from scrubbing a secret; re-mint with the
	// secret kept out.
	Scrubbed bool
}

func (e *MalformedError) Error() string {
	if e.Scrubbed {
		return fmt.Sprintf("%s: scrubbing a secret from an unsigned member broke the bundle at %s (%s); re-mint it with the secret kept out", e.Name, e.Problem.Pointer, e.Problem.Message)
	}
	return fmt.Sprintf("%s: not a well-formed bundle: %s", e.Name, e.Problem)
}

// AlreadySignedError is a bundle that already carries the signature asked for.
type AlreadySignedError struct {
	Name       string
	AsVerifier bool
	KeyID      string // the key id of the signature there
}

func (e *AlreadySignedError) Error() string {
	if e.AsVerifier {
		return fmt.Sprintf("%s already carries a verifierSignature (by %s)", e.Name, e.KeyID)
	}
	return fmt.Sprintf("%s is already signed by %s; sign the unsigned bundle 'bundle mint --unsigned' wrote", e.Name, e.KeyID)
}

// KeyIDMismatchError is a host key id that is not the one the bundle names
// (host.signingKeyId).
type KeyIDMismatchError struct{ Given, Bundle string }

func (e *KeyIDMismatchError) Error() string {
	return fmt.Sprintf("key id %s is not the bundle's host.signingKeyId %s; sign with the key the bundle names", e.Given, e.Bundle)
}

// SignFile parses the bundle, keeps the secrets out of it, signs it (or
// countersigns it), encodes it and self-checks it as Run does. Errors:
// *bundle.SyntaxError (not I-JSON), *SecretInSignedError, *MalformedError,
// *AlreadySignedError, *KeyIDMismatchError, *SigningError, *EncodingError, and —
// with the Signed, whose Data goes to WriteRejected — *RefusedError.
func SignFile(job SignJob) (*Signed, error) {
	b, problems, err := bundle.Parse(job.Data)
	if err != nil {
		return nil, err
	}
	// Secrets before anything else is said about the content: a problem quotes it.
	// A value the discovery document holds is public, and the document is never
	// rewritten.
	set := job.Secrets
	if set == nil {
		set = &SecretSet{}
	} else {
		copied := *set
		copied.from = maps.Clone(set.from)
		copied.LeftAlone = slices.Clone(set.LeftAlone)
		set = &copied
	}
	if doc, ok := b.Raw.Path("discovery", "document"); ok {
		set.DropPublished(&doc, "/discovery/document")
	}
	scrubbed, redacted, err := ScrubUnbound(b.Raw, set.Values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", job.Name, err)
	}
	for _, p := range problems {
		if p.Pointer != "/signature" {
			return nil, &MalformedError{Name: job.Name, Problem: p}
		}
	}
	if len(redacted) > 0 {
		decoded, problems := bundle.Decode(scrubbed)
		for _, p := range problems {
			if p.Pointer != "/signature" {
				return nil, &MalformedError{Name: job.Name, Problem: p, Scrubbed: true}
			}
		}
		b = decoded
	}
	tolerated := Tolerated
	hostKeys, verifierKeys := job.HostKeys, job.VerifierKeys
	out := &Signed{Bundle: b, Redacted: redacted, LeftAlone: set.LeftAlone, Role: "host"}
	if out.Redacted == nil {
		out.Redacted = []string{}
	}
	if out.LeftAlone == nil {
		out.LeftAlone = []string{}
	}
	if job.AsVerifier {
		out.Role = "independent verifier"
		if b.VerifierSignature != nil {
			return nil, &AlreadySignedError{Name: job.Name, AsVerifier: true, KeyID: b.VerifierSignature.KeyID}
		}
		if err := keys.CountersignBundle(b, job.Signer, job.KeyID); err != nil {
			return nil, &SigningError{Err: err}
		}
		verifierKeys = append(keys.Set{job.Signer.Key(job.KeyID)}, verifierKeys...)
		if b.Signature == nil {
			tolerated = append(append([]verify.Kind(nil), tolerated...), verify.KindSignatureMissing)
		}
	} else {
		if b.Signature != nil {
			return nil, &AlreadySignedError{Name: job.Name, KeyID: b.Signature.KeyID}
		}
		if b.Host.SigningKeyID != "" && b.Host.SigningKeyID != job.KeyID {
			return nil, &KeyIDMismatchError{Given: job.KeyID, Bundle: b.Host.SigningKeyID}
		}
		// The self-check verifies under the key the document publishes, as any
		// reviewer does: a key that is not it is refused before it signs.
		hostKey, notPublished, err := selfCheckHostKey(b.Discovery.Document, job.Signer, job.KeyID, job.UnpublishedKey)
		if err != nil {
			return nil, err
		}
		out.KeyNotPublished = notPublished
		if err := keys.SignBundle(b, job.Signer, job.KeyID); err != nil {
			return nil, &SigningError{Err: err}
		}
		hostKeys = append(keys.Set{hostKey}, hostKeys...)
	}
	if out.Data, err = Encode(b); err != nil {
		return nil, err
	}
	out.Verdict, err = SelfCheck(out.Data, hostKeys, verifierKeys, job.Registry, tolerated)
	if out.Verdict == nil {
		return nil, err
	}
	return out, err
}
