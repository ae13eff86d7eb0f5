package declaration

import (
	"errors"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// CoherenceList is the list of corpus-coherence names whose ids must never
// appear in a host bundle, and where it came from.
type CoherenceList struct {
	Names []string `json:"names"`
	// Source says which list: "conformance/src/coherence/ of the repository",
	// "the repository's schema FILE", or "built-in".
	Source string `json:"source"`
}

var coherenceNameRE = lazyre.New(`^[a-z0-9][a-z0-9-]*$`)

// ReadCoherenceList reads the names from the spec repository at root: the
// .test.ts stems of conformance/src/coherence/ when that directory exists, else
// the lookahead of the row id pattern in schemas/v2/certification-bundle.schema.json,
// else certcut's built-in list (bundle.CoherenceIDs).
func ReadCoherenceList(root string) (CoherenceList, error) {
	dir := filepath.Join(root, "conformance", "src", "coherence")
	ents, err := os.ReadDir(dir)
	switch {
	case err == nil:
		var names []string
		for _, e := range ents {
			stem, ok := strings.CutSuffix(e.Name(), ".test.ts")
			if ok && !e.IsDir() && coherenceNameRE().MatchString(stem) {
				names = append(names, stem)
			}
		}
		sort.Strings(names)
		return CoherenceList{Names: names, Source: fmt.Sprintf("%s of the repository (%d)", dir, len(names))}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return CoherenceList{}, err
	}
	schema := filepath.Join(root, "schemas", "v2", "certification-bundle.schema.json")
	data, err := limitedfile.Read(schema, limitedfile.MaxPolicy)
	switch {
	case err == nil:
		names, err := coherenceFromSchema(data, schema)
		if err != nil {
			return CoherenceList{}, err
		}
		return CoherenceList{Names: names, Source: fmt.Sprintf("the repository's schema %s (%d)", schema, len(names))}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return CoherenceList{}, err
	}
	names := bundle.CoherenceIDs()
	return CoherenceList{Names: names, Source: fmt.Sprintf("built-in (%d)", len(names))}, nil
}

// coherenceFromSchema finds the string of the schema that holds the row id
// lookahead "(?!it\.(?:a|b|…)\.)" and returns its names.
func coherenceFromSchema(data []byte, name string) ([]string, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	const open, close = `(?!it\.(?:`, `)\.)`
	var found string
	var walk func(bundle.Value)
	walk = func(x bundle.Value) {
		switch x.Kind() {
		case bundle.String:
			if s, _ := x.Str(); found == "" && strings.Contains(s, open) {
				found = s
			}
		case bundle.Array:
			for _, it := range x.Items() {
				walk(it)
			}
		case bundle.Object:
			for _, m := range x.Members() {
				walk(m.Value)
			}
		}
	}
	walk(v)
	if found == "" {
		return nil, fmt.Errorf("%s: no row id pattern with a coherence lookahead %s…%s", name, open, close)
	}
	_, rest, _ := strings.Cut(found, open)
	list, _, ok := strings.Cut(rest, close)
	if !ok {
		return nil, fmt.Errorf("%s: the coherence lookahead is not closed", name)
	}
	names := strings.Split(list, "|")
	for _, n := range names {
		if !coherenceNameRE().MatchString(n) {
			return nil, fmt.Errorf("%s: coherence name %q is not a file stem", name, n)
		}
	}
	sort.Strings(names)
	return names, nil
}
