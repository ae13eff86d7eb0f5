package gate

// The RFC-text rules of the Accepted predicate (RFC 0174 §B.1): what the RFC's
// own text must say before it may be Accepted.
func init() {
	register(
		Rule{ID: CritAcceptance, Title: "acceptance criteria ticked, or unticked with reason:/deferred:/Phase 4",
			Source: "RFC 0174 §B.1 rule 1; scripts/check-accepted-predicate.mjs", Gates: []string{"accepted", "audit", "flips"}, Anchor: "criteria"},
		Rule{ID: CritUpdated, Title: "Updated names an evidence tier or `corpus gate`",
			Source: "RFC 0174 §B.1 rule 3; scripts/check-accepted-predicate.mjs", Gates: []string{"accepted", "audit", "flips"}, Anchor: "criteria"},
		Rule{ID: CritRegister, Title: "no `open` row in the RFC's gap register",
			Source: "RFC 0174 §B.1 rule 2, RFC 0166; scripts/check-accepted-predicate.mjs", Gates: []string{"accepted", "audit", "flips"}, Anchor: "criteria"},
	)
}
