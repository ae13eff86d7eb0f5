package rows

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path"
	"strconv"
	"strings"
)

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitResult struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	File       string          `xml:"file,attr"`
	Assertions string          `xml:"assertions,attr"`
	Failures   []junitResult   `xml:"failure"`
	Errors     []junitResult   `xml:"error"`
	Skipped    *junitResult    `xml:"skipped"`
	Properties []junitProperty `xml:"properties>property"`
}

type junitSuite struct {
	Name   string       `xml:"name,attr"`
	File   string       `xml:"file,attr"`
	Cases  []junitCase  `xml:"testcase"`
	Suites []junitSuite `xml:"testsuite"`
}

type junitRoot struct {
	XMLName xml.Name
	junitSuite
}

// ReadJUnit reads JUnit XML (a <testsuites> or <testsuite> root, suites may nest)
// and returns its rows and an index of the requirement ids its tests name, exactly
// as ReadVitest does. A test's scenario file is its file attribute, else the
// nearest suite's file attribute, else a suite name or class name that is a file
// path. Its assertion count is the testcase's assertions attribute or an
// assertionCount property; <failure> and <error> are executed-fail, <skipped> is
// skipped.
func ReadJUnit(data []byte, source string, opts Options) ([]Sourced, *ScenarioIndex, error) {
	var root junitRoot
	dec := xml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, nil, inputErr(source, 0, "not JUnit XML: %v", err)
	}
	if root.XMLName.Local != "testsuites" && root.XMLName.Local != "testsuite" {
		return nil, nil, inputErr(source, 0, "not JUnit XML: the root element is <%s>, not <testsuites> or <testsuite>", root.XMLName.Local)
	}
	byFile := map[string]*testFile{}
	var order []string
	var walk func(s junitSuite, file string) error
	walk = func(s junitSuite, inherited string) error {
		suiteFile := inherited
		if s.File != "" {
			suiteFile = s.File
		} else if looksLikeFile(s.Name) {
			suiteFile = s.Name
		}
		for i, c := range s.Cases {
			file := c.File
			if file == "" {
				file = suiteFile
			}
			if file == "" && looksLikeFile(c.Classname) {
				file = c.Classname
			}
			if file == "" {
				return inputErr(source, 0, "testcase %q (suite %q, case %d) names no scenario file: give it a file attribute, or a suite named after the file", c.Name, s.Name, i)
			}
			t, err := junitTest(c)
			if err != nil {
				return inputErr(source, 0, "%s: testcase %q: %v", file, c.Name, err)
			}
			f := byFile[file]
			if f == nil {
				f = &testFile{path: file, origin: source}
				byFile[file] = f
				order = append(order, file)
			}
			f.tests = append(f.tests, t)
		}
		for _, child := range s.Suites {
			if err := walk(child, suiteFile); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root.junitSuite, ""); err != nil {
		return nil, nil, err
	}
	if len(order) == 0 {
		return nil, nil, inputErr(source, 0, "the JUnit report holds no test cases")
	}
	files := make([]testFile, len(order))
	for i, name := range order {
		files[i] = *byFile[name]
	}
	out, index := reportRows(files, source, opts)
	return out, index, nil
}

func junitTest(c junitCase) (testCase, error) {
	t := testCase{title: c.Name, status: statusPassed, rawStatus: "passed"}
	switch {
	case len(c.Failures) > 0 || len(c.Errors) > 0:
		t.status, t.rawStatus = statusFailed, "failed"
		for _, r := range append(append([]junitResult(nil), c.Failures...), c.Errors...) {
			msg := r.Message
			if strings.TrimSpace(msg) == "" {
				msg = r.Text
			}
			if t.message == "" {
				t.message = msg
			}
		}
	case c.Skipped != nil:
		t.status, t.rawStatus = statusSkipped, "skipped"
	}
	count := c.Assertions
	for _, p := range c.Properties {
		switch p.Name {
		case "assertionCount", "assertions":
			if count == "" {
				count = p.Value
			}
		case "requirementId":
			if p.Value != "" {
				t.ids = append(t.ids, p.Value)
			}
		}
	}
	if count != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(count), 10, 64)
		if err != nil || n < 0 {
			return t, fmt.Errorf("assertions %q is not a whole number 0 or more", count)
		}
		t.assertions = &n
	}
	return t, nil
}

func looksLikeFile(name string) bool {
	switch path.Ext(name) {
	case ".ts", ".js", ".mts", ".cts", ".mjs", ".cjs", ".tsx", ".jsx":
		return true
	}
	return false
}
