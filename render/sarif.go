package render

import (
	"path/filepath"
	"slices"

	"github.com/certcut/certcut/gate"
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
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
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
// of each criterion (pass, fail, or open for BLOCKED).
func sarifLog(reps []*gate.Report, version string) sarifDoc {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "certcut bundle gate", Version: version,
		InformationURI: "https://github.com/certcut/certcut/blob/main/docs/gate.md", Rules: []sarifRule{}}}, Results: []sarifResult{}}
	for _, r := range reps {
		for _, c := range r.Criteria {
			run.addRule(c.ID, c.Title)
			kind, level := "pass", "none"
			switch c.Status {
			case gate.Fail:
				kind, level = "fail", "error"
			case gate.Blocked:
				kind, level = "open", "warning"
			}
			for _, a := range annotations(c) {
				res := sarifResult{RuleID: c.ID, Kind: kind, Level: level, Message: sarifMessage{Text: r.Subject + ": " + a.title + ": " + a.message}}
				if a.file != "" {
					res.Locations = []sarifLocation{sarifAt(a.file, a.line)}
				}
				run.Results = append(run.Results, res)
			}
		}
	}
	return sarifDoc{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}

func (run *sarifRun) addRule(id, text string) {
	if !slices.ContainsFunc(run.Tool.Driver.Rules, func(r sarifRule) bool { return r.ID == id }) {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: text}})
	}
}

func sarifAt(file string, line int) sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: filepath.ToSlash(file)}}}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return loc
}
