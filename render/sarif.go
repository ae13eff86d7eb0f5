package render

import (
	"net/url"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/lazyre"
)

// SARIF 2.1.0, the subset code-scanning tools read.
type sarifDoc struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
	FullDescription  sarifMessage `json:"fullDescription"`
	Help             sarifHelp    `json:"help"`
	HelpURI          string       `json:"helpUri,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Kind      string          `json:"kind"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifLog is one run with a rule per criterion id and a result per annotation
// of each criterion (pass, fail, or open for BLOCKED). It passes the SARIF
// Multitool's GitHub rules: every result has a location (its own file and
// line, else the RFC file, else a file the report names), with a region where
// there is a line; every rule a full description and help (RuleMeta); the
// tool's version is a semantic version or the commit (sarifVersion).
func sarifLog(reps []*gate.Report, version string) sarifDoc {
	ver, sem := sarifVersion(version)
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "certcut bundle gate", Version: ver, SemanticVersion: sem,
		InformationURI: "https://github.com/certcut/certcut/blob/main/docs/gate.md", Rules: []sarifRule{}}}, Results: []sarifResult{}}
	for _, r := range reps {
		for _, c := range r.Criteria {
			run.addRule(string(c.ID), c.Title)
			kind, level := "pass", "none"
			switch c.Status {
			case gate.Fail:
				kind, level = "fail", "error"
			case gate.Blocked:
				kind, level = "open", "warning"
			}
			if c.Warning && c.Status == gate.Fail {
				level = "warning" // a warning-severity rule fails no report
			}
			for _, a := range annotations(c) {
				res := sarifResult{RuleID: string(c.ID), Kind: kind, Level: level, Message: sarifMessage{Text: r.Subject + ": " + a.title + ": " + a.message}}
				switch {
				case a.file != "":
					res.Locations = []sarifLocation{sarifAt(a.file, a.line)}
				case reportFile(r) != "":
					res.Locations = []sarifLocation{sarifAt(reportFile(r), 0)}
				}
				run.Results = append(run.Results, res)
			}
		}
	}
	return sarifDoc{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}

func (run *sarifRun) addRule(id, title string) {
	if !slices.ContainsFunc(run.Tool.Driver.Rules, func(r sarifRule) bool { return r.ID == id }) {
		m := RuleMeta(id, title)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: m.Short},
			FullDescription: sarifMessage{Text: m.Full}, Help: sarifHelp{Text: m.Help}, HelpURI: m.HelpURI})
	}
}

// reportFile is the file a result without its own location is placed on: the
// RFC the report gates, else the first file a criterion names.
func reportFile(r *gate.Report) string {
	if r.RFC != nil && r.RFC.File != "" {
		return r.RFC.File
	}
	for _, c := range r.Criteria {
		switch {
		case c.Location != nil && c.Location.File != "":
			return c.Location.File
		case c.Bundle != nil && c.Bundle.File != "":
			return c.Bundle.File
		}
		for _, f := range c.Findings {
			if f.Location != nil && f.Location.File != "" {
				return f.Location.File
			}
		}
	}
	return ""
}

// Rule is what a report says about one criterion kind: SARIF's rule
// metadata, the help a reviewer reads.
type Rule struct {
	Short, Full, Help, HelpURI string
}

const gateDoc = "https://github.com/certcut/certcut/blob/main/docs/gate.md"

