package gate

// The RFC-text rules of the Accepted predicate (RFC 0174 §B.1, as the newest
// scripts/check-accepted-predicate.mjs reads it) and the falsifiability
// vocabulary (RFC 0178 §C.1, scripts/check-falsifiability.mjs): what the RFC's
// own text, and the RFCs around it, must say before it may be Accepted.
const (
	// CritFalsifiabilitySection: rules 4a and 4b, a ### Falsifiability section
	// whose every row names a requirement id or declares a verdict.
	CritFalsifiabilitySection = "rfc.falsifiability-section"
	// CritParentChild: the parent of a program flips last.
	CritParentChild = "rfc.parent-child"
	// CritFalsifiability: RFC 0178 §C.1's closed verdict vocabulary.
	CritFalsifiability = "rfc.falsifiability"
)

func init() {
	declare(func() {
		gates := []string{"accepted", "audit", "flips"}
		register(
			Rule{ID: CritAcceptance, Title: "acceptance criteria met: boxes ticked or labelled reason:/deferred:, table rows name evidence",
				Source: "RFC 0174 §B.1 rule 1; scripts/check-accepted-predicate.mjs (newest: \"Phase 4\" is no longer an excuse)", Gates: gates, Anchor: "rules-and-their-sources"},
			Rule{ID: CritUpdated, Title: "Updated declares `Evidence tier: tier-N` or `Evidence tier: corpus gate`",
				Source: "RFC 0174 §B.1 rule 3; scripts/check-accepted-predicate.mjs (newest: a declaration, not a word in prose)", Gates: gates, Anchor: "rules-and-their-sources"},
			Rule{ID: CritRegister, Title: "no `open` row in the RFC's gap register",
				Source: "RFC 0174 §B.1 rule 2, RFC 0166; scripts/check-accepted-predicate.mjs (certcut stricter: `open` however the register spells it, as registers-lib.mjs reads tokens)", Gates: gates, Anchor: "rules-and-their-sources"},
			Rule{ID: CritFalsifiabilitySection, Title: "a `### Falsifiability` section whose every row names a requirement id or declares a verdict",
				Source: "RFC 0174 §B.1 rule 4; scripts/check-accepted-predicate.mjs (newest, 4a/4b)", Gates: gates, Anchor: "rules-and-their-sources"},
			Rule{ID: CritParentChild, Title: "a program's parent flips last: no Active child under an Accepted parent, no Accepted child under a parent neither Active nor Accepted",
				Source: "RFC 0174 §B.1, RFC 0167; scripts/check-accepted-predicate.mjs (newest: the parent flips LAST)", Gates: gates, Anchor: "rules-and-their-sources"},
			Rule{ID: CritFalsifiability, Title: "Falsifiability rows have 4 cells and a verdict in RFC 0178 §C.1's vocabulary; named test files exist",
				Source: "RFC 0178 §C.1; scripts/check-falsifiability.mjs (certcut: a repository without conformance/src is said so, not failed)", Gates: gates, Anchor: "rules-and-their-sources"},
		)
	})
}
