package rows

import (
	"path"
	"strconv"
	"strings"
)

// Requirement id areas (spec §9).
const (
	AreaRequirement = "requirement"
	AreaIt          = "it"
	AreaScenario    = "scenario"
	AreaFloor       = "floor"
	AreaProfile     = "profile"
	AreaFamily      = "family"
)

// MaxSlug is the longest title slug (spec §9).
const MaxSlug = 80

// Slug turns a test title into the slug of an openwop.it id (spec §9): lower-cased,
// every run of characters other than [a-z0-9] replaced by one '-', leading and
// trailing '-' trimmed, cut to 80 characters (and a '-' the cut leaves at the end
// removed), "untitled" when nothing is left.
func Slug(title string) string {
	lower := strings.ToLower(title)
	var b strings.Builder
	b.Grow(len(lower))
	dash := false
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c)
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > MaxSlug {
		s = strings.TrimRight(s[:MaxSlug], "-")
	}
	if s == "" {
		return "untitled"
	}
	return s
}

// Stem returns the scenario file's stem: its base name without ".test.ts" (or,
// for other runners, without ".test.<ext>", ".spec.<ext>" or the extension).
func Stem(file string) string {
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	if s, ok := strings.CutSuffix(base, ".test.ts"); ok {
		return s
	}
	ext := path.Ext(base)
	s := strings.TrimSuffix(base, ext)
	for _, suffix := range []string{".test", ".spec"} {
		if t, ok := strings.CutSuffix(s, suffix); ok {
			return t
		}
	}
	return s
}

// ScenarioFile returns the base name of a scenario file path, the form rows carry
// in scenario ("v2-era-key.test.ts").
func ScenarioFile(file string) string { return path.Base(strings.ReplaceAll(file, `\`, "/")) }

// StemFromID returns the scenario file stem an id names: openwop.scenario.<stem>,
// openwop.floor.<stem> and openwop.it.<stem>.<slug>. Other areas name no file.
func StemFromID(id string) (string, bool) {
	if s, ok := strings.CutPrefix(id, "openwop.scenario."); ok && s != "" {
		return s, true
	}
	if s, ok := strings.CutPrefix(id, "openwop.floor."); ok && s != "" {
		return s, true
	}
	if s, ok := strings.CutPrefix(id, "openwop.it."); ok {
		// The slug holds no '.', so the stem is everything before the last one.
		if i := strings.LastIndexByte(s, '.'); i > 0 {
			return s[:i], true
		}
	}
	return "", false
}

// itIDs hands out openwop.it ids for one scenario file, numbering repeats of a slug
// ~2, ~3, … in the order the tests are met.
type itIDs struct {
	stem string
	seen map[string]int
}

func newITIDs(stem string) *itIDs { return &itIDs{stem: stem, seen: map[string]int{}} }

func (a *itIDs) next(title string) string {
	slug := Slug(title)
	a.seen[slug]++
	id := "openwop.it." + a.stem + "." + slug
	if n := a.seen[slug]; n > 1 {
		id += "~" + strconv.Itoa(n)
	}
	return id
}

// FileRowID returns the per-file row id of a scenario file: openwop.floor.<stem>
// for a profile floor scenario, openwop.scenario.<stem> otherwise.
func FileRowID(stem string, isFloor func(string) bool) string {
	if isFloor != nil && isFloor(stem) {
		return "openwop.floor." + stem
	}
	return "openwop.scenario." + stem
}