// ruleHelp is the advice of a criterion kind, by id: what to do when it does
// not pass (its second text; the first describes a kind no rule registers).
// What a rule checks and where it comes from is the registry's (gate.Rules).
var ruleHelp = map[string][2]string{
	"rfc.acceptance":            {"The RFC's acceptance criteria name requirement ids the gate can judge.", "Give the RFC an acceptance section that names each requirement id it rests on."},
	"rfc.register":              {"Requirement ids the RFC introduces are registered in the spec repository's register.", "Add the ids to the register file, or remove them from the RFC."},
	"rfc.updated":               {"The RFC's header is up to date with the change.", "Update the RFC's Updated row."},
	"requirement":               {"Each required id has an executed-pass row in a verified bundle of a qualifying host.", "Mint and commit a signed bundle whose rows pass the requirement, from a host of the required tier."},
	"requirement.corpus":        {"A (corpus) requirement is satisfied by the corpus ledger.", "The ledger is unsigned: review it as policy."},
	"bundle.verified":           {"The bundle verifies with zero rejections under a trusted key.", "Run bundle verify on it and fix what it rejects; pin the host key in the keyring."},
	"bundle.key":                {"The signing key is trusted, not revoked, and in service when it signed.", "Sign with a key in service; give a trusted time-stamp (.tsr) to prove when it signed."},
	"bundle.tier":               {"The host is of the required tier, bound to its origin.", "List the origin in evidence/host-tiers.json and bind it (keyring origin, git history or a live fetch)."},
	"bundle.live":               {"The live discovery document matches the signed one.", "Deploy the build the bundle was minted from, or mint a new bundle."},
	"bundle.companion":          {"Companion bundles agree with the main one.", "Re-mint the companion from the same run."},
	"bundle.guard-closed":       {"The webhook egress guard was closed.", "Fix the guard and mint again."},
	"bundle.profiles-certified": {"Every claimed profile is certified by the verified rows.", "Claim only profiles the rows certify."},
	"bundle.relaxations-empty":  {"The bundle declares no relaxations.", "Remove the relaxations and mint again."},
	"cut.witness":               {"The cut's witness bundles verify.", "Commit verified witness bundles for the cut."},
	"cut.coexistence":           {"Versions of the cut coexist as the spec requires.", "See docs/gate.md for the coexistence rules."},
	"cut.front-door":            {"The cut's front door documents are in place.", "See docs/gate.md for the front-door checks."},
	"flips.new-bundle":          {"A bundle added by the change verifies.", "Fix or remove the added bundle."},
	"flips.policy":              {"Policy files are not edited in the same change as a flip.", "Change policy files (keyring, tiers, TSA certificates, ledger) in a change of their own."},
	"flips.regressions":         {"No committed bundle regresses.", "Keep the regressed rows passing, or explain the regression in review."},
	"flips.status-unreadable":   {"Every RFC's Status can be read.", "Give the RFC exactly one Status row with a known value."},
}

// RuleMeta returns the SARIF metadata of a criterion kind, from the gate's
// rule registry (gate.Rules): short description the rule's title (the
// criterion's, for a parameterised one), full description the title and the
// rule's source, help the advice of ruleHelp where it has one and the rule's
// section of docs/gate.md, which helpUri points at. A kind no rule registers
// gets a generic text naming docs/gate.md.
func RuleMeta(id, title string) Rule {
	if title == "" {
		title = id
	}
	advice, ok := ruleHelp[id]
	r, registered := gate.LookupRule(gate.RuleID(id))
	if !registered {
		if !ok {
			advice = [2]string{"The gate criterion " + id + ": " + title + ".", "See docs/gate.md for what " + id + " checks and how to make it pass."}
		}
		return Rule{Short: title, Full: advice[0], Help: advice[1] + " (" + id + "; docs/gate.md)", HelpURI: gateDoc}
	}
	help := "See docs/gate.md#" + r.Anchor + " for what " + id + " checks."
	if ok {
		help = advice[1] + " " + help
	}
	return Rule{Short: title, Full: r.Title + ". Source: " + r.Source + ".", Help: help, HelpURI: gateDoc + "#" + r.Anchor}
}

var semver = lazyre.New(`^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)(?: commit [0-9a-f]+(?:\+dirty)?)?$`)

// sarifVersion is the tool version SARIF records: a release's semantic version
// without its "v" (v1.4.0 and `bundle version`'s "v1.4.0 commit 1a2b3c4d5e6f"
// give 1.4.0, as version and as semanticVersion: the SARIF Multitool warns
// that "v1.4.0" is no numeric version, SARIF2005), else the commit the binary
// was built from, else 0.0.0-devel; never Go's "(devel)".
func sarifVersion(v string) (version, semantic string) {
	if m := semver().FindStringSubmatch(v); m != nil {
		return m[1], m[1]
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value, ""
			}
		}
	}
	if v != "" && !strings.ContainsAny(v, "() ") {
		return v, ""
	}
	return "0.0.0-devel", "0.0.0-devel"
}

// sarifAt places a result on a file's line. A relative path stays as it is
// (code scanning reads it from the repository's root, where the gate runs); an
// absolute one (--repo or --rfc given as one) becomes a file: URI, which SARIF
// requires (a relative reference beginning with a slash is SARIF1004) and
// which upload-sarif makes relative to its checkout_path.
func sarifAt(file string, line int) sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(file)}}}
	if line < 1 {
		// A finding about the whole file: code scanning shows a result only
		// with a region (SARIF2017), so it is placed on the first line.
		line = 1
	}
	loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	return loc
}

// sarifURI is a result's artifact URI: an absolute path as a file: URI
// (file:///srv/spec/RFCS/0211-x.md, C:\x as file:///C:/x, escaped as a URI
// path), a relative one slash-separated as before.
func sarifURI(file string) string {
	slashed := filepath.ToSlash(file)
	if !filepath.IsAbs(file) {
		return slashed
	}
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed
	}
	return (&url.URL{Scheme: "file", Path: slashed}).String()
}
