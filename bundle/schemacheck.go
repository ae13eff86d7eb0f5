package bundle

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// CheckSchema returns the problems the bundle v3 JSON Schema (the generated
// schemas/bundle-v3.schema.json, Draft 2020-12) finds in the document root, as
// the schema validator certcut used before reports them: one problem per failed
// leaf assertion, named by the JSON pointer of the member concerned (a missing
// required member and a member a closed object does not allow by their own
// pointer), sorted by pointer (array indexes in numeric order) and then message.
// None means valid.
//
// It is the schema's checks written out in Go, so that verifying a bundle needs no
// schema compiler, no ECMA-262 regexp engine and no conversion of the document: it
// walks the parsed tree once. Each rule follows the validator's semantics (Draft
// 2020-12 as github.com/santhosh-tekuri/jsonschema/v6 implements it): a failed
// "type", "const", "enum" or "format" ends the checks of that value; the other
// keywords each add their own problem; the root's two conditionals (allOf if/then)
// apply as the schema states them, even where a member is missing or mistyped.
// The differential test in package schemas/validate holds it equal to the
// validator over the corpus, systematic mutations of every member, and a fuzz
// target that feeds both.
func CheckSchema(root Value) []Problem {
	c := schemaChecker{}
	c.root(root)
	if len(c.out) == 0 {
		return nil
	}
	SortProblems(c.out)
	return slices.CompactFunc(c.out, func(a, b Problem) bool { return a == b })
}

// SortProblems orders problems by pointer, comparing array indexes as numbers, then
// by message.
func SortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if ta[i] == tb[i] {
			continue
		}
		na, errA := strconv.Atoi(ta[i])
		nb, errB := strconv.Atoi(tb[i])
		if errA == nil && errB == nil {
			return cmp.Compare(na, nb)
		}
		return strings.Compare(ta[i], tb[i])
	}
	return len(ta) - len(tb)
}

// schemaChecker walks the document keeping the path to the current value as a
// stack of tokens; the JSON pointer is spelled out only for a problem.
type schemaChecker struct {
	out  []Problem
	path []pathToken
}

// pathToken is a member name, or an array index when index >= 0.
type pathToken struct {
	name  string
	index int
}

func (c *schemaChecker) pointer() string {
	var sb strings.Builder
	for _, t := range c.path {
		sb.WriteByte('/')
		if t.index >= 0 {
			sb.WriteString(strconv.Itoa(t.index))
		} else {
			sb.WriteString(escapePointer(t.name))
		}
	}
	return sb.String()
}

// add records a problem of the current value.
func (c *schemaChecker) add(msg string) {
	c.out = append(c.out, Problem{Pointer: c.pointer(), Message: msg})
}

// addAt records a problem of the member name of the current value.
func (c *schemaChecker) addAt(name, msg string) {
	c.path = append(c.path, pathToken{name: name, index: -1})
	c.add(msg)
	c.path = c.path[:len(c.path)-1]
}

// missingAt records that the required member name of the current value is
// absent (Problem.Missing).
func (c *schemaChecker) missingAt(name, msg string) {
	c.path = append(c.path, pathToken{name: name, index: -1})
	c.out = append(c.out, Problem{Pointer: c.pointer(), Message: msg, Missing: true})
	c.path = c.path[:len(c.path)-1]
}

// items calls f for every item of the array v, with the item's index on the path.
func (c *schemaChecker) items(v Value, f func(item Value)) {
	for i, item := range v.Items() {
		c.path = append(c.path, pathToken{index: i})
		f(item)
		c.path = c.path[:len(c.path)-1]
	}
}

// The leaf messages, worded as the validator's (schemas/validate) describe them.

// printer formats the messages the validator words through golang.org/x/text
// (numbers with English digit grouping); made on first use.
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// typeOK checks "type": want is one JSON Schema type name. An integer is a number
// with no fraction, as the validator decides it.
func (c *schemaChecker) typeOK(v Value, want string) bool {
	got := v.Kind().String()
	ok := got == want || (want == "integer" && v.Kind() == Number && isIntegral(v.num()))
	if !ok {
		c.add("must be " + want + ", is " + got)
	}
	return ok
}

func isIntegral(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }

