package gate

// The declared rules: bundles and extension READMEs judged against what the
// spec repository declares about itself (spec/v2/declaration.json, the
// capabilities schema, spec/v2/ext/*/README.md) — docs/gate.md "What the spec
// declares".
const (
	CritMaturity       = "bundle.maturity"
	CritExtStatus      = "spec.ext-status"
	CritExtGraduable   = "spec.ext-status.graduable"
	CritSuiteAdvisory  = "bundle.suite-advisory"
	CritSuiteIdentity  = "bundle.suite-identity"
	CritCoherenceIDs   = "bundle.coherence-ids"
	CritAnchorsIDs     = "spec.anchors.ids"
	CritAnchorsTables  = "spec.anchors.rfc-tables"
	CritAnchorsFloor   = "spec.anchors.floor"
	CritAnchorsSources = "spec.anchors.sources"
)

func init() {
	declare(func() {
		register(
			Rule{ID: CritMaturity, Title: "advertises no family more mature than the declaration",
				Source: "RFC 0197 §C.7; scripts/check-bundle-maturity.mjs; certcut: a bundle is exempt below the bound only when its suite.version is signed (the host signature verified), and an unreadable suite.version is BLOCKED, not reported",
				Gates:  []string{"accepted", "audit", "flips"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritExtStatus, Title: "extension README Status coherent with the declaration and the evidence",
				Source: "RFC 0220 §D/§E; scripts/check-ext-status-coherence.mjs; certcut: a tier-2 witness counts only when its origin is bound (keyring pin, live fetch or reviewed history, as bundle.tier) and its signature verified, never from the unsigned discovery.url alone",
				Gates:  []string{"audit"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritExtGraduable, Title: "no Draft extension family with qualifying evidence (GRADUABLE) or only tier-1 evidence (NOT YET)",
				Source: "RFC 0220 §E warnings; scripts/check-ext-status-coherence.mjs", Severity: SeverityWarning,
				Gates: []string{"audit"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritSuiteAdvisory, Title: "suite release not under an advisory",
				Source: "certcut: the suite advisory list (declaration/suite-advisories.json or --suite-advisories), read strictly; no upstream script", Gates: []string{"accepted", "audit", "flips"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritSuiteIdentity, Title: "suite.version is a published release",
				Source: "RFC 0224 §B.3 (Draft); certcut: a tag v<version> or openwop-conformance/v<version> reachable from the reviewed base (--history-base), else BLOCKED; a witness check only with --require-suite-tag", Gates: []string{"audit", "accepted", "flips"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritCoherenceIDs, Title: "no row id minted from a corpus-coherence file",
				Source: "schemas/v2/certification-bundle.schema.json row id lookahead; scripts/check-req-only.mjs keeps it equal to conformance/src/coherence/; certcut: the list is read from the repository (that directory, else its schema), the built-in one only as the fallback, and the reason says which", Gates: []string{"audit"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritAnchorsIDs, Title: "harness-trust-anchor ids exact, anchors in the schema's enum",
				Source: "RFC 0216 §A.3 (a)(b); scripts/check-harness-trust-anchors.mjs", Gates: []string{"audit"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritAnchorsTables, Title: "harness-trust-anchor list equals the Active and Accepted RFCs' anchor tables",
				Source: "RFC 0216 §A.3 (c); scripts/check-harness-trust-anchors.mjs", Gates: []string{"audit"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritAnchorsFloor, Title: "no harness-trust-anchor scenario is a floor scenario",
				Source: "RFC 0216 §A.3 (e); scripts/check-harness-trust-anchors.mjs", Gates: []string{"audit"}, Anchor: "what-the-spec-declares"},
			Rule{ID: CritAnchorsSources, Title: "each anchor scenario exists, names its id and gates on its anchor",
				Source: "RFC 0216 §A.3 (d); scripts/check-harness-trust-anchors.mjs; certcut: BLOCKED with the reason when the scenario sources or requirements.json are absent (upstream crashes)", Gates: []string{"audit"}, Anchor: "what-the-spec-declares"},
		)
	})
}
