package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"

	"github.com/certcut/certcut/gate"
)

// JUnit XML: one testsuite per report, one testcase per criterion; FAIL is a
// failure, BLOCKED is skipped with its reason.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Failure *junitMessage `xml:"failure,omitempty"`
	Skipped *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes one testsuite per report, then the extra suites.
func writeJUnit(w io.Writer, reps []*gate.Report, extra ...junitSuite) error {
	var doc junitSuites
	for _, r := range reps {
		s := junitSuite{Name: "gate " + r.Gate + " " + r.Subject}
		for _, c := range r.Criteria {
			name := c.Title
			switch {
			case c.Requirement != "":
				name = c.Requirement
			case c.Bundle != nil:
				name = filepath.Base(c.Bundle.File) + ": " + c.Title
			}
			tc := junitCase{Class: c.ID, Name: name}
			body := c.Reason
			for _, f := range c.Findings {
				if f.Location != nil {
					body += fmt.Sprintf("\n%s:%d: %s", f.Location.File, f.Location.Line, f.Message)
				} else {
					body += "\n" + f.Message
				}
			}
			switch c.Status {
			case gate.Fail:
				tc.Failure = &junitMessage{Message: c.Reason, Text: body}
				s.Failures++
			case gate.Blocked:
				tc.Skipped = &junitMessage{Message: "BLOCKED: " + c.Reason, Text: body}
				s.Skipped++
			}
			s.Cases = append(s.Cases, tc)
			s.Tests++
		}
		doc.Suites = append(doc.Suites, s)
	}
	doc.Suites = append(doc.Suites, extra...)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
