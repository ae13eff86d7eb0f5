package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"

	"github.com/certcut/certcut/gate"
)

// JUnit XML (valid under Jenkins xunit's junit-10.xsd): one testsuite per
// report, one testcase per criterion; FAIL is a failure, BLOCKED an error
// (the criterion could not be judged: dashboards must not count it as fine, as
// they do skipped cases). A criterion of a warning-severity rule that did not
// pass changes no report's status (the gate exits 0 over it), so it is neither:
// its case passes with the warning in its system-out, as the text format prints
// it. Every suite carries tests, failures, errors, skipped and time; every case
// a time. The gate times no criterion, so times are 0.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Time    string        `xml:"time,attr"`
	Failure *junitMessage `xml:"failure,omitempty"`
	Error   *junitMessage `xml:"error,omitempty"`
	Skipped *junitMessage `xml:"skipped,omitempty"`
	Out     string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Type    string `xml:"type,attr,omitempty"`
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
			tc := junitCase{Class: string(c.ID), Name: name}
			body := c.Reason
			for _, f := range c.Findings {
				if f.Location != nil {
					body += fmt.Sprintf("\n%s:%d: %s", f.Location.File, f.Location.Line, f.Message)
				} else {
					body += "\n" + f.Message
				}
			}
			switch {
			case c.Warning && c.Status != gate.Pass:
				tc.Out = "WARNING (" + string(c.Status) + "): " + body
			case c.Status == gate.Fail:
				tc.Failure = &junitMessage{Type: "FAIL", Message: c.Reason, Text: body}
				s.Failures++
			case c.Status == gate.Blocked:
				tc.Error = &junitMessage{Type: "BLOCKED", Message: "BLOCKED: " + c.Reason, Text: body}
				s.Errors++
			}
			s.Cases = append(s.Cases, tc)
			s.Tests++
		}
		doc.Suites = append(doc.Suites, s)
	}
	doc.Suites = append(doc.Suites, extra...)
	for i := range doc.Suites {
		s := &doc.Suites[i]
		if s.Time == "" {
			s.Time = "0"
		}
		for j := range s.Cases {
			if s.Cases[j].Time == "" {
				s.Cases[j].Time = "0"
			}
		}
	}
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
