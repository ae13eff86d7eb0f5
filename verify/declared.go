package verify

import (
	"github.com/certcut/certcut/declaration"
)

// MaturityPolicy is what the maturity bound (RFC 0197 §C.7) reads beside a
// bundle: the spec's declaration, which root members of a discovery document
// are family records, and the first suite the bound binds.
type MaturityPolicy struct {
	Declaration *declaration.Declaration
	Keys        declaration.FamilyKeys
	// FirstSuite is the bound's first suite; "" is declaration.FirstBoundSuite.
	FirstSuite string
}

// Check applies the bound to a bundle's discovery document and suite version.
func (p *MaturityPolicy) Check(c *checker) declaration.Maturity {
	return declaration.CheckMaturity(c.b, p.Keys, p.Declaration, p.FirstSuite)
}

// declaredRules: maturity-overstated (Options.Maturity) and the suite advisory
// note (Options.Advisories). Both judge suite.version and the discovery
// document, which the host signature binds (suite.version directly, the
// document through discovery.sha256): a rejection is made only when that
// signature verified; otherwise the finding is a note, and the verdict is at
// best COHERENT anyway.
func (c *checker) declaredRules() {
	if p := c.opts.Maturity; p != nil {
		m := p.Check(c)
		c.v.Maturity = &m
		line := "maturity bound (RFC 0197 §C.7; family records from " + p.Keys.From + "): " + m.Line()
		if len(m.Overstated) > 0 {
			line += "; overstated: " + m.OverstatedList()
		}
		switch {
		case m.Outcome() == declaration.MaturityFails && c.signatureChecked:
			c.reject(KindMaturityOverstated, "", "%d family record(s) of the discovery document say status stable while the declaration does not (%s), on suite %s ≥ %s, where RFC 0197 §C.7 is a MUST", len(m.Overstated), m.OverstatedList(), m.Suite, m.FirstSuite)
		case m.Outcome() == declaration.MaturityFails:
			c.note("%s; not a maturity-overstated rejection: suite.version and the document are bound only by the host signature, which was not verified here", line)
		case m.SuiteUnreadable && m.Measured:
			c.note("%s; suite.version %q has no major.minor, so whether the bound applies cannot be decided", line, m.Suite)
		default:
			c.note("%s", line)
		}
	}
	if a := c.opts.Advisories; a != nil {
		if x, ok := a.Match(c.b.Suite.Version); ok {
			adv := x
			c.v.SuiteAdvisory = &adv
			c.note("suite advisory (%s): %s; a note, not a rejection (bundle gate does not take such a bundle as a witness)", a.File, x.Note(c.b.Suite.Version))
		}
	}
}

// FirstBoundSuite is the maturity bound's default first suite
// (declaration.FirstBoundSuite).
const FirstBoundSuite = declaration.FirstBoundSuite

// ValidFirstSuite reports whether a first suite has a major.minor.
func ValidFirstSuite(s string) bool {
	_, _, ok := declaration.MajorMinor(s)
	return ok
}

// LoadMaturityPolicy reads a declaration and, when capsFile is not "", the
// capabilities schema naming the family records. On error, file says which of
// the two could not be read.
func LoadMaturityPolicy(declFile, capsFile, firstSuite string) (pol *MaturityPolicy, file string, err error) {
	decl, err := declaration.Load(declFile)
	if err != nil {
		return nil, declFile, err
	}
	var caps *declaration.Capabilities
	if capsFile != "" {
		if caps, err = declaration.LoadCapabilities(capsFile); err != nil {
			return nil, capsFile, err
		}
	}
	return &MaturityPolicy{Declaration: decl, Keys: declaration.KeysOf(caps, decl), FirstSuite: firstSuite}, "", nil
}

// LoadAdvisories reads a suite advisory list; "" reads the built-in one
// (declaration.LoadAdvisories).
func LoadAdvisories(path string) (*declaration.Advisories, error) {
	return declaration.LoadAdvisories(path)
}