// constOK checks "const" against a string.
func (c *schemaChecker) constOK(v Value, want string) bool {
	if s, ok := v.Str(); ok && s == want {
		return true
	}
	b, _ := json.Marshal(want)
	c.add("must be exactly " + string(b))
	return false
}

// enumOK checks "enum" over strings.
func (c *schemaChecker) enumOK(v Value, want []string) bool {
	if s, ok := v.Str(); ok && slices.Contains(want, s) {
		return true
	}
	quoted := make([]string, len(want))
	for i, w := range want {
		b, _ := json.Marshal(w)
		quoted[i] = string(b)
	}
	c.enumFailed(v, quoted)
	return false
}

func (c *schemaChecker) enumFailed(v Value, quoted []string) {
	if len(quoted) == 1 {
		c.add(fmt.Sprintf("%s is not allowed: value must be %s", display(v), quoted[0]))
		return
	}
	c.add(fmt.Sprintf("%s is not allowed: value must be one of %s", display(v), strings.Join(quoted, ", ")))
}

// minimum checks "minimum" on a number (other kinds pass).
func (c *schemaChecker) minimum(v Value, min float64) {
	if f, ok := v.Float(); ok && f < min {
		c.add(printer().Sprintf("minimum: got %v, want %v", f, min))
	}
}

// pattern checks "pattern" on a string (other kinds pass); wantText is the pattern
// as the schema writes it.
func (c *schemaChecker) pattern(v Value, match func(string) bool, wantText string) {
	s, ok := v.Str()
	if !ok || match(s) {
		return
	}
	if len(wantText) > 80 {
		c.add(fmt.Sprintf("%s does not match the pattern of this member (%d characters; see the schema)", quoteShort(s), len(wantText)))
		return
	}
	c.add(fmt.Sprintf("%s does not match the pattern %s", quoteShort(s), wantText))
}

func (c *schemaChecker) minLength(v Value, min int) {
	if s, ok := v.Str(); ok {
		if n := utf8.RuneCountInString(s); n < min {
			c.add(printer().Sprintf("minLength: got %d, want %d", n, min))
		}
	}
}

// items checks minItems and maxItems (max < 0: none).
func (c *schemaChecker) itemCount(v Value, min, max int) {
	n := v.Len()
	if n < min {
		c.add(printer().Sprintf("minItems: got %d, want %d", n, min))
	}
	if max >= 0 && n > max {
		c.add(printer().Sprintf("maxItems: got %d, want %d", n, max))
	}
}

// object checks "type": "object", "required" (in the schema's order) and
// "additionalProperties": false against the member names the schema lists, then
// calls each for every member it lists. It reports whether v is an object.
func (c *schemaChecker) object(v Value, props, required []string, each func(name string, val Value)) bool {
	if !c.typeOK(v, "object") {
		return false
	}
	for _, r := range required {
		if !v.Has(r) {
			c.missingAt(r, "required member is missing")
		}
	}
	for _, m := range v.Members() {
		if !slices.Contains(props, m.Name) {
			c.addAt(m.Name, "member not allowed: the object is closed (additionalProperties false)")
			continue
		}
		c.path = append(c.path, pathToken{name: m.Name, index: -1})
		each(m.Name, m.Value)
		c.path = c.path[:len(c.path)-1]
	}
	return true
}

// array checks "type": "array" and calls each for every item.
func (c *schemaChecker) array(v Value, each func(item Value)) bool {
	if !c.typeOK(v, "array") {
		return false
	}
	c.items(v, each)
	return true
}

func (c *schemaChecker) str(v Value) { c.typeOK(v, "string") }

func (c *schemaChecker) strPattern(v Value, match func(string) bool, text string) {
	if c.typeOK(v, "string") {
		c.pattern(v, match, text)
	}
}

func (c *schemaChecker) strEnum(v Value, want []string) {
	if c.typeOK(v, "string") {
		c.enumOK(v, want)
	}
}

func (c *schemaChecker) intMin(v Value, min float64) {
	if c.typeOK(v, "integer") {
		c.minimum(v, min)
	}
}

