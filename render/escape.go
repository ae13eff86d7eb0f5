package render

import (
	"fmt"
	"strings"
)

// Escaping of text that came from a bundle (or from any file or argument) before
// it is interpolated into output. One rule set, used by every renderer:
//
//   - Inline for a value inside a line of text (show, gate, diff, census text):
//     nothing in it can end the line or act on a terminal;
//   - GitHubData and GitHubProperty for GitHub workflow commands;
//   - CSVCell for a spreadsheet cell;
//   - SafeWriter (verdict.go) for whole text streams whose newlines are the
//     renderer's own;
//   - the HTML report isolates every bundle string in <bdi> (html.go).

// Inline makes s safe to interpolate into one line of text output: every
// character that could start a new line or act on a terminal is shown as
// \u{XXXX} instead — line breaks (LF, CR, VT, FF, NEL U+0085, LINE SEPARATOR
// U+2028, PARAGRAPH SEPARATOR U+2029), every other C0 and C1 control (tab and ESC
// among them), DEL, and the bidirectional embeddings, overrides, isolates and
// marks that could reorder what a reviewer reads. A host name or row detail
// carrying "\n::error file=x::pwned" therefore stays on its line and can never
// become a GitHub workflow command, a forged "RESULT: PASS" or a terminal escape.
func Inline(s string) string { return escapeWhere(s, unsafeInline) }

// Lines splits s at its line feeds (a CRLF counts as one) and makes each line
// Inline, for a renderer that shows multi-line text — a row's detail — as
// indented lines of its own, so that no line of it starts where the renderer's
// own lines do.
func Lines(s string) []string {
	parts := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, p := range parts {
		parts[i] = Inline(p)
	}
	return parts
}

// GitHubData escapes s as the message of a GitHub workflow command
// (::error file=…::MESSAGE), by GitHub's rules: % as %25, CR as %0D, LF as %0A.
// GitHub turns those back into line breaks inside the annotation, never into a
// new command. Every other character Inline escapes is shown as \u{XXXX}.
func GitHubData(s string) string { return gitHubEscape(s, false) }

// GitHubProperty escapes s as a property value of a workflow command (file=,
// title=): GitHubData's rules, and : as %3A and , as %2C.
func GitHubProperty(s string) string { return gitHubEscape(s, true) }

func gitHubEscape(s string, property bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '%':
			b.WriteString("%25")
		case r == '\r':
			b.WriteString("%0D")
		case r == '\n':
			b.WriteString("%0A")
		case property && r == ':':
			b.WriteString("%3A")
		case property && r == ',':
			b.WriteString("%2C")
		default:
			writeRune(&b, r, unsafeInline)
		}
	}
	return b.String()
}

// CSVCell makes s one safe cell of a CSV file. It is Inline first — so every
// record stays on one line, and a CSV printed into a CI log cannot start a
// workflow command — and then guarded against formula injection by OWASP's rule:
// a cell that starts with =, +, -, @, tab or CR gets a leading ' so that a
// spreadsheet shows it as text instead of evaluating it. Use it for every cell
// whose text comes from a bundle, a file name or an argument; numbers certcut
// formats itself (strconv) are written as they are.
func CSVCell(s string) string {
	s = Inline(s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// Isolate wraps s in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE after
// neutralising its own bidirectional controls (BidiNeutral): the plain-text form
// of <bdi>, for HTML contexts that cannot hold an element (an attribute, an
// <option>). Right-to-left text in s then cannot reorder the text around it.
func Isolate(s string) string { return "\u2068" + BidiNeutral(s) + "\u2069" }

// BidiNeutral shows the explicit bidirectional formatting characters in s —
// embeddings and overrides U+202A–U+202E, isolates U+2066–U+2069 — as \u{XXXX}.
// Inside an isolate they could still end it early (a stray U+2069 closes the
// isolate it sits in), so the HTML report shows them instead of obeying them.
// Right-to-left letters and the marks LRM, RLM and ALM are kept: an isolate
// contains them.
func BidiNeutral(s string) string { return escapeWhere(s, bidiControl) }

// escapeWhere returns s with every rune for which escape is true shown as
// \u{XXXX}; s itself when there is none.
func escapeWhere(s string, escape func(rune) bool) string {
	if !strings.ContainsFunc(s, escape) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		writeRune(&b, r, escape)
	}
	return b.String()
}

func writeRune(b *strings.Builder, r rune, escape func(rune) bool) {
	if escape(r) {
		fmt.Fprintf(b, "\\u{%04X}", r)
	} else {
		b.WriteRune(r)
	}
}

// unsafeRune reports the characters that may not reach a terminal as they are:
// C0 controls but tab (newline among them: SafeWriter lets the renderer's own
// through), DEL, C1 controls (NEL U+0085 among them), the Unicode line and
// paragraph separators, and the bidirectional controls and marks.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case bidiControl(r), r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// unsafeInline is unsafeRune and tab: inside one value nothing may move to the
// next column or line.
func unsafeInline(r rune) bool { return r == '\t' || unsafeRune(r) }

func bidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
