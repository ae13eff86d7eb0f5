package declaration

import (
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// AnchorRow is one row of spec/v2/harness-trust-anchors.json as the closure
// rules read it.
type AnchorRow struct {
	ID       string
	Scenario string
	Anchor   string
	RFC      string
}

// AnchorRFC is one RFC file's Status and text, for the anchor tables.
type AnchorRFC struct {
	Number, File, Status string
	Text                 []byte
}

// AnchorTableRow is one id an RFC's "### Harness-trust-anchor rows" table names.
type AnchorTableRow struct {
	ID     string
	RFC    string
	File   string
	Line   int
	Status string
}

var (
	anchorTableHeadRE = lazyre.New(`(?m)^### Harness-trust-anchor rows[^\n]*$`)
	anchorTableEndRE  = lazyre.New(`(?m)^#{2,3} `)
	anchorTableRowRE  = lazyre.New("^\\|\\s*`openwop\\.")
	anchorTokenRE     = lazyre.New("`(openwop\\.[^`]*)`")
	anchorIDRE        = lazyre.New(`^openwop\.(requirement|scenario)\.[a-z0-9.-]+$`)
)

// AnchorTables returns the ids named by the "### Harness-trust-anchor rows"
// tables of the Active and Accepted RFCs (RFC 0216 §A.3): the section after the
// first such heading, up to the next heading of level 2 or 3; each line
// starting "| `openwop." names the first backticked openwop. token. When two
// RFCs name one id, the later RFC (in the order given) wins.
func AnchorTables(rfcs []AnchorRFC) map[string]AnchorTableRow {
	out := map[string]AnchorTableRow{}
	for _, x := range rfcs {
		if x.Status != "Active" && x.Status != "Accepted" {
			continue
		}
		loc := anchorTableHeadRE().FindIndex(x.Text)
		if loc == nil {
			continue
		}
		body := x.Text[loc[1]:]
		if end := anchorTableEndRE().FindIndex(body); end != nil {
			body = body[:end[0]]
		}
		line := 1 + strings.Count(string(x.Text[:loc[1]]), "\n")
		for i, l := range strings.Split(string(body), "\n") {
			if !anchorTableRowRE().MatchString(l) {
				continue
			}
			if m := anchorTokenRE().FindStringSubmatch(l); m != nil {
				out[m[1]] = AnchorTableRow{ID: m[1], RFC: x.Number, File: x.File, Line: line + i, Status: x.Status}
			}
		}
	}
	return out
}

// AnchorIDProblem says what is wrong with an anchor id, "" when nothing: it must
// be an exact requirement or scenario id, with no *, ?, .. and no trailing dot.
func AnchorIDProblem(id string) string {
	switch {
	case !anchorIDRE().MatchString(id):
		return "is not an exact openwop.requirement. or openwop.scenario. id"
	case strings.ContainsAny(id, "*?"):
		return "holds a wildcard"
	case strings.Contains(id, ".."):
		return "holds an empty segment (..)"
	case strings.HasSuffix(id, "."):
		return "ends in a dot"
	}
	return ""
}

// AnchorEnum reads the anchor vocabulary of a harness-trust-anchors schema:
// $defs.row.properties.anchor.enum, strings.
func AnchorEnum(data []byte, name string) ([]string, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a harness-trust-anchors schema: %w", name, err)
	}
	e, ok := v.Path("$defs", "row", "properties", "anchor", "enum")
	if !ok || e.Kind() != bundle.Array {
		return nil, fmt.Errorf("%s: $defs.row.properties.anchor.enum must be an array", name)
	}
	var out []string
	for i, it := range e.Items() {
		s, ok := it.Str()
		if !ok {
			return nil, fmt.Errorf("%s: $defs.row.properties.anchor.enum[%d] must be a string", name, i)
		}
		out = append(out, s)
	}
	return out, nil
}

// LoadAnchorEnum reads AnchorEnum from a file.
func LoadAnchorEnum(path string) ([]string, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return AnchorEnum(data, path)
}

// FloorScenarios reads spec/v2/profiles.json's profiles[].floorScenarios[]: the
// scenario stem (".test.ts" stripped) → the profiles that floor it.
func FloorScenarios(data []byte, name string) (map[string][]string, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a profile registry: %w", name, err)
	}
	ps, ok := v.Get("profiles")
	if !ok || ps.Kind() != bundle.Array {
		return nil, fmt.Errorf("%s: profiles must be an array", name)
	}
	out := map[string][]string{}
	for i, p := range ps.Items() {
		id, _ := p.Get("id")
		pid, _ := id.Str()
		fs, ok := p.Get("floorScenarios")
		if !ok {
			continue
		}
		if fs.Kind() != bundle.Array {
			return nil, fmt.Errorf("%s: profiles[%d].floorScenarios must be an array", name, i)
		}
		for j, f := range fs.Items() {
			s, ok := f.Str()
			if !ok {
				return nil, fmt.Errorf("%s: profiles[%d].floorScenarios[%d] must be a string", name, i, j)
			}
			stem := strings.TrimSuffix(s, ".test.ts")
			out[stem] = append(out[stem], pid)
		}
	}
	return out, nil
}

// LoadFloorScenarios reads FloorScenarios from a file.
func LoadFloorScenarios(path string) (map[string][]string, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return FloorScenarios(data, path)
}

// AnchorListProblems compares the list with the RFC tables in both directions:
// every listed id is named by a table of an Active or Accepted RFC whose number
// is the row's rfc, and every id a table names is listed. Sorted messages.
func AnchorListProblems(rows []AnchorRow, tables map[string]AnchorTableRow) []string {
	var out []string
	listed := map[string]bool{}
	for _, r := range rows {
		listed[r.ID] = true
		t, ok := tables[r.ID]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s is listed, but no Active or Accepted RFC's Harness-trust-anchor rows table names it", r.ID))
		case t.RFC != r.RFC:
			out = append(out, fmt.Sprintf("%s is listed with rfc %q, but RFC %s's table names it (%s line %d)", r.ID, r.RFC, t.RFC, t.File, t.Line))
		}
	}
	for id, t := range tables {
		if !listed[id] {
			out = append(out, fmt.Sprintf("%s is named by RFC %s's table (%s line %d) but not listed", id, t.RFC, t.File, t.Line))
		}
	}
	sort.Strings(out)
	return out
}
