package bundle

import "strings"

// The schema's patterns (schema.go) as plain Go. Each is anchored at both ends but
// the requirement id's, which only constrains a prefix; every character class is
// ASCII, so counting bytes counts the ECMA-262 u-flag code points the patterns
// count. In package schemas/validate, TestPatternsAgreeWithECMA compares the
// exported ones with the ECMA-262 engine on the corpus ids and on strings built to
// sit on each boundary, and TestCheckSchemaAgrees the others, through the schema,
// on values at their edges.

// isSHA256Hex matches SHA256HexPattern, ^[0-9a-f]{64}$.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// IsKeyID reports whether s matches KeyIDPattern, ^[A-Za-z0-9._~-]{1,128}$.
func IsKeyID(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '~' && c != '-' {
			return false
		}
	}
	return true
}

// isSignature matches SignaturePattern, ^[A-Za-z0-9_-]{86}$.
func isSignature(s string) bool {
	if len(s) != 86 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// isProfileID matches ProfileIDPattern, ^openwop-[a-z0-9-]+$.
func isProfileID(s string) bool {
	rest, ok := strings.CutPrefix(s, "openwop-")
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// IsRecoveryName reports whether s matches RecoveryNamePattern,
// ^[a-z][A-Za-z0-9._-]{0,63}$.
func IsRecoveryName(s string) bool {
	if len(s) < 1 || len(s) > 64 || !(s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// coherenceIDs are the names RequirementIDPattern's negative lookahead lists,
// read from the pattern itself so that the two cannot drift.
var coherenceIDs = func() []string {
	const open, close = `(?!it\.(?:`, `)\.)`
	_, rest, _ := strings.Cut(RequirementIDPattern, open)
	list, _, _ := strings.Cut(rest, close)
	return strings.Split(list, "|")
}()

// requirementAreas are the words RequirementIDPattern allows after "openwop.".
var requirementAreas = [...]string{"requirement.", "it.", "scenario.", "floor.", "profile.", "family."}

// IsRequirementID reports whether s matches RequirementIDPattern, the public
// schema's row id grammar, lookahead included: "openwop.", not "it.<name>." for a
// corpus-coherence name, then HasRequirementIDForm.
func IsRequirementID(s string) bool {
	rest, ok := strings.CutPrefix(s, "openwop.")
	if !ok {
		return false
	}
	if after, ok := strings.CutPrefix(rest, "it."); ok {
		for _, name := range coherenceIDs {
			if len(after) > len(name) && after[len(name)] == '.' && strings.HasPrefix(after, name) {
				return false
			}
		}
	}
	return HasRequirementIDForm(s)
}

// HasRequirementIDForm reports whether s matches RequirementIDPattern without its
// negative lookahead for corpus-coherence files,
// ^openwop\.(requirement|it|scenario|floor|profile|family)\.[a-z0-9]: "openwop.",
// one of the six areas, ".", then [a-z0-9] (the rest is free). It is the form the
// row readers hold every id to (rows.Merge).
func HasRequirementIDForm(s string) bool {
	rest, ok := strings.CutPrefix(s, "openwop.")
	if !ok {
		return false
	}
	for _, area := range requirementAreas {
		if after, ok := strings.CutPrefix(rest, area); ok && after != "" {
			c := after[0]
			return c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		}
	}
	return false
}

// CoherenceIDs returns the corpus-coherence names RequirementIDPattern's
// lookahead lists (a copy): certcut's built-in list.
func CoherenceIDs() []string { return append([]string(nil), coherenceIDs...) }

// IsCoherenceRowID reports whether s is an id minted from one of the named
// corpus-coherence files: "openwop.it.<name>.…".
func IsCoherenceRowID(s string, names []string) bool {
	after, ok := strings.CutPrefix(s, "openwop.it.")
	if !ok {
		return false
	}
	for _, name := range names {
		if len(after) > len(name) && after[len(name)] == '.' && strings.HasPrefix(after, name) {
			return true
		}
	}
	return false
}
