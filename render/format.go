package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is a way a command prints its result. Every command that prints a
// result takes --format with the formats it can write (docs/cli.md); --json is
// an alias of --format json.
type Format string

// The formats. Text is for people; the others are for programs.
const (
	Text   Format = "text"
	JSON   Format = "json"
	GitHub Format = "github" // GitHub Actions workflow commands (annotations)
	SARIF  Format = "sarif"  // SARIF 2.1.0, for code scanning
	JUnit  Format = "junit"  // JUnit XML, for CI test reports
	CSV    Format = "csv"
	HTML   Format = "html"
)

// FormatError is a --format word a command does not write.
type FormatError struct {
	Given   string
	Allowed []Format
}

func (e *FormatError) Error() string {
	words := make([]string, len(e.Allowed))
	for i, f := range e.Allowed {
		words[i] = string(f)
	}
	return fmt.Sprintf("--format %q: give one of %s", e.Given, strings.Join(words, ", "))
}

// ParseFormat returns s as a Format when it is one of allowed, else a
// *FormatError that lists them.
func ParseFormat(s string, allowed ...Format) (Format, error) {
	for _, f := range allowed {
		if string(f) == s {
			return f, nil
		}
	}
	return "", &FormatError{Given: s, Allowed: allowed}
}

// WriteJSON writes v as JSON the way every command prints it: indented by two
// spaces, with <, > and & as themselves (not \u003c: the output is read by
// programs and people, never embedded in HTML), and a final newline. It returns
// the first error, encoding or writing.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// MarshalJSONItem returns v as WriteJSON writes an element of a top-level array:
// indented as encoding/json indents the whole array, without the final newline.
func MarshalJSONItem(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
