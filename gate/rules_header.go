package gate

// The header rules: an RFC whose number or Status cannot be read is BLOCKED,
// never guessed (docs/gate.md "Criteria"). They report only when they fail.
func init() {
	declare(func() {
		gates := []string{"accepted", "audit", "flips"}
		register(
			Rule{ID: CritRFCNumber, Title: "the RFC's number is the one its header states, and its file name and title agree",
				Source: "RFC 0174 §B.1 (the predicate applies from RFC 0167); certcut: a number that cannot be decided BLOCKs", Gates: gates, Anchor: "criteria"},
			Rule{ID: CritRFCStatus, Title: "the RFC has one Status row whose value is a known state",
				Source: "scripts/check-accepted-predicate.mjs (the Status pattern); certcut: an unreadable Status BLOCKs", Gates: gates, Anchor: "criteria"},
		)
	})
}
