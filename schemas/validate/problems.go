package validate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// ecmaRegexp compiles schema patterns as ECMA-262 regular expressions with the u
// flag, as the reference emitter's Ajv does: the requirement id pattern needs a
// negative lookahead, which Go's RE2-based regexp does not have.
func ecmaRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(s, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, err
	}
	return ecma{re}, nil
}

type ecma struct{ re *regexp2.Regexp }

func (e ecma) MatchString(s string) bool {
	ok, err := e.re.MatchString(s)
	return err == nil && ok
}

func (e ecma) String() string { return e.re.String() }

// collect appends the leaf failures of err (those with no causes) as problems.
func collect(err *jsonschema.ValidationError, out *[]bundle.Problem) {
	if len(err.Causes) > 0 {
		for _, c := range err.Causes {
			collect(c, out)
		}
		return
	}
	ptr := pointer(err.InstanceLocation)
	suffix := ""
	if kw := keywordLocation(err); strings.Contains(kw, "/allOf/") {
		suffix = " (schema conditional " + kw + ")"
	}
	switch k := err.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, bundle.Problem{Pointer: ptr + "/" + escape(m), Message: "required member is missing" + suffix, Missing: true})
		}
	case *kind.AdditionalProperties:
		for _, m := range k.Properties {
			*out = append(*out, bundle.Problem{Pointer: ptr + "/" + escape(m), Message: "member not allowed: the object is closed (additionalProperties false)"})
		}
	default:
		*out = append(*out, bundle.Problem{Pointer: ptr, Message: describe(err.ErrorKind) + suffix})
	}
}

// describe words a failure; values from the document are quoted and shortened.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Pattern:
		if len(k.Want) > 80 {
			return fmt.Sprintf("%s does not match the pattern of this member (%d characters; see the schema)", quoteShort(k.Got), len(k.Want))
		}
		return fmt.Sprintf("%s does not match the pattern %s", quoteShort(k.Got), k.Want)
	case *kind.Const:
		want, _ := json.Marshal(k.Want)
		return "must be exactly " + string(want)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			b, _ := json.Marshal(w)
			want[i] = string(b)
		}
		if len(want) == 1 {
			return fmt.Sprintf("%s is not allowed: value must be %s", display(k.Got), want[0])
		}
		return fmt.Sprintf("%s is not allowed: value must be one of %s", display(k.Got), strings.Join(want, ", "))
	case *kind.Type:
		return fmt.Sprintf("must be %s, is %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s: %v", display(k.Got), k.Want, k.Err)
	}
	return k.LocalizedString(printer)
}

func display(v any) string {
	if s, ok := v.(string); ok {
		return quoteShort(s)
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return fmt.Sprintf("a %T", v)
	}
	return string(b)
}

// quoteShort quotes s, cut to 60 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 60 {
		return strconv.Quote(string(r[:60])) + "…"
	}
	return strconv.Quote(s)
}

// keywordLocation returns the schema location of the failed keyword, as a JSON
// pointer fragment ("/allOf/1/then/required").
func keywordLocation(err *jsonschema.ValidationError) string {
	loc := err.SchemaURL
	if i := strings.IndexByte(loc, '#'); i >= 0 {
		loc = loc[i+1:]
	} else {
		loc = ""
	}
	return loc + pointer(err.ErrorKind.KeywordPath())
}

func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escape(t))
	}
	return sb.String()
}

// escape escapes a JSON pointer token (RFC 6901).
func escape(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// sortProblems orders problems as bundle.SortProblems does: by pointer, array
// indexes as numbers, then by message.
func sortProblems(ps []bundle.Problem) { bundle.SortProblems(ps) }

func dedupe(ps []bundle.Problem) []bundle.Problem {
	return slices.CompactFunc(ps, func(a, b bundle.Problem) bool { return a == b })
}