var (
	rootProps = []string{"bundleVersion", "generatedAt", "suite", "host", "discovery", "claimedProfiles", "results", "witnessSha256", "assertionCount", "detail", "durability", "signature", "verifierSignature"}
	rootReq   = []string{"bundleVersion", "generatedAt", "suite", "host", "discovery", "claimedProfiles", "results", "witnessSha256", "assertionCount", "signature"}
	suiteReq  = []string{"name", "version", "targetMajor", "specArtifactsVersion"}
	suiteProp = append(slices.Clone(suiteReq), "stampSha256")
	hostReq   = []string{"name", "version", "build"}
	hostProps = []string{"name", "version", "vendor", "build", "signingKeyId", "relaxations", "deployment"}
	buildReq  = []string{"kind", "id"}
	relaxReq  = []string{"obligation", "durability", "reason"}
	discReq   = []string{"url", "sha256", "protocolVersions", "preferredVersion"}
	discProps = append(slices.Clone(discReq), "document")
	claimReq  = []string{"id", "evidenceTier", "witnessCount", "certified"}
	totalsReq = []string{"executedPass", "executedFail", "skipped", "inapplicable", "blocked"}
	resReq    = []string{"totals", "requirements"}
	rowReq    = []string{"id", "scenario", "result"}
	rowProps  = []string{"id", "scenario", "result", "assertions", "detail", "evidence"}
	evProps   = []string{"recovery", "recoveryBounds"}
	recReq    = []string{"class", "boundMs", "observedMs"}
	boundReq  = []string{"class", "bound", "terms"}
	termReq   = []string{"name", "ms"}
	detailReq = []string{"nonPass"}
	npReq     = []string{"id", "result", "reason"}
	rungReq   = []string{"rung"}
	sigReq    = []string{"alg", "keyId", "sig", "over"}
	vsigReq   = []string{"alg", "keyId", "sig"}

	buildKinds    = []string{BuildImageDigest, BuildCommit, BuildArtifactSHA256}
	durabilities  = []string{RelaxationSession, RelaxationDeployment, RelaxationPersisted}
	deployments   = []string{DeploymentColocatedCompanion}
	evidenceTiers = []string{TierSelf, TierSteward, TierIndependent}
)

func (c *schemaChecker) root(v Value) {
	c.object(v, rootProps, rootReq, func(name string, m Value) {
		switch name {
		case "bundleVersion":
			c.constOK(m, Version)
		case "generatedAt":
			if c.typeOK(m, "string") {
				c.format(m, "date-time", validateDateTime)
			}
		case "suite":
			c.suite(m)
		case "host":
			c.host(m)
		case "discovery":
			c.discovery(m)
		case "claimedProfiles":
			c.claimedProfiles(m)
		case "results":
			c.results(m)
		case "witnessSha256":
			c.strPattern(m, isSHA256Hex, SHA256HexPattern)
		case "assertionCount":
			c.intMin(m, 1)
		case "detail":
			c.object(m, detailReq, detailReq, func(_ string, np Value) {
				c.array(np, func(item Value) {
					c.object(item, npReq, npReq, func(_ string, s Value) { c.str(s) })
				})
			})
		case "durability":
			c.object(m, rungReq, rungReq, func(_ string, r Value) { c.enumOK(r, Rungs) })
		case "signature":
			c.signature(m, sigReq)
		case "verifierSignature":
			c.signature(m, vsigReq)
		}
	})
	if v.Kind() != Object {
		return // a failed type ends the checks, conditionals included
	}
	// allOf/0: if any of results.totals' executedFail, skipped, blocked is not
	// a number below 1 (absent and non-numbers included, as the schema's
	// "properties" and "minimum" pass them), then detail is required.
	if failsSomewhere(v) && !v.Has("detail") {
		c.missingAt("detail", "required member is missing (schema conditional /allOf/0/then/required)")
	}
	// allOf/1: if claimedProfiles contains an item that passes
	// {"properties": {"evidenceTier": {"const": "independent"}}} (or is not an
	// array), then verifierSignature is required.
	if claimsIndependent(v) && !v.Has("verifierSignature") {
		c.missingAt("verifierSignature", "required member is missing (schema conditional /allOf/1/then/required)")
	}
}

// failsSomewhere evaluates the first conditional's "if" as the schema does.
func failsSomewhere(root Value) bool {
	results, ok := root.Get("results")
	if !ok || results.Kind() != Object {
		return true
	}
	totals, ok := results.Get("totals")
	if !ok || totals.Kind() != Object {
		return true
	}
	for _, name := range [...]string{"executedFail", "skipped", "blocked"} {
		n, ok := totals.Get(name)
		if f, isNum := n.Float(); !ok || !isNum || f >= 1 {
			return true
		}
	}
	return false
}

