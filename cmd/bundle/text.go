package main

// Small text helpers the commands share.

import (
	"io"
	"strings"

	"github.com/certcut/certcut/render"

	"github.com/certcut/certcut/verify"
)

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

// selfCheckWords words a self-check verdict that was accepted for writing. A
// bundle still waiting for a signature carries the tolerated signature rejections,
// which is not a REJECTED bundle but an unfinished one.
func selfCheckWords(v *verify.Verdict) string {
	if v.HasRejection(verify.KindSignatureMissing) || v.HasRejection(verify.KindIndependentUnsigned) {
		return "coherent but for the signatures still to come (finish with 'bundle sign')"
	}
	return string(v.Outcome)
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func writeJSON(w io.Writer, v any) error { return render.WriteJSON(w, v) }
