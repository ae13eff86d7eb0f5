package rfc

import "strings"

// WitnessClass is the class a Falsifiability row's Verdict cell declares
// (RFC 0178 §C.1's closed vocabulary): what kind of evidence can witness the
// requirement.
type WitnessClass string

// The classes. Witnessable alone, WitnessableUnaided and ClaimsCheck are
// witnessed by an executed-pass row; the others declare a class no
// executed-pass can have (Declared).
const (
	Witnessable        WitnessClass = "witnessable"
	WitnessableUnaided WitnessClass = "witnessable — unaided"
	WitnessableGated   WitnessClass = "witnessable — gated"
	SeamGated          WitnessClass = "seam-gated"
	ClaimsCheck        WitnessClass = "claims-check"
	NegativeExistence  WitnessClass = "negative-existence"
	Unwitnessable      WitnessClass = "unwitnessable"
	HostPending        WitnessClass = "host-pending"
)

// Declared reports whether the class is one the reference Accepted predicate
// lets a reasoned non-pass row account for (RFC 0174 §B.1 rule 4's second
// branch): gated, seam-gated, negative-existence, unwitnessable, host-pending.
func (c WitnessClass) Declared() bool {
	switch c {
	case WitnessableGated, SeamGated, NegativeExistence, Unwitnessable, HostPending:
		return true
	}
	return false
}

// ParseVerdict reads a Falsifiability Verdict cell. The cell, bold removed,
// starts with its class word — witnessable (optionally " — unaided", " — gated"
// or " — seam-gated"), seam-gated, claims-check, negative-existence (or
// "negative existence"), unwitnessable, host-pending — as a whole word, and
// may go on with a reason. ok is false for anything else. Words elsewhere in
// the cell do not count: "witnessable — not gated" is Witnessable, "ungated" is
// no class. The hyphenated "witnessable-gated" some RFCs write is Witnessable:
// the reference predicate declares only the spaced em-dash form, and reading
// more as declared would let a reasoned skip witness the id.
func ParseVerdict(cell string) (WitnessClass, bool) {
	v := strings.ToLower(strings.TrimSpace(strings.NewReplacer("**", "", "__", "").Replace(cell)))
	word := func(prefix string) (string, bool) {
		rest, ok := strings.CutPrefix(v, prefix)
		if !ok || rest != "" && isWordByte(rest[0]) {
			return "", false
		}
		return rest, true
	}
	if rest, ok := strings.CutPrefix(v, "witnessable-"); ok && rest != "" {
		// witnessable-gated, witnessable-unaided: the reference vocabulary reads
		// these as witnessable followed by free text, and its Accepted predicate
		// declares nothing for them (only "witnessable — gated" is declared).
		return Witnessable, true
	}
	if rest, ok := word("witnessable"); ok {
		sub, dashed := strings.CutPrefix(strings.TrimLeft(rest, " "), "—")
		if !dashed {
			return Witnessable, true
		}
		sub = strings.TrimLeft(sub, " ")
		for _, c := range []struct {
			word  string
			class WitnessClass
		}{{"unaided", WitnessableUnaided}, {"gated", WitnessableGated}, {"seam-gated", SeamGated}} {
			if r, ok := strings.CutPrefix(sub, c.word); ok && (r == "" || !isWordByte(r[0])) {
				return c.class, true
			}
		}
		return Witnessable, true
	}
	for _, c := range []struct {
		word  string
		class WitnessClass
	}{{"seam-gated", SeamGated}, {"claims-check", ClaimsCheck}, {"negative-existence", NegativeExistence}, {"negative existence", NegativeExistence}, {"unwitnessable", Unwitnessable}, {"host-pending", HostPending}} {
		if _, ok := word(c.word); ok {
			return c.class, true
		}
	}
	return "", false
}

func isWordByte(b byte) bool {
	return b == '-' || b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// Covers reports whether a bundle row for rowID answers requirement id: the id
// itself or a leg under it (<id>.<leg>).
func Covers(id, rowID string) bool {
	return rowID == id || len(rowID) > len(id) && rowID[len(id)] == '.' && strings.HasPrefix(rowID, id)
}

// IDSet is a set of requirement ids that answers Covers for all of them at
// once, in time linear in the row id's length.
type IDSet map[string]struct{}

// NewIDSet returns the set of ids.
func NewIDSet(ids ...string) IDSet {
	s := make(IDSet, len(ids))
	for _, id := range ids {
		s[id] = struct{}{}
	}
	return s
}

// Covering returns the ids in the set that rowID answers (Covers), the longest
// first.
func (s IDSet) Covering(rowID string) []string {
	var out []string
	for end := len(rowID); end > 0; end = strings.LastIndexByte(rowID[:end], '.') {
		if _, ok := s[rowID[:end]]; ok {
			out = append(out, rowID[:end])
		}
	}
	return out
}

// CoversRow reports whether rowID answers some id of the set.
func (s IDSet) CoversRow(rowID string) bool {
	for end := len(rowID); end > 0; end = strings.LastIndexByte(rowID[:end], '.') {
		if _, ok := s[rowID[:end]]; ok {
			return true
		}
	}
	return false
}
