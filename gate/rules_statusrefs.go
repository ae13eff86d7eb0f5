package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/lazyre"
	"github.com/certcut/certcut/internal/limitedfile"
)

// The status references (scripts/check-rfc-status-coherence.mjs rules 6 and
// 7): schemas/README.md states each schema's RFC status, which must be the
// RFC's real one (RFC 0178 §E.1), and no conformance scenario ships a
// requirement of a Draft RFC.
const (
	CritSchemasReadme RuleID = "rfc.schemas-readme"
	CritDraftEnforced RuleID = "rfc.draft-enforced"
	schemasReadmePath        = "schemas/README.md"
	scenariosPath            = "conformance/src/scenarios"
)

func init() {
	declare(func() {
		audit := []string{"audit"}
		register(
			Rule{ID: CritSchemasReadme, Title: "schemas/README.md states each RFC's real Status",
				Source: "RFC 0178 §E.1; " + coherenceScript + " rule 6 (stricter: a README naming an RFC whose Status cannot be told is BLOCKED; an absent README is BLOCKED, where the script crashes)",
				Gates:  audit, Anchor: coherenceAnchor},
			Rule{ID: CritDraftEnforced, Title: "no conformance scenario ships a requirement of a Draft RFC",
				Source: "RFC 0174 §A; " + coherenceScript + " rule 7",
				Gates:  audit, Anchor: coherenceAnchor},
		)
	})
}

var (
	readmeStatusRE = lazyre.New("RFC (\\d{4}) \\(`(Draft|Active|Accepted|Withdrawn|Superseded|Rejected)`\\)")
	scenarioRefRE  = lazyre.New("['\"`]RFCS/(\\d{4})-|['\"`]openwop\\.requirement\\.(\\d{4})\\.")
)

// statusOf returns the Status of the RFC numbered n (ok), nothing when no file
// states that number (the rules skip it, as the script does), or why its
// Status cannot be told (two files, an unreadable Status row).
func (g *governance) statusOf(n string) (st rfc.Status, why string, ok bool) {
	if len(g.byNumber[n]) == 0 {
		return "", "", false
	}
	x, why := g.lookup(n)
	if x == nil {
		return "", why, false
	}
	return x.Status, "", true
}

// schemasReadmeCriterion decides rfc.schemas-readme: every table row of
// schemas/README.md that states “RFC NNNN (`Status`)“ states the RFC's Status.
func schemasReadmeCriterion(g *governance) Criterion {
	r := rule(CritSchemasReadme)
	path := filepath.Join(g.root, filepath.FromSlash(schemasReadmePath))
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		why := fmt.Sprintf("%s cannot be read: %v", path, err)
		if errors.Is(err, fs.ErrNotExist) {
			why = fmt.Sprintf("%s does not exist: the schema statuses it states cannot be checked", path)
		}
		return r.Criterion(Result{Status: Blocked, Reason: why, Location: &Location{File: path, Line: 1}})
	}
	var t tally
	stated := 0
	for i, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		for _, m := range readmeStatusRE().FindAllStringSubmatch(l, -1) {
			stated++
			loc := &Location{File: path, Line: i + 1}
			switch st, why, ok := g.statusOf(m[1]); {
			case why != "":
				t.blockf(loc, "states RFC %s is `%s`, but %s", m[1], m[2], why)
			case ok && string(st) != m[2]:
				t.failf(loc, "states RFC %s is `%s`; it is `%s` (RFC 0178 §E.1)", m[1], m[2], st)
			}
		}
	}
	return r.Criterion(t.result(fmt.Sprintf("%d RFC status(es) stated in %s, each the RFC's own", stated, path)))
}

// draftEnforcedCriterion decides rfc.draft-enforced: no string literal of a
// conformance/src/scenarios/*.ts file cites `RFCS/NNNN-…` or
// `openwop.requirement.NNNN.…` of an RFC that is Draft. Without the scenarios
// directory there is nothing to check.
func draftEnforcedCriterion(g *governance) Criterion {
	r := rule(CritDraftEnforced)
	dir := filepath.Join(g.root, filepath.FromSlash(scenariosPath))
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return r.Criterion(Result{Status: Pass, Reason: fmt.Sprintf("no %s: no shipped scenario to check", dir)})
	}
	if err != nil {
		return r.Criterion(Result{Status: Blocked, Reason: fmt.Sprintf("%s cannot be read: %v", dir, err)})
	}
	names := filesNamed(ents, ".ts")
	var t tally
	for _, n := range names {
		path := filepath.Join(dir, n)
		data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
		if err != nil {
			t.blockf(&Location{File: path, Line: 1}, "%s cannot be read: %v", path, err)
			continue
		}
		for i, l := range strings.Split(string(data), "\n") {
			for _, m := range scenarioRefRE().FindAllStringSubmatch(l, -1) {
				num := m[1] + m[2]
				if st, _, ok := g.statusOf(num); ok && st == rfc.StatusDraft {
					t.failf(&Location{File: path, Line: i + 1}, "ships a requirement citing RFC %s, which is `Draft`: flip it to `Active` or gate the leg", num)
				}
			}
		}
	}
	return r.Criterion(t.result(fmt.Sprintf("%d scenario file(s) of %s cite no Draft RFC", len(names), dir)))
}

// filesNamed returns the names of the regular entries that end in suffix,
// sorted.
func filesNamed(ents []fs.DirEntry, suffix string) []string {
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), suffix) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}
