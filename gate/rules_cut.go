package gate

// The host half of the v2 cut gates (spec §8.2): Witness, Coexistence and Front
// door, one rule per check.
const (
	CritCutWitnessIDs      = "cut.witness.ids"
	CritCutWitnessReasons  = "cut.witness.reasons"
	CritCutCoexistence     = "cut.coexistence"
	CritCutReadable        = "cut.front-door.readable"
	CritCutApplicable      = "cut.front-door.applicable"
	CritCutExecutedFail    = "cut.front-door.executed-fail"
	CritCutInteropMatrix   = "cut.front-door.interop-matrix"
	CritCutAttributable    = "cut.front-door.attributable"
	CritCutFrontDoorVerify = "cut.front-door.verified"
)

func init() {
	declare(func() {
		cut := []string{"cut"}
		register(
			Rule{ID: CritCutWitnessIDs, Group: "Witness", Title: "every v2 requirement id has a row",
				Source: "spec §8.2 Witness", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutWitnessReasons, Group: "Witness", Title: "every non-pass row states a reason",
				Source: "spec §8.2 Witness", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutCoexistence, Group: "Coexistence", Title: "a Coexistence scenario's legs are all executed-pass",
				Source: "spec §8.2 Coexistence, RFC 0167 §F", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutReadable, Group: "Front door", Title: "the bundle can be read",
				Source: "spec §8.2 Front door", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutApplicable, Group: "Front door", Title: "every scenario file applicable at the bundle's major has a row",
				Source: "spec §8.2 Front door", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutExecutedFail, Group: "Front door", Title: "executedFail is 0",
				Source: "spec §8.2 Front door", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutInteropMatrix, Group: "Front door", Title: "INTEROP-MATRIX.md lists the host",
				Source: "spec §8.2 Front door; certcut: the name comes from the signed discovery document, a whole cell", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutAttributable, Group: "Front door", Title: "signature attributable to the host",
				Source: "spec §8.2 Front door", Gates: cut, Anchor: "gate-cut-bundle"},
			Rule{ID: CritCutFrontDoorVerify, Group: "Front door", Title: "verify: zero rejections, VERIFIED",
				Source: "certcut: the applicable set follows the unsigned suite.targetMajor, so only a VERIFIED bundle's claims were checked at that major", Gates: cut, Anchor: "gate-cut-bundle"},
		)
	})
}