// claimsIndependent evaluates the second conditional's "if" as the schema does.
func claimsIndependent(root Value) bool {
	cp, ok := root.Get("claimedProfiles")
	if !ok || cp.Kind() != Array {
		return true
	}
	for _, item := range cp.Items() {
		tier, ok := item.Get("evidenceTier")
		if item.Kind() != Object || !ok {
			return true
		}
		if s, isStr := tier.Str(); isStr && s == TierIndependent {
			return true
		}
	}
	return false
}

func (c *schemaChecker) suite(v Value) {
	c.object(v, suiteProp, suiteReq, func(name string, m Value) {
		switch name {
		case "name":
			c.constOK(m, SuiteName)
		case "version", "specArtifactsVersion":
			c.str(m)
		case "targetMajor":
			if c.typeOK(m, "integer") {
				if f, _ := m.Float(); f != 1 && f != 2 {
					c.enumFailed(m, []string{"1", "2"})
				}
			}
		case "stampSha256":
			c.strPattern(m, isSHA256Hex, SHA256HexPattern)
		}
	})
}

func (c *schemaChecker) host(v Value) {
	c.object(v, hostProps, hostReq, func(name string, m Value) {
		switch name {
		case "name", "version":
			if c.typeOK(m, "string") {
				c.minLength(m, 1)
			}
		case "vendor":
			c.str(m)
		case "build":
			c.object(m, buildReq, buildReq, func(name string, b Value) {
				if name == "kind" {
					c.strEnum(b, buildKinds)
				} else if c.typeOK(b, "string") {
					c.minLength(b, 1)
				}
			})
		case "signingKeyId":
			c.strPattern(m, IsKeyID, KeyIDPattern)
		case "relaxations":
			c.array(m, func(item Value) {
				c.object(item, relaxReq, relaxReq, func(name string, r Value) {
					if name == "durability" {
						c.strEnum(r, durabilities)
					} else {
						c.str(r)
					}
				})
			})
		case "deployment":
			c.strEnum(m, deployments)
		}
	})
}

func (c *schemaChecker) discovery(v Value) {
	c.object(v, discProps, discReq, func(name string, m Value) {
		switch name {
		case "url":
			if c.typeOK(m, "string") {
				c.format(m, "uri", validateURI)
			}
		case "sha256":
			c.strPattern(m, isSHA256Hex, SHA256HexPattern)
		case "protocolVersions":
			c.array(m, func(item Value) { c.str(item) })
		case "preferredVersion":
			c.str(m)
		case "document":
			c.typeOK(m, "object") // open: any members
		}
	})
}

func (c *schemaChecker) claimedProfiles(v Value) {
	if !c.typeOK(v, "array") {
		return
	}
	if i, j, dup := firstDuplicate(v.Items()); dup {
		c.add(printer().Sprintf("items at %d and %d are equal", i, j))
	}
	c.items(v, func(item Value) {
		c.object(item, claimReq, claimReq, func(name string, m Value) {
			switch name {
			case "id":
				c.strPattern(m, isProfileID, ProfileIDPattern)
			case "evidenceTier":
				c.strEnum(m, evidenceTiers)
			case "witnessCount":
				c.intMin(m, 0)
			case "certified":
				c.typeOK(m, "boolean")
			}
		})
	})
}

