package declaration

import (
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"strconv"
	"strings"

	"github.com/certcut/certcut/bundle"
)

// FirstBoundSuite is the first suite release whose bundles the maturity bound
// binds (RFC 0197 §C.7; upstream's OPENWOP_0197_FIRST_SUITE default). It is a
// historical fact: the suite minor that first shipped the rule.
const FirstBoundSuite = "2.36.0"

// Maturity outcomes, as upstream's report line words them.
const (
	MaturityOK       = "ok"
	MaturityFails    = "FAILS"
	MaturityReported = "REPORTED"
	// MaturityNothing: the bundle carries no discovery document.
	MaturityNothing = "nothing to measure"
)

// Overstated is one family record whose status is stable while the declaration
// does not call the family stable.
type Overstated struct {
	Key string `json:"key"`
	// Technical is the declaration's maturity.technical for the key, or
	// "not-declared".
	Technical string `json:"technical"`
}

func (o Overstated) String() string { return o.Key + "(corpus:" + o.Technical + ")" }

// Maturity is the maturity bound (RFC 0197 §C.7) applied to one bundle.
type Maturity struct {
	// Suite is suite.version as the bundle gives it ("" when absent).
	Suite string `json:"suite"`
	// FirstSuite is the bound's first suite.
	FirstSuite string `json:"firstSuite"`
	// Bound says the suite's major.minor is the first suite's or later.
	Bound bool `json:"bound"`
	// SuiteUnreadable: suite.version is absent or has no major.minor, so whether
	// the bound applies cannot be decided (upstream reports such a bundle).
	SuiteUnreadable bool `json:"suiteUnreadable,omitempty"`
	// Measured says the bundle carries a discovery document.
	Measured   bool         `json:"measured"`
	Records    int          `json:"records"`
	Overstated []Overstated `json:"overstated"`
}

// Outcome is ok, FAILS, REPORTED or nothing to measure.
func (m Maturity) Outcome() string {
	switch {
	case !m.Measured:
		return MaturityNothing
	case len(m.Overstated) == 0:
		return MaturityOK
	case m.Bound:
		return MaturityFails
	}
	return MaturityReported
}

// Line is the report line upstream prints for a bundle, without the file name:
// "suite X, N family record(s), M overstated — ok|FAILS|REPORTED".
func (m Maturity) Line() string {
	if !m.Measured {
		return "no discovery.document — nothing to measure"
	}
	suite := m.Suite
	if suite == "" {
		suite = "unknown"
	}
	s := fmt.Sprintf("suite %s, %d family record(s), %d overstated — %s", suite, m.Records, len(m.Overstated), m.Outcome())
	switch m.Outcome() {
	case MaturityFails:
		s += fmt.Sprintf(" (cut on suite %s ≥ %s, where RFC 0197 §C.7 is a MUST)", suite, m.FirstSuite)
	case MaturityReported:
		s += fmt.Sprintf(" (cut on suite %s < %s: a measurement at its own suite, never failed)", suite, m.FirstSuite)
	}
	return s
}

// OverstatedList joins the overstated records as upstream lists them.
func (m Maturity) OverstatedList() string {
	parts := make([]string, len(m.Overstated))
	for i, o := range m.Overstated {
		parts[i] = o.String()
	}
	return strings.Join(parts, ", ")
}

var minorRE = lazyre.New(`^(\d+)\.(\d+)`)

// MajorMinor reads the major and minor of a version as upstream does (its
// leading digits.digits; the patch and anything after are ignored).
func MajorMinor(v string) (int, int, bool) {
	m := minorRE().FindStringSubmatch(v)
	if m == nil {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(m[1])
	b, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return a, b, true
}

// BoundAt reports whether a bundle of suite version suite is bound by a rule
// first shipped in suite first (major.minor comparison), and whether suite could
// be read at all.
func BoundAt(suite, first string) (bound, readable bool) {
	a, b, ok := MajorMinor(suite)
	x, y, ok2 := MajorMinor(first)
	if !ok || !ok2 {
		return false, false
	}
	if a != x {
		return a > x, true
	}
	return b >= y, true
}

// FamilyKeys says which discovery root members are family records: the
// capabilities schema's family keys, or, without a schema, the declaration's
// family keys (certcut's fallback; upstream has none).
type FamilyKeys struct {
	keys map[string]bool
	// From says where the keys came from: "capabilities schema FILE" or
	// "declaration FILE (no capabilities schema)".
	From string
}

// KeysOf returns the family keys of caps, or of decl when caps is nil.
func KeysOf(caps *Capabilities, decl *Declaration) FamilyKeys {
	fk := FamilyKeys{keys: map[string]bool{}}
	if caps != nil {
		for _, k := range caps.FamilyKeys {
			fk.keys[k] = true
		}
		fk.From = "capabilities schema " + caps.File
		return fk
	}
	for _, f := range decl.Families {
		fk.keys[f.Key] = true
	}
	fk.From = "declaration " + decl.File + " (no capabilities schema: its family keys)"
	return fk
}

// Len is the number of family keys.
func (fk FamilyKeys) Len() int { return len(fk.keys) }

// CheckMaturity applies the maturity bound to a bundle's discovery document and
// suite version. first is the bound's first suite ("" for FirstBoundSuite). A
// record is a root member of the document whose key is a family key and whose
// value is an object; it is overstated when its status is "stable" and the
// declaration's maturity.technical for the key is not (a key the declaration
// lacks, or declares without maturity, counts as overstated, "not-declared").
func CheckMaturity(b *bundle.Bundle, fk FamilyKeys, decl *Declaration, first string) Maturity {
	if first == "" {
		first = FirstBoundSuite
	}
	m := Maturity{Suite: b.Suite.Version, FirstSuite: first, Overstated: []Overstated{}}
	bound, readable := BoundAt(b.Suite.Version, first)
	m.Bound, m.SuiteUnreadable = bound, !readable
	doc := b.Discovery.Document
	if doc == nil || doc.Kind() != bundle.Object {
		return m
	}
	m.Measured = true
	for _, mem := range doc.Members() {
		if !fk.keys[mem.Name] || mem.Value.Kind() != bundle.Object {
			continue
		}
		m.Records++
		st, _ := mem.Value.Get("status")
		if s, _ := st.Str(); s != "stable" {
			continue
		}
		f, ok := decl.Family(mem.Name)
		tech := f.Technical
		if !ok || !f.HasMaturity || tech == "" {
			tech = "not-declared"
		}
		if tech != TechnicalStable {
			m.Overstated = append(m.Overstated, Overstated{Key: mem.Name, Technical: tech})
		}
	}
	return m
}
