package rfc

import (
	"strings"
)

// This file reads what the governance checks around a Status flip need from
// an RFC's text: the RFCs its Supersedes row names and its Superseded by
// pointer (RFC 0174 §A), whether its comment window was waived (RFC 0156 §B),
// and the RFC numbers a spec/v2 Status banner cites (RFC 0174 §D).

// SupersedesTargets reads a Supersedes header value as the reference
// status-coherence check does: only its first cell counts; a cell that starts
// with a dash (—) or says "amends", "corrects" or "where it" (any case) names
// no supersession (exempt is true); otherwise every four-digit number in it is
// an RFC the row supersedes, first mention first. A section sign does not
// exempt a cell: `RFC 0174 §E.2` supersedes RFC 0174 (write `— (amends RFC
// 0174 §E.2)` for a partial amendment).
func SupersedesTargets(value string) (targets []string, exempt bool) {
	cell := firstCell(value)
	if supersedesExemptRE().MatchString(cell) {
		return nil, true
	}
	seen := map[string]bool{}
	for _, m := range fourDigitsRE().FindAllString(cell, -1) {
		if !seen[m] {
			seen[m] = true
			targets = append(targets, m)
		}
	}
	return targets, false
}

// SupersededByTargets reads a Superseded by value: the four-digit RFC numbers
// of its first cell; blank is true when the cell is empty or a dash, the
// "not superseded" spelling.
func SupersededByTargets(value string) (targets []string, blank bool) {
	cell := strings.TrimSpace(firstCell(value))
	if cell == "" || strings.Trim(cell, "—–- ") == "" {
		return nil, true
	}
	seen := map[string]bool{}
	for _, m := range fourDigitsRE().FindAllString(cell, -1) {
		if !seen[m] {
			seen[m] = true
			targets = append(targets, m)
		}
	}
	return targets, false
}

// NamesRFC reports whether a header value's first cell names RFC number as a
// word (the reference check's \bNNNN\b).
func NamesRFC(value, number string) bool {
	for _, m := range fourDigitsRE().FindAllString(firstCell(value), -1) {
		if m == number {
			return true
		}
	}
	return false
}

// firstCell is a header value up to its first | (Field.Value keeps the rest of
// the row whole).
func firstCell(value string) string {
	if i := strings.IndexByte(value, '|'); i >= 0 {
		value = value[:i]
	}
	return strings.TrimSpace(value)
}

// WaivedLine returns the 1-based line on which an RFC's text says its comment
// window was waived ("comment window waived", any case, anywhere — the
// reference check's test, which reads no negation), or 0 when it never does.
func WaivedLine(text string) int {
	lower := strings.ToLower(text)
	i := strings.Index(lower, "comment window waived")
	if i < 0 {
		return 0
	}
	return strings.Count(text[:i], "\n") + 1
}

// Banner is a spec file's Status banner: the first line that starts
// `> **Status:`.
type Banner struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
	// Stable: the banner says Stable.
	Stable bool `json:"stable"`
	// Cites lists the RFC numbers it cites: `RFC NNNN`, and a bare NNNN after a
	// comma (RFC 0177, 0174), first mention first.
	Cites []string `json:"cites"`
}

// ReadBanner finds a spec file's Status banner; ok is false when it has none.
func ReadBanner(file, text string) (b Banner, ok bool) {
	for i, l := range strings.Split(text, "\n") {
		if !bannerRE().MatchString(l) {
			continue
		}
		b = Banner{File: file, Line: i + 1, Text: clip(strings.TrimRight(l, "\r")), Stable: strings.Contains(l, "Stable"), Cites: []string{}}
		seen := map[string]bool{}
		for _, m := range bannerCiteRE().FindAllStringSubmatch(l, -1) {
			n := m[1]
			if n == "" {
				n = m[2]
			}
			if !seen[n] {
				seen[n] = true
				b.Cites = append(b.Cites, n)
			}
		}
		return b, true
	}
	return Banner{}, false
}

var (
	supersedesExemptRE = lazyRegexp(`(?i)^\s*(?:—|.*\b(?:amends|corrects|where it)\b)`)
	fourDigitsRE       = lazyRegexp(`\b\d{4}\b`)
	bannerRE           = lazyRegexp(`^>\s*\*\*Status:`)
	bannerCiteRE       = lazyRegexp(`RFC\s+(\d{4})|,\s*(\d{4})`)
)
