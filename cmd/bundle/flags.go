package main

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// stringsVar defines a repeatable string flag with no default: pflag's
// StringArrayVar (type "stringArray": each use adds one value, verbatim, commas
// and all), but its default costs nothing to set up. pflag prints every flag's
// default when the flag is defined, and prints a string array through a fresh
// encoding/csv writer and its 4 KiB buffer: on every start of every command,
// since the whole command tree is built before the command line is read.
//
// Its DefValue is "", not pflag's "[]": pflag's help omits an empty default by
// the flag's concrete type, which only its own types have; "" is the empty
// default it omits for any type. manFlag prints it as "[]".
func stringsVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	*p = nil
	fs.Var(&stringsValue{p: p}, name, usage)
	fs.Lookup(name).DefValue = ""
}

// stringsValue is the pflag.Value (and pflag.SliceValue) of stringsVar.
type stringsValue struct {
	p       *[]string
	changed bool
}

// Set adds a value; the first replaces the default.
func (v *stringsValue) Set(s string) error {
	if !v.changed {
		*v.p, v.changed = []string{s}, true
		return nil
	}
	*v.p = append(*v.p, s)
	return nil
}

func (v *stringsValue) Type() string { return "stringArray" }

// String is "[a,b]", the values as one CSV record, as pflag prints a string
// array.
func (v *stringsValue) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range *v.p {
		if i > 0 {
			b.WriteByte(',')
		}
		if csvNeedsQuotes(s) {
			s = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		b.WriteString(s)
	}
	b.WriteByte(']')
	return b.String()
}

// csvNeedsQuotes is encoding/csv's rule for a field that must be quoted.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` || strings.ContainsAny(s, "\n\r\",") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

func (v *stringsValue) Append(s string) error {
	*v.p = append(*v.p, s)
	return nil
}

func (v *stringsValue) Replace(values []string) error {
	*v.p = append([]string(nil), values...)
	return nil
}

func (v *stringsValue) GetSlice() []string { return *v.p }
