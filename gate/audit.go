package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/lazyre"
)

// AuditFirstRFC is the first RFC number the Accepted predicate applies to; older
// RFCs are grandfathered (RFC 0174 §B.1).
const AuditFirstRFC = 167

// AuditReport is the Accepted predicate over a whole RFC register.
type AuditReport struct {
	RFCsDir  string     `json:"rfcsDir"`
	Status   Status     `json:"status"`
	ExitCode int        `json:"exitCode"`
	Rows     []AuditRow `json:"rows"`
	// Skipped counts RFC files not gated (numbers below 0167, or not Accepted).
	Skipped int `json:"skipped"`
	// NotGated names each of those files, with why.
	NotGated []NotGated `json:"notGated"`
	Bundles  int        `json:"bundles"`
	Settings Settings   `json:"settings"`
	// Vocabulary is RFC 0178 §C.1 (rfc.falsifiability) for every Active RFC
	// in its scope; an Accepted RFC's is in its row's report.
	Vocabulary []AuditCriterion `json:"vocabulary"`
	// Declared is what the spec declares, judged (Repo.Declared).
	Declared *Report `json:"declared"`
	// Repository is the report on the repository-wide governance rules: the
	// supersession pointers, the spec/v2 Stable banners, the waiver
	// retrospective register and the gap and risk registers.
	Repository *Report `json:"repository"`
}

// AuditCriterion is one rule applied to one RFC the audit does not gate as
// Accepted.
type AuditCriterion struct {
	Number    string    `json:"number"`
	File      string    `json:"file"`
	RFCStatus string    `json:"rfcStatus"`
	Criterion Criterion `json:"criterion"`
	// Report holds the criterion as a one-criterion report, for the formats
	// that render reports (GitHub annotations, SARIF, JUnit).
	Report *Report `json:"-"`
}

// NotGated is an RFC file the audit did not gate.
type NotGated struct {
	File   string `json:"file"`
	Status string `json:"status"`
	Why    string `json:"why"`
}

// AuditRow is one Accepted RFC's verdict.
type AuditRow struct {
	Number string `json:"number"`
	File   string `json:"file"`
	Title  string `json:"title"`
	Status Status `json:"status"`
	// Witnesses are the bundle files that witness its ids.
	Witnesses []string `json:"witnesses"`
	// Missing names each criterion that did not pass, with its status.
	Missing []string `json:"missing"`
	Report  *Report  `json:"report"`
}

var rfcFileRE = lazyre.New(`^(\d{4})-.*\.md$`)

// Audit runs the Accepted predicate over every RFCS/NNNN-*.md numbered 0167 or
// higher whose Status is Accepted. The number is the one the header states
// (rfc.RFC.Number); a file whose number cannot be decided, or numbered 0167 or
// higher whose Status cannot be read, is gated too, and BLOCKED (rfc.number,
// rfc.status). Every Active RFC is also held to RFC 0178 §C.1's
// falsifiability vocabulary (Vocabulary), as the reference check holds it.
func (r *Repo) Audit(ctx context.Context, dir string) (*AuditReport, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	out := &AuditReport{RFCsDir: dir, Rows: []AuditRow{}, NotGated: []NotGated{}, Bundles: len(r.Entries), Settings: r.settings(), Status: Pass}
	var files []string
	for _, n := range names {
		if !n.IsDir() && rfcFileRE().MatchString(n.Name()) {
			files = append(files, n.Name())
		}
	}
	sort.Strings(files)
	// Every RFC is read once, for the rules that look across RFCs too.
	tree, err := rfc.LoadTree(dir)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	gov := newGovernance(dir, tree.RFCs, nil)
	out.Vocabulary = []AuditCriterion{}
	for _, x := range tree.RFCs {
		if x.Status == rfc.StatusActive && x.StatusProblem == "" && x.CheckVocabulary("").InScope {
			c := vocabularyCriterion(x, dir)
			rep := &Report{Gate: "audit", Subject: "RFC " + x.Number, Settings: out.Settings, Criteria: []Criterion{c},
				RFC: &RFCInfo{File: x.File, Number: x.Number, Title: x.Title, Status: string(x.Status)}}
			rep.finish()
			out.Vocabulary = append(out.Vocabulary, AuditCriterion{Number: x.Number, File: x.File, RFCStatus: string(x.Status), Criterion: c, Report: rep})
			out.Status = worse(out.Status, c.Status)
		}
	}
	for i := range files {
		x := tree.RFCs[i]
		// The number is the header's; a file whose name, header and title
		// disagree, or (0167 on) whose Status cannot be read, is gated, and
		// BLOCKED by the criterion saying so.
		num, _ := strconv.Atoi(x.Number)
		undecided := x.NumberProblem != "" || num >= AuditFirstRFC && x.StatusProblem != ""
		if !undecided && (num < AuditFirstRFC || x.Status != rfc.StatusAccepted) {
			why := fmt.Sprintf("Status %s, not Accepted", orDash(string(x.Status)))
			if num < AuditFirstRFC {
				why = fmt.Sprintf("numbered below %04d: the Accepted predicate does not apply (RFC 0174 §B.1)", AuditFirstRFC)
			}
			out.Skipped++
			out.NotGated = append(out.NotGated, NotGated{File: x.File, Status: string(x.Status), Why: why})
			continue
		}
		rep := r.Accepted(ctx, AcceptedRequest{RFC: x, Tree: tree, gov: gov})
		row := AuditRow{Number: x.Number, File: x.File, Title: x.Title, Status: rep.Status, Witnesses: []string{}, Missing: []string{}, Report: rep}
		wit := map[string]bool{}
		for _, c := range rep.Criteria {
			if c.ID == CritRequirement && c.Status == Pass {
				for _, ev := range c.Evidence {
					if ev.Counted && !wit[ev.Bundle.File] {
						wit[ev.Bundle.File] = true
						row.Witnesses = append(row.Witnesses, ev.Bundle.File)
					}
				}
			}
			if c.Status != Pass {
				what := string(c.ID)
				if c.Requirement != "" {
					what = c.Requirement
				} else if c.Bundle != nil {
					what = string(c.ID) + " " + filepath.Base(c.Bundle.File)
				}
				row.Missing = append(row.Missing, fmt.Sprintf("%s %s", c.Status, what))
			}
		}
		sort.Strings(row.Witnesses)
		out.Rows = append(out.Rows, row)
		out.Status = worse(out.Status, rep.Status)
	}
	out.Declared = r.Declared(ctx)
	out.Status = worse(out.Status, out.Declared.Status)
	out.Repository = repositoryReport(gov, out.Settings)
	out.Status = worse(out.Status, out.Repository.Status)
	out.ExitCode = out.Status.ExitCode()
	return out, nil
}
