// Package render turns verdicts into what people read: the summary `bundle show`
// prints for a reviewer, and the self-contained HTML page `bundle report` writes.
//
// It judges nothing. A Review is built from a bundle and the verify.Verdict that
// package verify returned for it; every verdict, certified list and rejection
// shown comes from that Verdict, so a page can never disagree with `bundle verify`.
package render

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/tiers"
	"github.com/certcut/certcut/verify"
)

// Review is one bundle as a reviewer reads it.
type Review struct {
	File    string          `json:"file"`
	Verdict *verify.Verdict `json:"verdict"`
	// Tier places the discovery URL's origin in host-tiers.json; nil when no tiers
	// file was given. TierError says why the URL has no origin.
	Tier      *tiers.Match `json:"tier,omitempty"`
	TierError string       `json:"tierError,omitempty"`
	// SuiteName is suite.name; the rest of the header is in Verdict.Summary.
	SuiteName string `json:"suiteName"`
	// Profiles are the claimed profiles with the verifier's decision on each.
	Profiles []Profile `json:"profiles"`
	// Relaxations are the declared ones, with their reasons.
	Relaxations []bundle.Relaxation `json:"relaxations"`
	// Rung is the durability claim and what the signed rows support.
	Rung Rung `json:"rung"`
	// NonPass groups the rows that did not pass by result, in the order
	// executed-fail, blocked, skipped, inapplicable; empty groups are left out.
	NonPass []Group `json:"nonPass"`
	// Rows are all rows in file order (for the HTML report's table).
	Rows []Row `json:"-"`
	// Selected is the filter Select applied to NonPass, when one was.
	Selected *Selection `json:"selected,omitempty"`
	// Unsigned names the bundle members this review shows whose values nothing
	// binds (bundle.IsUnsigned over ShownMembers): show marks them "(unsigned)",
	// the report greys and tags them.
	Unsigned []string `json:"unsigned"`
}

// ShownMembers are the bundle members a review shows, as bundle.Bindings paths:
// the header facts, the profiles, the relaxations, the rung and the rows.
var ShownMembers = []string{
	"host.name", "host.version", "host.vendor", "host.build", "suite.name", "suite.version",
	"suite.targetMajor", "generatedAt", "discovery.url", "discovery.sha256", "signature.keyId",
	"witnessSha256", "results.totals", "assertionCount", "claimedProfiles[].id",
	"claimedProfiles[].evidenceTier", "claimedProfiles[].witnessCount",
	"claimedProfiles[].certified", "host.relaxations", "durability.rung", "results.requirements",
}

// Profile is one claimed profile and the verifier's decision on it.
type Profile struct {
	ID           string `json:"id"`
	EvidenceTier string `json:"evidenceTier"`
	WitnessCount int    `json:"witnessCount"`
	// Claimed is the bundle's own certified flag; Certified is the re-derived one.
	Claimed   bool `json:"claimedCertified"`
	Certified bool `json:"certified"`
	// WithdrawnBy names the rejection kinds that withdrew a claimed certification
	// ("bundle-wide" when a rejection without a profile emptied the list).
	WithdrawnBy []string `json:"withdrawnBy,omitempty"`
}

// Rung is the durability rung claim (outside the signature) and the rung the rows
// support (bundle.DeriveRung, the function verify checks the claim with).
type Rung struct {
	Claimed   string `json:"claimed,omitempty"`
	Derivable string `json:"derivable,omitempty"`
	// Rejected reports that verify refused the claim (rung-not-derivable).
	Rejected bool `json:"rejected"`
}

// Group is the rows of one result.
type Group struct {
	Result string `json:"result"`
	Rows   []Row  `json:"rows"`
}

