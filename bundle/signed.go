package bundle

// Binding says how a member of a bundle is bound: what, if anything, makes it
// more than the minter's word. Verdicts, show, report and census CSV mark every
// member that is Unsigned, so a reviewer can tell signed facts from claims at a
// glance (docs/security.md).
type Binding string

// Bindings.
const (
	// Signed: inside the attestation payload the host signature covers, directly
	// (host.build, suite.version, discovery.sha256, witnessSha256) or through a
	// digest the verifier recomputes (rows, relaxations and deployment through
	// witnessSha256; discovery.document through discovery.sha256).
	Signed Binding = "signed"
	// Derived: outside the signature, but re-derived from signed data by the
	// verifier, and a bundle whose stored value disagrees is rejected (totals,
	// assertionCount, the certified list, the durability rung).
	Derived Binding = "derived"
	// Unsigned: outside the signature and not re-derived; the minter's claim, which
	// anyone who can edit the file can change without breaking any check.
	Unsigned Binding = "unsigned"
)

// MemberBinding is one member path and how it is bound.
type MemberBinding struct {
	Member  string  `json:"member"`
	Binding Binding `json:"binding"`
}

// Bindings lists, for every member a reader is shown, how it is bound. Paths use
// "[]" for every element of an array.
var Bindings = []MemberBinding{
	{"witnessSha256", Signed},
	{"results.requirements", Signed},
	{"host.relaxations", Signed},
	{"host.deployment", Signed},
	{"host.build", Signed},
	{"suite.version", Signed},
	{"discovery.sha256", Signed},
	{"discovery.document", Signed},
	{"results.totals", Derived},
	{"assertionCount", Derived},
	{"claimedProfiles[].certified", Derived},
	{"durability.rung", Derived},
	{"bundleVersion", Derived},
	{"suite.name", Derived},
	{"signature.over", Derived},

	{"generatedAt", Unsigned},
	{"host.name", Unsigned},
	{"host.version", Unsigned},
	{"host.vendor", Unsigned},
	{"host.signingKeyId", Unsigned},
	{"discovery.url", Unsigned},
	// Copies of discovery document members: verify re-derives them when the
	// document is embedded and hashes to discovery.sha256 (and then drops them from
	// Verdict.Unsigned); the table lists them as the file alone binds them.
	{"discovery.protocolVersions", Unsigned},
	{"discovery.preferredVersion", Unsigned},
	{"suite.targetMajor", Unsigned},
	{"suite.specArtifactsVersion", Unsigned},
	{"suite.stampSha256", Unsigned},
	{"claimedProfiles[].id", Unsigned},
	{"claimedProfiles[].evidenceTier", Unsigned},
	{"claimedProfiles[].witnessCount", Unsigned},
	{"detail.nonPass", Unsigned},
	{"signature.keyId", Unsigned},
}

// BindingOf returns how the member at path is bound; a path not listed is Unsigned.
func BindingOf(path string) Binding {
	for _, b := range Bindings {
		if b.Member == path {
			return b.Binding
		}
	}
	return Unsigned
}

// IsUnsigned reports whether nothing binds the member at path.
func IsUnsigned(path string) bool { return BindingOf(path) == Unsigned }

// UnsignedOf returns, in order, the paths that nothing binds.
func UnsignedOf(paths ...string) []string {
	var un []string
	for _, p := range paths {
		if IsUnsigned(p) {
			un = append(un, p)
		}
	}
	return un
}
