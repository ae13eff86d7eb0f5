package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/declaration"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/limitedfile"
)

// anchorGateStrings: the call a scenario source must make for each anchor
// (RFC 0216 §A.3 (d)).
var anchorGateStrings = map[string]string{"oidc-test-issuer": "harnessClaimed("}

// anchorRows returns the listed rows in the declaration package's form.
func (r *Repo) anchorRows() []declaration.AnchorRow {
	out := make([]declaration.AnchorRow, 0, len(r.Anchors.Rows))
	for _, a := range r.Anchors.Rows {
		out = append(out, declaration.AnchorRow{ID: a.RequirementID, Scenario: a.Scenario, Anchor: a.Anchor, RFC: a.RFC})
	}
	return out
}

// anchorsCriteria checks that the harness-trust-anchor list is closed (RFC 0216
// §A.3; scripts/check-harness-trust-anchors.mjs): spec.anchors.ids (exact ids,
// anchors in the schema's enum), spec.anchors.rfc-tables (the list equals the
// union of the Active and Accepted RFCs' tables, rfc fields matching),
// spec.anchors.floor (no anchor scenario is a floor scenario) and
// spec.anchors.sources (the scenario sources gate on the anchor; BLOCKED when
// the repository has no conformance/src/scenarios or requirements.json).
func (r *Repo) anchorsCriteria() []Criterion {
	loc := &Location{File: r.AnchorsFile, Line: 1}
	if r.Anchors == nil {
		why := fmt.Sprintf("no harness-trust-anchor list at %s: the closure of RFC 0216 §A.3 cannot be checked", r.AnchorsFile)
		var out []Criterion
		for _, id := range []RuleID{CritAnchorsIDs, CritAnchorsTables, CritAnchorsFloor, CritAnchorsSources} {
			out = append(out, rule(id).Criterion(Result{Status: Blocked, Reason: why}))
		}
		return out
	}
	rows := r.anchorRows()
	root := r.Root
	spec := filepath.Dir(r.AnchorsFile)
	var out []Criterion

	// (a) ids, (b) the enum.
	var findings []Finding
	for _, a := range rows {
		if p := declaration.AnchorIDProblem(a.ID); p != "" {
			findings = append(findings, Finding{Message: a.ID + " " + p, Location: loc})
		}
	}
	schema := filepath.Join(spec, "harness-trust-anchors.schema.json")
	enum, err := declaration.LoadAnchorEnum(schema)
	switch {
	case isNotExist(err):
		out = append(out, rule(CritAnchorsIDs).Criterion(Result{Status: Blocked, Location: loc, Findings: findings,
			Reason: fmt.Sprintf("no schema at %s: the anchors cannot be checked against its enum (%d id problem(s) found)", schema, len(findings))}))
	case err != nil:
		out = append(out, rule(CritAnchorsIDs).Criterion(Result{Status: Blocked, Location: loc, Reason: err.Error()}))
	default:
		for _, a := range rows {
			if !slices.Contains(enum, a.Anchor) {
				findings = append(findings, Finding{Message: fmt.Sprintf("%s: anchor %q is not in %s's enum (%s)", a.ID, a.Anchor, schema, strings.Join(enum, ", ")), Location: loc})
			}
		}
		if len(findings) > 0 {
			out = append(out, rule(CritAnchorsIDs).Criterion(Result{Status: Fail, Location: loc, Findings: findings, Reason: fmt.Sprintf("%d problem(s) in the list's ids and anchors", len(findings))}))
		} else {
			out = append(out, rule(CritAnchorsIDs).Criterion(Result{Status: Pass, Location: loc, Reason: fmt.Sprintf("%d exact id(s), each anchor in the schema's enum", len(rows))}))
		}
	}

	// (c) the RFC tables.
	rfcs, err := readAnchorRFCs(filepath.Join(root, "RFCS"))
	if err != nil {
		out = append(out, rule(CritAnchorsTables).Criterion(Result{Status: Blocked, Location: loc, Reason: "the RFCs cannot be read: " + err.Error()}))
	} else {
		tables := declaration.AnchorTables(rfcs)
		if probs := declaration.AnchorListProblems(rows, tables); len(probs) > 0 {
			var fs []Finding
			for _, p := range probs {
				fs = append(fs, Finding{Message: p, Location: loc})
			}
			out = append(out, rule(CritAnchorsTables).Criterion(Result{Status: Fail, Location: loc, Findings: fs, Reason: strings.Join(probs, "; ")}))
		} else {
			out = append(out, rule(CritAnchorsTables).Criterion(Result{Status: Pass, Location: loc, Reason: fmt.Sprintf("the %d listed id(s) are exactly those the Active and Accepted RFCs' Harness-trust-anchor rows tables name, each with its RFC", len(rows))}))
		}
	}

	// (e) no anchor scenario on a floor.
	profilesFile := filepath.Join(spec, "profiles.json")
	floors, err := declaration.LoadFloorScenarios(profilesFile)
	switch {
	case isNotExist(err):
		out = append(out, rule(CritAnchorsFloor).Criterion(Result{Status: Blocked, Location: loc, Reason: "no profile registry at " + profilesFile + ": the floors cannot be checked"}))
	case err != nil:
		out = append(out, rule(CritAnchorsFloor).Criterion(Result{Status: Blocked, Location: loc, Reason: err.Error()}))
	default:
		var probs []string
		for _, a := range rows {
			if ps := floors[strings.TrimSuffix(a.Scenario, ".test.ts")]; len(ps) > 0 {
				probs = append(probs, fmt.Sprintf("%s: scenario %s is a floor scenario of %s", a.ID, a.Scenario, strings.Join(ps, ", ")))
			}
		}
		if len(probs) > 0 {
			out = append(out, rule(CritAnchorsFloor).Criterion(Result{Status: Fail, Location: loc, Reason: strings.Join(probs, "; ")}))
		} else {
			out = append(out, rule(CritAnchorsFloor).Criterion(Result{Status: Pass, Location: loc, Reason: fmt.Sprintf("no anchor scenario is among the %d floor scenarios of %s", len(floors), profilesFile)}))
		}
	}

	// (d) the scenario sources.
	out = append(out, r.anchorSourcesCriterion(rows, loc))
	return out
}