// Row is one ledger row as shown. Reason is the row's own detail, which the
// signature covers (through witnessSha256), or "". The reason detail.nonPass
// repeats for a row is never shown: that list is outside the signature and
// nothing checks it against the rows, so it could say anything.
type Row struct {
	ID         string `json:"id"`
	Scenario   string `json:"scenario"`
	Result     string `json:"result"`
	Assertions *int64 `json:"assertions,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// NonPassOrder is the order non-pass groups are shown in: what failed first.
var NonPassOrder = []string{bundle.ExecutedFail, bundle.Blocked, bundle.Skipped, bundle.Inapplicable}

// NewReview builds the review of a bundle from its verdict. tf may be nil.
func NewReview(file string, b *bundle.Bundle, v *verify.Verdict, tf *tiers.File) *Review {
	r := &Review{
		File: file, Verdict: v, SuiteName: b.Suite.Name,
		Profiles: []Profile{}, Relaxations: []bundle.Relaxation{}, NonPass: []Group{}, Unsigned: []string{},
	}
	for _, m := range ShownMembers {
		if bundle.IsUnsigned(m) {
			r.Unsigned = append(r.Unsigned, m)
		}
	}
	if tf != nil {
		if m, err := tf.Lookup(b.Discovery.URL); err != nil {
			r.TierError = err.Error()
		} else {
			r.Tier = &m
		}
	}
	bundleWide := slices.ContainsFunc(v.Rejections, func(rj verify.Rejection) bool { return rj.Profile == "" })
	for _, p := range b.ClaimedProfiles {
		pr := Profile{ID: p.ID, EvidenceTier: p.EvidenceTier, WitnessCount: p.WitnessCount, Claimed: p.Certified,
			Certified: slices.Contains(v.CertifiedProfiles, p.ID)}
		if pr.Claimed && !pr.Certified {
			for _, rj := range v.Rejections {
				if rj.Profile == p.ID && !slices.Contains(pr.WithdrawnBy, string(rj.Kind)) {
					pr.WithdrawnBy = append(pr.WithdrawnBy, string(rj.Kind))
				}
			}
			if len(pr.WithdrawnBy) == 0 && bundleWide {
				pr.WithdrawnBy = []string{"bundle-wide"}
			}
		}
		r.Profiles = append(r.Profiles, pr)
	}
	r.Relaxations = append(r.Relaxations, b.Host.Relaxations...)
	if b.Durability != nil {
		r.Rung.Claimed = b.Durability.Rung
	}
	r.Rung.Derivable, _ = bundle.DeriveRung(b.Results.Requirements)
	r.Rung.Rejected = v.HasRejection(verify.KindRungNotDerivable)

	groups := map[string][]Row{}
	for _, row := range b.Results.Requirements {
		rr := Row{ID: row.ID, Scenario: row.Scenario, Result: row.Result, Assertions: row.Assertions, Reason: row.DetailText()}
		r.Rows = append(r.Rows, rr)
		if row.Result != bundle.ExecutedPass {
			groups[row.Result] = append(groups[row.Result], rr)
		}
	}
	for _, result := range NonPassOrder {
		if rows := groups[result]; len(rows) > 0 {
			r.NonPass = append(r.NonPass, Group{Result: result, Rows: rows})
		}
	}
	// Rows whose result is not one of the five (a schema rejection) still show.
	var unknown []string
	for result := range groups {
		if !slices.Contains(NonPassOrder, result) {
			unknown = append(unknown, result)
		}
	}
	slices.Sort(unknown)
	for _, result := range unknown {
		r.NonPass = append(r.NonPass, Group{Result: result, Rows: groups[result]})
	}
	return r
}

// Selection picks the rows a review lists: those whose result is one of
// Results (default: every result but executed-pass) and whose id matches one of
// IDs, path.Match patterns (default: every id).
type Selection struct {
	Results []string `json:"results,omitempty"`
	IDs     []string `json:"ids,omitempty"`
}

// SelectionError is a selection that cannot match: an unknown result or a
// malformed pattern.
type SelectionError struct{ Msg string }

func (e *SelectionError) Error() string { return e.Msg }

// Select lists, in NonPass, the rows the selection picks, grouped by result
// (executed-pass first when asked for, then NonPassOrder).
func (r *Review) Select(sel Selection) error {
	for _, res := range sel.Results {
		if !slices.Contains(bundle.Results, res) {
			return &SelectionError{Msg: fmt.Sprintf("result %q is not one of %s", res, strings.Join(bundle.Results, ", "))}
		}
	}
	for _, glob := range sel.IDs {
		if _, err := path.Match(glob, ""); err != nil {
			return &SelectionError{Msg: fmt.Sprintf("id pattern %q: %v", glob, err)}
		}
	}
	results := sel.Results
	if len(results) == 0 {
		results = NonPassOrder
	}
	groups := map[string][]Row{}
	for _, row := range r.Rows {
		if !slices.Contains(results, row.Result) {
			continue
		}
		if len(sel.IDs) > 0 && !slices.ContainsFunc(sel.IDs, func(g string) bool { ok, _ := path.Match(g, row.ID); return ok }) {
			continue
		}
		groups[row.Result] = append(groups[row.Result], row)
	}
	r.NonPass = []Group{}
	for _, result := range append([]string{bundle.ExecutedPass}, NonPassOrder...) {
		if rows := groups[result]; len(rows) > 0 {
			r.NonPass = append(r.NonPass, Group{Result: result, Rows: rows})
		}
	}
	r.Selected = &sel
	return nil
}
