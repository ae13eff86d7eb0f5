package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

// SelfCheckWords words a self-check verdict that was accepted for writing. A
// bundle still waiting for a signature carries the tolerated signature
// rejections, which is not a REJECTED bundle but an unfinished one.
func SelfCheckWords(v *verify.Verdict) string {
	if v.HasRejection(verify.KindSignatureMissing) || v.HasRejection(verify.KindIndependentUnsigned) {
		return "coherent but for the signatures still to come (finish with 'bundle sign')"
	}
	return string(v.Outcome)
}

// WriteMint writes what mint did: one line on the bundle written, the totals,
// each claimed profile (certified, or why not), the rung, the redactions, the
// self-check verdict and the tokens written; the warnings go to stderr.
func WriteMint(stdout, stderr io.Writer, rep *mint.Report) error {
	w := SafeWriter(stdout)
	signed := "signed by " + rep.KeyID
	if !rep.Signed {
		signed = "UNSIGNED, for 'bundle sign' with " + rep.KeyID
	}
	certified := "(none)"
	if len(rep.Certified) > 0 {
		certified = strings.Join(rep.Certified, ", ")
	}
	out := Inline(rep.Out)
	if rep.Out == "-" {
		out = "standard output"
	}
	fmt.Fprintf(w, "bundle mint: wrote bundle v3 → %s (%d requirement rows, %d assertions, witness %s, %s; certified: %s)\n",
		out, rep.Rows, rep.AssertionCount, Short(rep.WitnessSha256), Inline(signed), Inline(certified))
	t := rep.Totals
	fmt.Fprintf(w, "totals:    executedPass=%d executedFail=%d blocked=%d inapplicable=%d skipped=%d\n",
		t.ExecutedPass, t.ExecutedFail, t.Blocked, t.Inapplicable, t.Skipped)
	for _, p := range rep.Profiles {
		if p.Certified {
			fmt.Fprintf(w, "profile:   %s certified (witnessCount %d)\n", Inline(p.ID), p.WitnessCount)
		} else {
			fmt.Fprintf(w, "profile:   %s NOT certified (witnessCount %d): %s\n", Inline(p.ID), p.WitnessCount, Inline(strings.Join(p.Denials, "; ")))
		}
	}
	if rep.DurabilityRung != "" {
		fmt.Fprintf(w, "rung:      %s (derived from the RFC 0158 rows)\n", Inline(rep.DurabilityRung))
	}
	if len(rep.Redacted) > 0 {
		fmt.Fprintf(w, "redacted:  %d place(s): %s\n", len(rep.Redacted), Inline(strings.Join(rep.Redacted, ", ")))
	}
	writeLeftAlone(w, rep.LeftAlone)
	if m := rep.Maturity; m != nil {
		fmt.Fprintf(w, "maturity:  %s (family records from %s)\n", Inline(m.Line()), Inline(rep.MaturityFamilyKeys))
	}
	fmt.Fprintf(w, "self-check: %s%s\n", SelfCheckWords(rep.SelfCheck), notPublished(rep.KeyNotPublished, rep.KeyID))
	for _, t := range rep.Timestamps {
		fmt.Fprintf(w, "timestamp: %s\n", Inline(TokenLine(t)))
	}
	if err := w.(*safeWriter).err; err != nil {
		return err
	}
	return WriteWarnings(stderr, rep.Warnings)
}

// writeLeftAlone writes what the scrub considered and left alone, and why.
func writeLeftAlone(w io.Writer, notes []string) {
	if len(notes) > 0 {
		fmt.Fprintf(w, "not scrubbed: %d value(s): %s\n", len(notes), Inline(strings.Join(notes, "; ")))
	}
}

// notPublished qualifies a self-check verdict reached under the signer's own
// key, which the discovery document does not publish under keyID.
func notPublished(yes bool, keyID string) string {
	if !yes {
		return ""
	}
	return " under the signing key itself, which the discovery document does not publish as " + Inline(keyID) + ": a reviewer resolving " + Inline(keyID) + " there rejects the bundle until the key is published"
}

// WriteWarnings writes each warning on a line of its own: "bundle: warning: …".
func WriteWarnings(w io.Writer, warnings []string) error {
	for _, warning := range warnings {
		if _, err := fmt.Fprintf(w, "bundle: warning: %s\n", Inline(warning)); err != nil {
			return err
		}
	}
	return nil
}

// SignReport is what sign did, as sign --json prints it: the self-check
// verdict of the file written (OUT, or OUT.rejected.json when refused), where
// secrets were scrubbed, and the tokens written.
type SignReport struct {
	File     string `json:"file"`
	ExitCode int    `json:"exitCode"`
	*verify.Verdict
	Redacted []string `json:"redacted"`
	// LeftAlone notes what was considered a secret and not scrubbed, and why.
	LeftAlone []string `json:"leftAlone,omitempty"`
	// KeyNotPublished: signed as host with a key the discovery document does
	// not publish under the key id; the self-check used the signer's own key.
	KeyNotPublished bool                `json:"keyNotPublished,omitempty"`
	Timestamps      []timestamp.Written `json:"timestamps,omitempty"`
	// Signer and Role say who signed, as what (text only).
	Signer, Role, Witness string `json:"-"`
}

// WriteSign writes what sign did: the file, who signed as what, the self-check
// verdict, the redactions, why it is not VERIFIED, and the tokens written.
func WriteSign(w io.Writer, r *SignReport) error {
	sw := SafeWriter(w)
	out := Inline(r.File)
	if r.File == "-" {
		out = "standard output"
	}
	fmt.Fprintf(sw, "bundle sign: wrote %s (signed by %s as %s; witness %s; self-check: %s%s)\n",
		out, Inline(r.Signer), r.Role, Short(r.Witness), SelfCheckWords(r.Verdict), notPublished(r.KeyNotPublished, r.Signer))
	if len(r.Redacted) > 0 {
		fmt.Fprintf(sw, "redacted:  %d place(s) in unsigned members: %s\n", len(r.Redacted), Inline(strings.Join(r.Redacted, ", ")))
	}
	writeLeftAlone(sw, r.LeftAlone)
	for _, u := range r.Unverified {
		fmt.Fprintf(sw, "  · %s\n", Inline(u))
	}
	for _, t := range r.Timestamps {
		fmt.Fprintf(sw, "timestamp: %s\n", Inline(TokenLine(t)))
	}
	return sw.(*safeWriter).err
}

// TokenLine says what a written token holds.
func TokenLine(f timestamp.Written) string {
	trust := "not checked against a --tsa-cert"
	if f.TrustedBy != "" {
		trust = "trusted through " + f.TrustedBy
	}
	acc := ""
	if f.Accuracy != "" {
		acc = ", accuracy " + f.Accuracy
	}
	return fmt.Sprintf("wrote %s (%s signature; %s by TSA %s%s; %s)", f.Path, f.Role, f.Time, f.TSA, acc, trust)
}
