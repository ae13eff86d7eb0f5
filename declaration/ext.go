package declaration

import (
	"errors"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/internal/limitedfile"
)

// Extension README statuses (RFC 0220 §D).
const (
	ExtDraft   = "Draft"
	ExtStable  = "Stable"
	ExtRetired = "Retired"
	ExtNote    = "Note"
)

// ExtReadme is one spec/v2/ext/<dir>/README.md.
type ExtReadme struct {
	Dir  string `json:"dir"`
	File string `json:"file"`
	// Status is Draft, Stable, Retired or Note; "" when the README has no Status.
	Status string `json:"status"`
	// Line is the 1-based line of the Status (0 without one).
	Line int `json:"line"`
	// SaysNotAFamily: the text says the directory is not a declared family
	// ("not a declared family", "outside this rule", …).
	SaysNotAFamily bool `json:"saysNotAFamily"`
}

var (
	extStatusRE = lazyre.New(`(?i)Status:\s*\**\s*(Draft|Stable|Retired|Note)\b`)
	notFamilyRE = lazyre.New(`(?i)not a (declared )?(extension )?family|notes?, not a family|outside this rule`)
)

// ParseExtReadme reads the Status of one extension README: the first
// "Status:" (optionally bolded) followed by Draft, Stable, Retired or Note, in
// any case, anywhere in the text.
func ParseExtReadme(dir, file string, text []byte) ExtReadme {
	x := ExtReadme{Dir: dir, File: file, SaysNotAFamily: notFamilyRE().Match(text)}
	if m := extStatusRE().FindSubmatchIndex(text); m != nil {
		s := strings.ToLower(string(text[m[2]:m[3]]))
		x.Status = strings.ToUpper(s[:1]) + s[1:]
		x.Line = 1 + strings.Count(string(text[:m[0]]), "\n")
	}
	return x
}

// ReadExtDir reads the README.md of every subdirectory of dir, sorted by name
// (a subdirectory without one is skipped; dir's own README.md is not an
// extension). Each README is read as policy text (limitedfile.MaxPolicy).
func ReadExtDir(dir string) ([]ExtReadme, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []ExtReadme
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		file := filepath.Join(dir, e.Name(), "README.md")
		data, err := limitedfile.Read(file, limitedfile.MaxPolicy)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ParseExtReadme(e.Name(), file, data))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// ExtWitness is one committed bundle carrying openwop.family.<key> as
// executed-pass with some certified profile.
type ExtWitness struct {
	File string `json:"file"`
	// Qualifies: tier 2 or higher from a bound origin (the caller decides).
	Qualifies bool `json:"qualifies"`
	// Why says why it does not qualify ("" when it does).
	Why string `json:"why,omitempty"`
}

// Ext outcomes.
const (
	ExtOK        = "ok"
	ExtFail      = "FAIL"
	ExtGraduable = "GRADUABLE"
	ExtNotYet    = "NOT YET"
)

// ExtFinding is the verdict on one extension README.
type ExtFinding struct {
	ExtReadme
	// Family is the declared ext family the directory names ("" when none).
	Family    string       `json:"family"`
	Outcome   string       `json:"outcome"`
	Reason    string       `json:"reason"`
	Witnesses []ExtWitness `json:"witnesses"`
}

// CheckExt applies RFC 0220 §D/§E to each README: a directory named like a
// declared ext family (anchor "ext"; case-sensitive) is that family.
//
//   - No family: the Status must be Note or Retired, and a Note must say it is
//     not a family.
//   - A family: Note fails; Stable needs a qualifying witness and the
//     declaration's technical stable; Draft with technical stable fails; Retired
//     while declared fails. Draft with a qualifying witness is GRADUABLE, Draft
//     with only non-qualifying witnesses NOT YET (warnings).
//
// witnesses maps a family key to its witnesses.
func CheckExt(readmes []ExtReadme, decl *Declaration, witnesses map[string][]ExtWitness) []ExtFinding {
	ext := decl.ExtFamilies()
	out := make([]ExtFinding, 0, len(readmes))
	for _, x := range readmes {
		f := ExtFinding{ExtReadme: x, Witnesses: []ExtWitness{}}
		fam, declared := ext[x.Dir]
		if declared {
			f.Family = fam.Key
			f.Witnesses = append(f.Witnesses, witnesses[fam.Key]...)
		}
		var qual, other []string
		for _, w := range f.Witnesses {
			if w.Qualifies {
				qual = append(qual, filepath.Base(w.File))
			} else {
				other = append(other, filepath.Base(w.File)+" ("+w.Why+")")
			}
		}
		fail := func(format string, a ...any) { f.Outcome, f.Reason = ExtFail, fmt.Sprintf(format, a...) }
		switch {
		case x.Status == "":
			fail("no Status: Draft, Stable, Retired or Note")
		case !declared && x.Status != ExtNote && x.Status != ExtRetired:
			fail("Status is %s, but %s is not a declared extension family: its Status must be Note (or Retired)", x.Status, x.Dir)
		case !declared && x.Status == ExtNote && !x.SaysNotAFamily:
			fail("Status is Note, but the README does not say it is not a declared family (\"not a declared family\", \"outside this rule\")")
		case !declared:
			f.Outcome, f.Reason = ExtOK, fmt.Sprintf("Status %s; not a declared extension family", x.Status)
		case x.Status == ExtNote:
			fail("Status is Note, but %s is a declared extension family: Draft, Stable or Retired", x.Dir)
		case x.Status == ExtRetired:
			fail("Status is Retired, but the declaration %s still declares %s", decl.File, fam.Key)
		case x.Status == ExtStable && len(qual) == 0:
			fail("Status is Stable without tier-2 or higher certified evidence carrying openwop.family.%s executed-pass%s", fam.Key, list("; not qualifying: ", other))
		case x.Status == ExtStable && fam.Technical != TechnicalStable:
			fail("Status is Stable, but the declaration's maturity.technical for %s is %s", fam.Key, orNone(fam.Technical))
		case x.Status == ExtDraft && fam.Technical == TechnicalStable:
			fail("Status is Draft, but the declaration's maturity.technical for %s is stable", fam.Key)
		case x.Status == ExtDraft && len(qual) > 0:
			f.Outcome, f.Reason = ExtGraduable, fmt.Sprintf("Draft with tier-2 or higher certified evidence: %s", strings.Join(qual, ", "))
		case x.Status == ExtDraft && len(other) > 0:
			f.Outcome, f.Reason = ExtNotYet, fmt.Sprintf("Draft; evidence that does not qualify yet: %s", strings.Join(other, "; "))
		default:
			f.Outcome, f.Reason = ExtOK, fmt.Sprintf("Status %s, maturity.technical %s", x.Status, orNone(fam.Technical))
			if len(qual) > 0 {
				f.Reason += "; witnessed by " + strings.Join(qual, ", ")
			}
		}
		out = append(out, f)
	}
	return out
}

func list(prefix string, xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return prefix + strings.Join(xs, "; ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
