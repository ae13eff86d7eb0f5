package testkit

import (
	"regexp"
	"strings"
)

// MatchShown reports whether got (a command's output) is what a doc shows:
// line by line, where "…" inside a line stands for any text and a line that is
// only "…" for any number of lines (none included).
func MatchShown(shown []string, got []string) bool {
	if len(shown) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(shown[0]) == "…" {
		for k := 0; k <= len(got); k++ {
			if MatchShown(shown[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	parts := strings.Split(strings.TrimRight(shown[0], " "), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	if !regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`).MatchString(strings.TrimRight(got[0], " ")) {
		return false
	}
	return MatchShown(shown[1:], got[1:])
}
