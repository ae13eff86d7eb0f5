package gate

import (
	"slices"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/detach"
	"github.com/certcut/certcut/profiles"
)

// Facts is what an Entry keeps of a judged bundle: its typed members, with
// strings of their own, the rows the Loader kept, and the discovery document.
// It is not a bundle — no parse tree, no Detail view, and Rows may be a subset
// of results.requirements — so it can be neither verified nor encoded again;
// Loader.Reload reads the whole bundle for the rare check that needs it.
type Facts struct {
	BundleVersion   string
	GeneratedAt     string
	Suite           bundle.Suite
	Host            bundle.Host
	Discovery       bundle.Discovery
	ClaimedProfiles []bundle.ClaimedProfile
	// Totals are results.totals as the bundle states them (over every row).
	Totals bundle.Totals
	// Rows are the rows of results.requirements the Loader kept (Loader.KeepRow:
	// the rows the rules being run read, and the egress-guard row), each
	// without its Raw value; every row when KeepRow is nil.
	Rows              []bundle.Row
	WitnessSha256     string
	AssertionCount    int64
	Durability        *bundle.Durability
	Signature         *bundle.Signature
	VerifierSignature *bundle.Signature
}

// factsOf copies what an Entry keeps of b: its typed members (strings detached
// from the input), the rows keep keeps (nil keeps every row; the egress-guard
// row is always kept) without their Raw values. The discovery document is left
// to the caller, which may share one copy among bundles.
func factsOf(b *bundle.Bundle, keep func(bundle.Row) bool) *Facts {
	f := &Facts{BundleVersion: b.BundleVersion, GeneratedAt: b.GeneratedAt, Suite: b.Suite, Host: b.Host,
		Discovery: b.Discovery, ClaimedProfiles: b.ClaimedProfiles, Totals: b.Results.Totals,
		WitnessSha256: b.WitnessSha256, AssertionCount: b.AssertionCount, Durability: b.Durability,
		Signature: b.Signature, VerifierSignature: b.VerifierSignature}
	var rows []bundle.Row
	for _, r := range b.Results.Requirements {
		if keep == nil || keep(r) || r.ID == profiles.EgressGuardRow {
			r.Raw = bundle.Value{}
			// The decoder takes these from slabs shared by all the rows.
			if r.Assertions != nil {
				n := *r.Assertions
				r.Assertions = &n
			}
			if r.Detail != nil {
				d := *r.Detail
				r.Detail = &d
			}
			rows = append(rows, r)
		}
	}
	f.Rows = slices.Clone(rows) // exactly as long as the rows kept
	f.Discovery.Document = nil
	detach.Strings(f)
	return f
}

// Attestation is the bundle's signed payload (bundle.Bundle.Attestation), made
// from the typed members it covers.
func (f *Facts) Attestation() ([]byte, error) { return f.members().Attestation() }

// members is a bundle of the typed members the facts keep and no rows, for a
// function that reads only those (the signed payload, the maturity bound).
func (f *Facts) members() *bundle.Bundle {
	return &bundle.Bundle{BundleVersion: f.BundleVersion, GeneratedAt: f.GeneratedAt, Suite: f.Suite, Host: f.Host,
		Discovery: f.Discovery, ClaimedProfiles: f.ClaimedProfiles, WitnessSha256: f.WitnessSha256,
		AssertionCount: f.AssertionCount, Durability: f.Durability, Signature: f.Signature, VerifierSignature: f.VerifierSignature}
}
