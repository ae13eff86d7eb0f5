package render

import (
	"fmt"
	"io"

	"github.com/certcut/certcut/verify"
)

// ANSI colours of certcut's own words (verdicts, statuses). A text renderer
// paints only words it wrote itself, never text from a bundle.
const (
	ansiGreen  = "32"
	ansiRed    = "31"
	ansiYellow = "33"
	ansiGrey   = "90"
	ansiBold   = "1"
)

func paint(color bool, code, s string) string {
	if !color || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// lineWriter is a text renderer's output: text that may quote a bundle goes
// through SafeWriter (safe), and the colours of certcut's own words are written
// to the underlying writer (raw) beside it, in order, so that SafeWriter never
// has to let an escape sequence through.
type lineWriter struct {
	raw   io.Writer
	safe  io.Writer
	color bool
}

func newLineWriter(w io.Writer, color bool) *lineWriter {
	return &lineWriter{raw: w, safe: SafeWriter(w), color: color}
}

func (l *lineWriter) printf(format string, args ...any) { fmt.Fprintf(l.safe, format, args...) }

// painted writes s, certcut's own word, in colour code (plain without colour).
// s must not hold text from a bundle.
func (l *lineWriter) painted(code, s string) {
	if !l.color {
		fmt.Fprint(l.safe, s)
		return
	}
	fmt.Fprint(l.raw, paint(true, code, s))
}

// err is the first write error.
func (l *lineWriter) err() error { return l.safe.(*safeWriter).err }

// outcomeColor is green for VERIFIED, yellow for COHERENT, red otherwise.
func outcomeColor(o verify.Outcome) string {
	switch o {
	case verify.Verified:
		return ansiBold + ";" + ansiGreen
	case verify.Coherent:
		return ansiBold + ";" + ansiYellow
	}
	return ansiBold + ";" + ansiRed
}
