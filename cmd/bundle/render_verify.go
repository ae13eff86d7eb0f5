package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/certcut/certcut/verify"
)

// The verdict lines, as the reference CLI prints them (U+2014 dash, U+00B7 bullets).
const (
	lineVerified = "VERIFIED — zero rejections, host signature checked, certified list re-derived."
	lineCoherent = "COHERENT, NOT INDEPENDENTLY VERIFIED — zero rejections, but:"
)

// renderVerdictText prints the reviewer's view of one verdict: the header lines of
// the reference CLI, the key used and where it came from, notes, then the verdict.
func renderVerdictText(w io.Writer, file string, v *verify.Verdict) {
	s := v.Summary
	t := s.Totals
	fmt.Fprintf(w, "bundle:    %s\n", file)
	fmt.Fprintf(w, "host:      %s build %s:%s\n", s.Host, s.Build.Kind, prefix(s.Build.ID, 12))
	fmt.Fprintf(w, "suite:     %s (this CLI is certcut %s)\n", s.Suite, versionString())
	fmt.Fprintf(w, "totals:    executedPass=%d executedFail=%d blocked=%d inapplicable=%d skipped=%d\n",
		t.ExecutedPass, t.ExecutedFail, t.Blocked, t.Inapplicable, t.Skipped)
	fmt.Fprintf(w, "certified: %s\n", listOrNone(v.CertifiedProfiles))
	fmt.Fprintf(w, "key:       %s\n", describeKeyUse(v))
	for _, n := range v.Notes {
		fmt.Fprintf(w, "note:      %s\n", n)
	}
	switch v.Outcome {
	case verify.Verified:
		fmt.Fprintln(w, lineVerified)
	case verify.Coherent:
		fmt.Fprintln(w, lineCoherent)
		for _, r := range v.Unverified {
			fmt.Fprintf(w, "  · %s\n", r)
		}
	case verify.Rejected:
		fmt.Fprintf(w, "REJECTED — %d problem(s):\n", len(v.Rejections))
		for _, r := range v.Rejections {
			if r.Profile != "" {
				fmt.Fprintf(w, "  [%s] (%s) %s\n", r.Kind, r.Profile, r.Detail)
			} else {
				fmt.Fprintf(w, "  [%s] %s\n", r.Kind, r.Detail)
			}
		}
	}
}

// describeKeyUse says which key the signature was checked under and where it came
// from, or, without a trusted key, what the bundle's own document says.
func describeKeyUse(v *verify.Verdict) string {
	signedBy := v.Summary.SignatureKeyID
	if k := v.HostKey; k != nil {
		where := k.Source
		if k.Origin != "" {
			where += " " + k.Origin
		}
		state := "signature verifies"
		if !v.SignatureVerified {
			state = "signature does NOT verify"
		}
		return fmt.Sprintf("%s from %s (%s; signed by %s)", k.Fingerprint, where, state, signedBy)
	}
	sp := v.SelfPublished
	if sp.Outcome == "" {
		return "(none checked)"
	}
	return fmt.Sprintf("none trusted; signed by %s — self-published: %s", orDash(signedBy), sp.Outcome)
}

func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "(none)"
	}
	return strings.Join(ss, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
