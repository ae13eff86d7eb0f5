package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
)

// AttestationWritten is what attest reports of an envelope it wrote.
type AttestationWritten struct {
	Out           string   `json:"out"`
	PredicateType string   `json:"predicateType"`
	Result        string   `json:"result,omitempty"`
	KeyID         string   `json:"keyId"`
	Fingerprint   string   `json:"fingerprint"`
	Subjects      []string `json:"subjects"`
	Levels        []string `json:"verifiedLevels,omitempty"`
	ResourceURI   string   `json:"resourceUri,omitempty"`
	Warnings      []string `json:"warnings"`
}

// NewAttestationWritten describes an attestation written to out, signed by key.
func NewAttestationWritten(out string, a *attest.Attestation, key keys.PublicKey) *AttestationWritten {
	st := a.Statement
	w := &AttestationWritten{Out: out, PredicateType: st.GetPredicateType(), Result: a.Result, KeyID: key.KeyID,
		Fingerprint: key.Fingerprint(), Subjects: []string{}, Warnings: append([]string{}, a.Warnings...)}
	for _, s := range st.GetSubject() {
		w.Subjects = append(w.Subjects, Inline(s.GetName())+" ("+DigestWords(s.GetDigest())+")")
	}
	if w.PredicateType == attest.PredicateVSA {
		fields := st.GetPredicate().GetFields()
		w.Levels = []string{}
		for _, l := range fields["verifiedLevels"].GetListValue().GetValues() {
			w.Levels = append(w.Levels, l.GetStringValue())
		}
		w.ResourceURI = fields["resourceUri"].GetStringValue()
	}
	return w
}

// WriteAttestationWritten says what was written: one line, the subjects, the
// levels, and what the host did not sign; the warnings go to stderr.
func WriteAttestationWritten(stdout, stderr io.Writer, name string, a *AttestationWritten) error {
	w := SafeWriter(stdout)
	what := "the bundle itself (" + Inline(a.PredicateType) + ")"
	if a.PredicateType == attest.PredicateVSA {
		what = "a SLSA verification summary, " + a.Result
	}
	fmt.Fprintf(w, "%s: wrote %s: %s, signed by %s (%s)\n", name, Inline(a.Out), what, Inline(a.KeyID), a.Fingerprint)
	for _, s := range a.Subjects {
		fmt.Fprintf(w, "subject:   %s\n", s)
	}
	if a.PredicateType == attest.PredicateVSA {
		fmt.Fprintf(w, "levels:    %s\n", listOrNone(inlineAll(a.Levels)))
		if a.ResourceURI != "" {
			fmt.Fprintf(w, "unsigned:  resourceUri %s is the bundle's discovery.url, which the host signature does not cover\n", Inline(a.ResourceURI))
		}
	}
	if err := w.(*safeWriter).err; err != nil {
		return err
	}
	return WriteWarnings(stderr, a.Warnings)
}

// WriteAttestationResult prints a checked attestation for people. Everything
// read from it is escaped (Inline): it is the signer's text, and until the
// signature is checked, anyone's.
func WriteAttestationResult(w io.Writer, file string, r *attest.Result, color bool) error {
	lw := newLineWriter(w, color)
	lw.printf("attestation: %s\n", Inline(file))
	if r.PredicateType != "" {
		lw.printf("statement:   %s (%s)\n", Inline(r.PredicateType), Inline(r.StatementType))
	}
	for _, s := range r.Subjects {
		lw.printf("subject:     %s (%s)\n", Inline(s.Name), DigestWords(s.Digest))
	}
	for _, s := range r.Signatures {
		state := "not checked: " + s.Note
		switch {
		case s.Key != nil && s.Verified:
			state = fmt.Sprintf("verifies under %s from %s %s", s.Key.Fingerprint, s.Key.Source, s.Key.Origin)
		case s.Key != nil:
			state = fmt.Sprintf("DOES NOT VERIFY under %s from %s %s", s.Key.Fingerprint, s.Key.Source, s.Key.Origin)
		}
		lw.printf("signature:   keyid %s · %s\n", Inline(orDash(s.KeyID)), Inline(state))
	}
	if v := r.VSA; v != nil {
		lw.printf("vsa:         %s by %s at %s\n", Inline(orDash(v.Result)), Inline(orDash(v.Verifier)), Inline(orDash(v.TimeVerified)))
		lw.printf("resource:    %s\n", Inline(orDash(v.ResourceURI)))
		lw.printf("policy:      %s", Inline(orDash(v.Policy)))
		if len(v.PolicyDigest) > 0 {
			lw.printf(" (%s)", DigestWords(v.PolicyDigest))
		}
		lw.printf("\n")
		for _, in := range v.Inputs {
			lw.printf("input:       %s (%s)\n", Inline(in.Name), DigestWords(in.Digest))
		}
		lw.printf("levels:      %s\n", listOrNone(inlineAll(v.Levels)))
	}
	if r.BundleVerdict != "" {
		lw.printf("bundle:      the attestor judged it %s (the predicate is the bundle itself)\n", Inline(r.BundleVerdict))
	}
	for _, n := range r.Notes {
		lw.printf("note:        %s\n", Inline(n))
	}
	switch r.Outcome {
	case verify.Verified:
		lw.painted(outcomeColor(r.Outcome), "VERIFIED — the signature verifies under a trusted key, the statement is valid, every check holds.")
		lw.printf("\n")
	case verify.Rejected:
		lw.painted(outcomeColor(r.Outcome), fmt.Sprintf("REJECTED — %d problem%s:", len(r.Problems), plural(len(r.Problems))))
		lw.printf("\n")
		for _, p := range r.Problems {
			lw.printf("  [%s] %s\n", p.Kind, Inline(p.Detail))
		}
	default:
		lw.painted(outcomeColor(r.Outcome), "COHERENT, NOT INDEPENDENTLY VERIFIED — every check holds, but:")
		lw.printf("\n")
		for _, u := range r.Unverified {
			lw.printf("  · %s\n", Inline(u))
		}
	}
	return lw.err()
}

// DigestWords writes a digest set as "alg abcdef123456, …", in order, Inline.
func DigestWords(d map[string]string) string {
	algs := make([]string, 0, len(d))
	for alg := range d {
		algs = append(algs, alg)
	}
	sort.Strings(algs)
	parts := make([]string, len(algs))
	for i, alg := range algs {
		parts[i] = Inline(alg) + " " + Inline(prefix(d[alg], 12))
	}
	return strings.Join(parts, ", ")
}

func inlineAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Inline(s)
	}
	return out
}

func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "(none)"
	}
	return strings.Join(ss, ", ")
}
