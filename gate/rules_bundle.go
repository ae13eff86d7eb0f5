package gate

// The bundle rules: when a committed bundle qualifies as a witness (spec §8.1,
// RFC 0174 §B.1, with certcut's trust rules: docs/gate.md "When a bundle
// qualifies").
func init() {
	declare(func() {
		gates := []string{"accepted", "audit", "flips"}
		register(
			Rule{ID: CritVerified, Title: "verifies with zero rejections under a trusted key",
				Source: "spec §7 (every verification rule); certcut: a trusted key, never the bundle's own document", Gates: gates, Anchor: "when-a-bundle-qualifies"},
			Rule{ID: CritKey, Title: "signing key trusted, not revoked, in service when it signed",
				Source: "spec §7.4 key dates; certcut: judged at a trusted RFC 3161 time when there is one", Gates: gates, Anchor: "when-a-bundle-qualifies"},
			Rule{ID: CritCertified, Title: "all claimed profiles certified",
				Source: "RFC 0174 §B.1 rule 4; scripts/check-accepted-predicate.mjs", Gates: gates, Anchor: "when-a-bundle-qualifies"},
			Rule{ID: CritRelaxations, Title: "relaxations empty",
				Source: "RFC 0174 §B.1; spec §8.1", Gates: gates, Anchor: "when-a-bundle-qualifies"},
			Rule{ID: CritGuard, Title: "webhook egress guard closed",
				Source: "RFC 0171; spec §8.1", Gates: gates, Anchor: "when-a-bundle-qualifies"},
			Rule{ID: CritTier, Title: "host tier N or higher",
				Source: "spec §8.1 host tiers; certcut: the origin must be bound (keyring pin, live fetch or reviewed history), discovery.url is not signed", Gates: gates, Anchor: "when-a-bundle-qualifies"},
			Rule{ID: CritCompanion, Title: "colocated companion pairs with a qualifying served-host bundle",
				Source: "RFC 0216; scripts/lib/companion-pairing.mjs", Gates: gates, Anchor: "when-a-bundle-qualifies"},
			Rule{ID: CritLive, Title: "live /.well-known/openwop matches discovery.sha256",
				Source: "spec §8.1 Deployed, not merged", Gates: gates, Anchor: "when-a-bundle-qualifies"},
		)
	})
}