// firstDuplicate finds the first item equal to an earlier one (i < j), as
// "uniqueItems" reports it: the smallest j, then the smallest i. Beyond a few
// items it compares canonical forms through a map, so that a hostile array of a
// million claims costs a million steps, not a million squared.
func firstDuplicate(items []Value) (int, int, bool) {
	if len(items) <= 20 {
		for j := 1; j < len(items); j++ {
			for i := 0; i < j; i++ {
				if Equal(items[i], items[j]) {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	// Equal values have equal canonical forms and unequal ones differ (numbers as
	// ECMAScript writes them, -0 as 0, members sorted); an item that cannot be
	// written canonically is compared one by one.
	first := make(map[string]int, len(items))
	var odd []int // items without a canonical form
	for j, item := range items {
		text, err := Canonical(item)
		if err != nil {
			for _, i := range odd {
				if Equal(items[i], item) {
					return i, j, true
				}
			}
			odd = append(odd, j)
			continue
		}
		if i, ok := first[string(text)]; ok {
			return i, j, true
		}
		first[string(text)] = j
	}
	return 0, 0, false
}

func (c *schemaChecker) results(v Value) {
	c.object(v, resReq, resReq, func(name string, m Value) {
		if name == "totals" {
			c.object(m, totalsReq, totalsReq, func(_ string, n Value) { c.intMin(n, 0) })
			return
		}
		if c.typeOK(m, "array") {
			c.itemCount(m, 1, -1)
			c.items(m, c.row)
		}
	})
}

func (c *schemaChecker) row(v Value) {
	c.object(v, rowProps, rowReq, func(name string, m Value) {
		switch name {
		case "id":
			c.strPattern(m, IsRequirementID, RequirementIDPattern)
		case "scenario", "detail":
			c.str(m)
		case "result":
			c.strEnum(m, Results)
		case "assertions":
			c.intMin(m, 0)
		case "evidence":
			c.evidence(m)
		}
	})
}

func (c *schemaChecker) evidence(v Value) {
	if !c.typeOK(v, "object") {
		return
	}
	if n := v.Len(); n < 1 {
		c.add(printer().Sprintf("minProperties: got %d, want %d", n, 1))
	}
	c.object(v, evProps, nil, func(name string, m Value) {
		if name == "recovery" {
			c.object(m, recReq, recReq, func(name string, r Value) {
				if name == "class" {
					c.strPattern(r, IsRecoveryName, RecoveryNamePattern)
				} else {
					c.intMin(r, 0)
				}
			})
			return
		}
		if !c.typeOK(m, "array") {
			return
		}
		c.itemCount(m, 1, 16)
		c.items(m, func(b Value) {
			c.object(b, boundReq, boundReq, func(name string, f Value) {
				switch name {
				case "class":
					c.strPattern(f, IsRecoveryName, RecoveryNamePattern)
				case "bound":
					c.intMin(f, 0)
				case "terms":
					if !c.typeOK(f, "array") {
						return
					}
					c.itemCount(f, 1, 16)
					c.items(f, func(t Value) {
						c.object(t, termReq, termReq, func(name string, tv Value) {
							if name == "name" {
								c.strPattern(tv, IsRecoveryName, RecoveryNamePattern)
							} else {
								c.intMin(tv, 0)
							}
						})
					})
				}
			})
		})
	})
}

func (c *schemaChecker) signature(v Value, props []string) {
	c.object(v, props, props, func(name string, m Value) {
		switch name {
		case "alg":
			c.constOK(m, AlgEd25519)
		case "keyId":
			c.strPattern(m, IsKeyID, KeyIDPattern)
		case "sig":
			c.strPattern(m, isSignature, SignaturePattern)
		case "over":
			if c.typeOK(m, "array") && !isExactOver(m) {
				b, _ := json.Marshal(SignatureOver)
				c.add("must be exactly " + string(b))
			}
		}
	})
}

// isExactOver reports whether v is the array SignatureOver.
func isExactOver(v Value) bool {
	items := v.Items()
	if len(items) != len(SignatureOver) {
		return false
	}
	for i, item := range items {
		if s, ok := item.Str(); !ok || s != SignatureOver[i] {
			return false
		}
	}
	return true
}

// format checks "format" on a string; f is the validator's check.
func (c *schemaChecker) format(v Value, name string, f func(string) error) {
	s, _ := v.Str()
	if err := f(s); err != nil {
		c.add(fmt.Sprintf("%s is not a valid %s: %v", display(v), name, err))
	}
}

// display shows a value from the document in a message: a string quoted and cut
// short, anything else as JSON up to 80 bytes, else its Go type as the validator
// names it.
func display(v Value) string {
	if s, ok := v.Str(); ok {
		return quoteShort(s)
	}
	a := v.Any()
	b, err := json.Marshal(a)
	if err != nil || len(b) > 80 {
		return fmt.Sprintf("a %T", a)
	}
	return string(b)
}

// quoteShort quotes s, cut to 60 characters.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		return strconv.Quote(string([]rune(s)[:60])) + "…"
	}
	return strconv.Quote(s)
}
