package gate

// The requirement rules of the Accepted predicate (RFC 0174 §B.1 rule 4, spec
// §8.1): each required id witnessed by committed evidence.
func init() {
	declare(func() {
		register(
			Rule{ID: CritRequirement, Title: "witnessed executed-pass in a qualifying bundle",
				Source: "RFC 0174 §B.1 rule 4, spec §8.1; scripts/check-accepted-predicate.mjs (stricter: only a qualifying bundle — verified under a trusted key, bound origin — witnesses)",
				Gates:  []string{"accepted", "audit", "flips"}, Anchor: "criteria"},
			Rule{ID: CritCorpus, Title: "(corpus) id executed-pass in the corpus ledger",
				Source: "RFC 0174 §B.1 rule 4; scripts/check-accepted-predicate.mjs", Gates: []string{"accepted", "audit", "flips"}, Anchor: "criteria"},
		)
	})
}
