package rfc

import (
	"fmt"

	"github.com/certcut/certcut/internal/jsonkind"
	"github.com/certcut/certcut/internal/limitedfile"
)

// NotRFCError is a file given as an RFC that is not one: it has neither an
// "# RFC NNNN: title" heading nor a Status field.
type NotRFCError struct {
	File string
	// Looks says what the file looks like when it is JSON ("a discovery
	// document …"); "" otherwise.
	Looks string
}

func (e *NotRFCError) Error() string {
	what := "it has neither an \"# RFC NNNN: title\" heading nor a | **Status** | row"
	if e.Looks != "" {
		what = "it is " + e.Looks
	}
	return fmt.Sprintf("%s is not an RFC: %s; give an RFC's Markdown file (RFCS/NNNN-….md)", e.File, what)
}

// Open reads a file named as an RFC (ReadFile), and refuses one that is not an
// RFC at all with *NotRFCError, where ReadFile would read it as an RFC with
// nothing in it.
func Open(path string) (*RFC, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	r := Parse(path, string(data))
	if r.Title == "" && r.StatusLine == 0 {
		return nil, &NotRFCError{File: path, Looks: string(jsonkind.Sniff(data))}
	}
	return r, nil
}
