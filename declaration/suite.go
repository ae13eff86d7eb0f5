package declaration

import (
	_ "embed"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"strconv"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// builtinAdvisories is suite-advisories.json, the list as this release knows it.
//
//go:embed suite-advisories.json
var builtinAdvisories []byte

// Advisory is one range of suite releases known to produce wrong rows.
type Advisory struct {
	// From and To bound the range, inclusive: exact major.minor.patch versions.
	From    string `json:"from"`
	To      string `json:"to"`
	Problem string `json:"problem"`
	Source  string `json:"source"`
}

// Advisories is a suite advisory list.
type Advisories struct {
	Comment    string     `json:"$comment,omitempty"`
	Advisories []Advisory `json:"advisories"`
	// File is where the list was read ("built-in" for the embedded one).
	File string `json:"-"`
}

var semverRE = lazyre.New(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// ParseSuiteVersion reads an exact major.minor.patch version.
func ParseSuiteVersion(v string) ([3]int, bool) {
	m := semverRE().FindStringSubmatch(v)
	if m == nil {
		return [3]int{}, false
	}
	var out [3]int
	for i := range 3 {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return [3]int{}, false
		}
		out[i] = n
	}
	return out, true
}

func compareVersions(a, b [3]int) int {
	for i := range 3 {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ParseAdvisories reads an advisory list as strictly as a bundle
// (bundle.DecodeStrict: I-JSON, exact member names, no unknown member); every
// entry needs exact from and to versions, from ≤ to, and a problem. name is the
// file, for messages.
func ParseAdvisories(data []byte, name string) (*Advisories, error) {
	var a Advisories
	if err := bundle.DecodeStrict(data, &a); err != nil {
		return nil, fmt.Errorf("%s: not a suite advisory list: %w", name, err)
	}
	if a.Advisories == nil {
		return nil, fmt.Errorf("%s: not a suite advisory list: advisories is missing", name)
	}
	for i, x := range a.Advisories {
		from, ok1 := ParseSuiteVersion(x.From)
		to, ok2 := ParseSuiteVersion(x.To)
		switch {
		case !ok1 || !ok2:
			return nil, fmt.Errorf("%s: advisories[%d]: from %q and to %q must be major.minor.patch versions", name, i, x.From, x.To)
		case compareVersions(from, to) > 0:
			return nil, fmt.Errorf("%s: advisories[%d]: from %s is after to %s", name, i, x.From, x.To)
		case x.Problem == "":
			return nil, fmt.Errorf("%s: advisories[%d]: problem is empty", name, i)
		}
	}
	a.File = name
	return &a, nil
}

// LoadAdvisories reads an advisory list from a file; "" reads the built-in one.
func LoadAdvisories(path string) (*Advisories, error) {
	if path == "" {
		return ParseAdvisories(builtinAdvisories, "built-in")
	}
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return ParseAdvisories(data, path)
}

// BuiltinAdvisories returns the embedded list (it is valid: a test holds it so).
func BuiltinAdvisories() *Advisories {
	a, err := LoadAdvisories("")
	if err != nil {
		panic(err)
	}
	return a
}

// Match returns the advisory whose range holds the suite version; a version
// that is not an exact major.minor.patch matches none.
func (a *Advisories) Match(suite string) (Advisory, bool) {
	v, ok := ParseSuiteVersion(suite)
	if !ok || a == nil {
		return Advisory{}, false
	}
	for _, x := range a.Advisories {
		from, _ := ParseSuiteVersion(x.From)
		to, _ := ParseSuiteVersion(x.To)
		if compareVersions(from, v) <= 0 && compareVersions(v, to) <= 0 {
			return x, true
		}
	}
	return Advisory{}, false
}

// Note says what an advisory means for a bundle of that suite, in one sentence.
func (x Advisory) Note(suite string) string {
	return fmt.Sprintf("suite %s is in the advisory range %s–%s: %s (%s); its rows cannot be taken at their word", suite, x.From, x.To, x.Problem, x.Source)
}

// SuiteTags are the tags that publish a suite release (RFC 0224 §B.3 names
// both forms): v<version> and openwop-conformance/v<version>.
func SuiteTags(version string) []string {
	return []string{"v" + version, "openwop-conformance/v" + version}
}
