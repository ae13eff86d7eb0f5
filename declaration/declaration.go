// Package declaration reads what an OpenWOP spec repository declares about
// itself — the family declaration (spec/v2/declaration.json), the family
// records of the capabilities schema (schemas/v2/capabilities.schema.json), the
// extension READMEs' Status lines (spec/v2/ext/*/README.md) and the suite
// advisory list — and judges bundles against it: the maturity bound of RFC 0197
// §C.7 and the extension status rule of RFC 0220 §D/§E. It needs no CLI; the
// gate and the commands call it.
//
// Every file is read as a policy file: at most limitedfile.MaxPolicy bytes, a
// regular file, I-JSON (bundle.ParseIJSON: no duplicate names, no lone
// surrogates, no trailing data), and every member this package reads must have
// the JSON type it expects, else the reader returns an error naming the file and
// the member.
package declaration

import (
	"fmt"
	"sort"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// Technical maturity values of declaration.json's families[].maturity.technical.
const (
	TechnicalStable = "stable"
)

// Family is one entry of declaration.json's families.
type Family struct {
	Key    string `json:"key"`
	Anchor string `json:"anchor"`
	// Technical is maturity.technical; "" when the family has no maturity.
	Technical string `json:"technical,omitempty"`
	// HasMaturity says the family declares maturity at all.
	HasMaturity bool `json:"hasMaturity"`
}

// Declaration is spec/v2/declaration.json as far as the rules read it.
type Declaration struct {
	File     string
	Families []Family
	byKey    map[string]int
}

// Load reads a declaration file (see the package doc for how strictly).
func Load(path string) (*Declaration, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse reads a declaration. families may be an array of objects with a key
// (the published form) or an object keyed by family (as upstream also takes);
// a key listed twice is refused. name is the file, for messages.
func Parse(data []byte, name string) (*Declaration, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a declaration: %w", name, err)
	}
	if v.Kind() != bundle.Object {
		return nil, fmt.Errorf("%s: not a declaration: the top level must be an object", name)
	}
	fam, ok := v.Get("families")
	if !ok {
		return nil, fmt.Errorf("%s: not a declaration: no families member", name)
	}
	d := &Declaration{File: name, byKey: map[string]int{}}
	add := func(where, key string, f bundle.Value) error {
		if f.Kind() != bundle.Object {
			return fmt.Errorf("%s: %s must be an object", name, where)
		}
		if key == "" {
			k, ok := f.Get("key")
			s, isStr := k.Str()
			if !ok || !isStr || s == "" {
				return fmt.Errorf("%s: %s.key must be a non-empty string", name, where)
			}
			key = s
		}
		fm := Family{Key: key}
		if a, ok := f.Get("anchor"); ok {
			s, isStr := a.Str()
			if !isStr {
				return fmt.Errorf("%s: %s.anchor must be a string", name, where)
			}
			fm.Anchor = s
		}
		if m, ok := f.Get("maturity"); ok && !m.IsNull() {
			if m.Kind() != bundle.Object {
				return fmt.Errorf("%s: %s.maturity must be an object", name, where)
			}
			fm.HasMaturity = true
			if t, ok := m.Get("technical"); ok {
				s, isStr := t.Str()
				if !isStr {
					return fmt.Errorf("%s: %s.maturity.technical must be a string", name, where)
				}
				fm.Technical = s
			}
		}
		if j, dup := d.byKey[key]; dup {
			return fmt.Errorf("%s: %s: family %q is already declared (families entry %d)", name, where, key, j)
		}
		d.byKey[key] = len(d.Families)
		d.Families = append(d.Families, fm)
		return nil
	}
	switch fam.Kind() {
	case bundle.Array:
		for i, f := range fam.Items() {
			if err := add(fmt.Sprintf("families[%d]", i), "", f); err != nil {
				return nil, err
			}
		}
	case bundle.Object:
		for _, m := range fam.Members() {
			if err := add("families."+m.Name, m.Name, m.Value); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%s: families must be an array or an object", name)
	}
	return d, nil
}

// Family returns the declared family with the key.
func (d *Declaration) Family(key string) (Family, bool) {
	i, ok := d.byKey[key]
	if !ok {
		return Family{}, false
	}
	return d.Families[i], true
}

// Keys returns every declared family key, sorted.
func (d *Declaration) Keys() []string {
	out := make([]string, 0, len(d.Families))
	for _, f := range d.Families {
		out = append(out, f.Key)
	}
	sort.Strings(out)
	return out
}

// ExtFamilies returns the families anchored "ext" (RFC 0220), by key.
func (d *Declaration) ExtFamilies() map[string]Family {
	out := map[string]Family{}
	for _, f := range d.Families {
		if f.Anchor == "ext" {
			out[f.Key] = f
		}
	}
	return out
}

// Capabilities is the capabilities schema as far as the maturity bound reads
// it: the family-record keys.
type Capabilities struct {
	File string
	// FamilyKeys are the root properties whose schema requires status, since and
	// witness (RFC 0197 §C.7), sorted.
	FamilyKeys []string
}

// LoadCapabilities reads a capabilities schema (see the package doc).
func LoadCapabilities(path string) (*Capabilities, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	return ParseCapabilities(data, path)
}

// ParseCapabilities reads the family-record keys of a capabilities schema: each
// member of properties whose required array names status, since and witness.
func ParseCapabilities(data []byte, name string) (*Capabilities, error) {
	v, err := bundle.ParseIJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a capabilities schema: %w", name, err)
	}
	props, ok := v.Get("properties")
	if v.Kind() != bundle.Object || !ok || props.Kind() != bundle.Object {
		return nil, fmt.Errorf("%s: not a capabilities schema: properties must be an object", name)
	}
	c := &Capabilities{File: name}
	for _, m := range props.Members() {
		if m.Value.Kind() != bundle.Object {
			continue
		}
		req, ok := m.Value.Get("required")
		if !ok {
			continue
		}
		if req.Kind() != bundle.Array {
			return nil, fmt.Errorf("%s: properties.%s.required must be an array", name, m.Name)
		}
		need := map[string]bool{"status": true, "since": true, "witness": true}
		for _, r := range req.Items() {
			if s, ok := r.Str(); ok {
				delete(need, s)
			}
		}
		if len(need) == 0 {
			c.FamilyKeys = append(c.FamilyKeys, m.Name)
		}
	}
	sort.Strings(c.FamilyKeys)
	return c, nil
}