func (r *Repo) anchorSourcesCriterion(rows []declaration.AnchorRow, loc *Location) Criterion {
	scen := filepath.Join(r.Root, "conformance", "src", "scenarios")
	reqFile := filepath.Join(r.Root, "conformance", "requirements.json")
	var missing []string
	for _, p := range []string{scen, reqFile} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return rule(CritAnchorsSources).Criterion(Result{Status: Blocked, Location: loc,
			Reason: fmt.Sprintf("%s absent: whether each anchor scenario exists, names the id and gates on its anchor cannot be checked", strings.Join(missing, " and "))})
	}
	explicit, err := explicitIDs(reqFile)
	if err != nil {
		return rule(CritAnchorsSources).Criterion(Result{Status: Blocked, Location: loc, Reason: err.Error()})
	}
	var probs []string
	for _, a := range rows {
		data, err := limitedfile.ReadIn(scen, a.Scenario, limitedfile.MaxPolicy)
		if err != nil {
			probs = append(probs, fmt.Sprintf("%s: scenario %s cannot be read: %v", a.ID, a.Scenario, err))
			continue
		}
		stem := strings.TrimSuffix(a.Scenario, ".test.ts")
		if a.ID != "openwop.scenario."+stem && !explicit[a.Scenario+"\x00"+a.ID] {
			probs = append(probs, fmt.Sprintf("%s is neither openwop.scenario.%s nor a requirements.json record of %s", a.ID, stem, a.Scenario))
		}
		if g, ok := anchorGateStrings[a.Anchor]; ok && !strings.Contains(string(data), g) {
			probs = append(probs, fmt.Sprintf("%s: %s does not call %s, the gate of anchor %s", a.ID, a.Scenario, g, a.Anchor))
		}
	}
	if len(probs) > 0 {
		return rule(CritAnchorsSources).Criterion(Result{Status: Fail, Location: loc, Reason: strings.Join(probs, "; ")})
	}
	return rule(CritAnchorsSources).Criterion(Result{Status: Pass, Location: loc, Reason: fmt.Sprintf("each of the %d anchor scenario(s) exists, names its id and gates on its anchor", len(rows))})
}

// explicitIDs reads conformance/requirements.json's records[]{file, explicitId}
// as "file\x00id" keys.
func explicitIDs(path string) (map[string]bool, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	recs, ok := v.Get("records")
	if !ok || recs.Kind() != bundle.Array {
		return nil, fmt.Errorf("%s: records must be an array", path)
	}
	out := map[string]bool{}
	for _, rec := range recs.Items() {
		f, _ := rec.Get("file")
		id, _ := rec.Get("explicitId")
		fs, ok1 := f.Str()
		ids, ok2 := id.Str()
		if ok1 && ok2 {
			out[fs+"\x00"+ids] = true
		}
	}
	return out, nil
}

// readAnchorRFCs reads every RFCS/NNNN-*.md, sorted by name.
func readAnchorRFCs(dir string) ([]declaration.AnchorRFC, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && rfcFileRE().MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []declaration.AnchorRFC
	for _, n := range names {
		p := filepath.Join(dir, n)
		data, err := limitedfile.Read(p, limitedfile.MaxPolicy)
		if err != nil {
			return nil, err
		}
		x := rfc.Parse(p, string(data))
		number := x.Number
		if number == "" {
			number = n[:4]
		}
		out = append(out, declaration.AnchorRFC{Number: number, File: p, Status: string(x.Status), Text: data})
	}
	return out, nil
}
