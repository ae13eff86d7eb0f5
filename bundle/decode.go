package bundle

import (
	"fmt"
	"strconv"
	"strings"
)

// Problem is a member of the document that does not have the type or presence the
// format requires, named by its JSON pointer (RFC 6901).
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	// Missing: the member at Pointer is required and absent. Callers that
	// must tell that problem apart read it, never Message. Not in the JSON form.
	Missing bool `json:"-"`
}

func (p Problem) String() string { return p.Pointer + ": " + p.Message }

// Parse reads a bundle file: the strict I-JSON reader, then the typed view.
// A *SyntaxError means the text is not I-JSON. Otherwise the Bundle is returned
// with the problems found while decoding it (wrong types, missing members), which
// the caller judges; the typed fields of a problem member hold their zero value.
func Parse(data []byte) (*Bundle, []Problem, error) {
	v, err := ParseIJSON(data)
	if err != nil {
		return nil, nil, err
	}
	b, problems := Decode(v)
	return b, problems, nil
}

// Decode builds the typed view of a parsed document. It never fails: what it cannot
// decode it reports as a Problem and leaves at the zero value.
func Decode(root Value) (*Bundle, []Problem) {
	d := &decoder{}
	b := &Bundle{Raw: root}
	if root.Kind() != Object {
		d.add("", "a bundle is a JSON object, this is %s", article(root.Kind()))
		return b, d.problems
	}
	b.BundleVersion = d.str(root, "", "bundleVersion", true)
	b.GeneratedAt = d.str(root, "", "generatedAt", true)
	if v, ok := d.object(root, "", "suite", true); ok {
		b.Suite = Suite{
			Name:                 d.str(v, "/suite", "name", true),
			Version:              d.str(v, "/suite", "version", true),
			TargetMajor:          int(d.integer(v, "/suite", "targetMajor", true)),
			SpecArtifactsVersion: d.str(v, "/suite", "specArtifactsVersion", true),
			StampSha256:          d.str(v, "/suite", "stampSha256", false),
		}
	}
	if v, ok := d.object(root, "", "host", true); ok {
		b.Host = Host{
			Name:         d.str(v, "/host", "name", true),
			Version:      d.str(v, "/host", "version", true),
			Vendor:       d.str(v, "/host", "vendor", false),
			SigningKeyID: d.str(v, "/host", "signingKeyId", false),
			Deployment:   d.str(v, "/host", "deployment", false),
		}
		if bv, ok := d.object(v, "/host", "build", true); ok {
			b.Host.Build = Build{Kind: d.str(bv, "/host/build", "kind", true), ID: d.str(bv, "/host/build", "id", true)}
		}
		d.each(v, "/host", "relaxations", false, func(item Value, ptr string) {
			if d.isObject(item, ptr) {
				b.Host.Relaxations = append(b.Host.Relaxations, Relaxation{
					Obligation: d.str(item, ptr, "obligation", true),
					Durability: d.str(item, ptr, "durability", true),
					Reason:     d.str(item, ptr, "reason", true),
				})
			}
		})
	}
	if v, ok := d.object(root, "", "discovery", true); ok {
		b.Discovery = Discovery{
			URL:              d.str(v, "/discovery", "url", true),
			Sha256:           d.str(v, "/discovery", "sha256", true),
			ProtocolVersions: d.strs(v, "/discovery", "protocolVersions", true),
			PreferredVersion: d.str(v, "/discovery", "preferredVersion", true),
		}
		if doc, ok := d.object(v, "/discovery", "document", false); ok {
			b.Discovery.Document = &doc
		}
	}
	d.each(root, "", "claimedProfiles", true, func(item Value, ptr string) {
		if d.isObject(item, ptr) {
			b.ClaimedProfiles = append(b.ClaimedProfiles, ClaimedProfile{
				ID:           d.str(item, ptr, "id", true),
				EvidenceTier: d.str(item, ptr, "evidenceTier", true),
				WitnessCount: int(d.integer(item, ptr, "witnessCount", true)),
				Certified:    d.boolean(item, ptr, "certified", true),
			})
		}
	})
	if v, ok := d.object(root, "", "results", true); ok {
		if t, ok := d.object(v, "/results", "totals", true); ok {
			b.Results.Totals = Totals{
				ExecutedPass: int(d.integer(t, "/results/totals", "executedPass", true)),
				ExecutedFail: int(d.integer(t, "/results/totals", "executedFail", true)),
				Skipped:      int(d.integer(t, "/results/totals", "skipped", true)),
				Inapplicable: int(d.integer(t, "/results/totals", "inapplicable", true)),
				Blocked:      int(d.integer(t, "/results/totals", "blocked", true)),
			}
		}
		if reqs, ok := v.Get("requirements"); ok && reqs.Kind() == Array {
			n := reqs.Len()
			b.Results.Requirements = make([]Row, 0, n)
			d.ints = make([]int64, 0, n)
			d.texts = make([]string, 0, n/4)
		}
		d.each(v, "/results", "requirements", true, func(item Value, ptr string) {
			b.Results.Requirements = append(b.Results.Requirements, d.row(item, ptr))
		})
	}
	b.WitnessSha256 = d.str(root, "", "witnessSha256", true)
	b.AssertionCount = d.integer(root, "", "assertionCount", true)
	if v, ok := d.object(root, "", "detail", false); ok {
		b.Detail = &Detail{NonPass: []NonPass{}}
		d.each(v, "/detail", "nonPass", true, func(item Value, ptr string) {
			if d.isObject(item, ptr) {
				b.Detail.NonPass = append(b.Detail.NonPass, NonPass{
					ID:     d.str(item, ptr, "id", true),
					Result: d.str(item, ptr, "result", true),
					Reason: d.str(item, ptr, "reason", true),
				})
			}
		})
	}
	if v, ok := d.object(root, "", "durability", false); ok {
		b.Durability = &Durability{Rung: d.str(v, "/durability", "rung", true)}
	}
	if v, ok := d.object(root, "", "signature", true); ok {
		b.Signature = d.signature(v, "/signature")
		b.Signature.Over = d.strs(v, "/signature", "over", true)
	}
	if v, ok := d.object(root, "", "verifierSignature", false); ok {
		b.VerifierSignature = d.signature(v, "/verifierSignature")
	}
	return b, d.problems
}

type decoder struct {
	problems []Problem

	// Slabs for the rows' optional members: one allocation for many rows.
	ints  []int64
	texts []string
}

// intPtr returns a pointer to a copy of n, taken from the slab.
func (d *decoder) intPtr(n int64) *int64 {
	if len(d.ints) == cap(d.ints) {
		d.ints = make([]int64, 0, 64)
	}
	d.ints = append(d.ints, n)
	return &d.ints[len(d.ints)-1]
}

// strPtr returns a pointer to a copy of s, taken from the slab.
func (d *decoder) strPtr(s string) *string {
	if len(d.texts) == cap(d.texts) {
		d.texts = make([]string, 0, 64)
	}
	d.texts = append(d.texts, s)
	return &d.texts[len(d.texts)-1]
}

func (d *decoder) add(ptr, format string, args ...any) {
	d.problems = append(d.problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func article(k Kind) string {
	switch k {
	case Null:
		return "null"
	case Array, Object:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// member looks name up in obj, reporting a missing required member.
func (d *decoder) member(obj Value, ptr, name string, required bool) (Value, bool) {
	v, ok := obj.Get(name)
	if !ok && required {
		d.problems = append(d.problems, Problem{Pointer: ptr + "/" + name, Message: "required member is missing", Missing: true})
	}
	return v, ok
}

func (d *decoder) wrongType(ptr string, want string, got Value) {
	d.add(ptr, "must be %s, is %s", want, article(got.Kind()))
}

func (d *decoder) str(obj Value, ptr, name string, required bool) string {
	v, ok := d.member(obj, ptr, name, required)
	if !ok {
		return ""
	}
	s, ok := v.Str()
	if !ok {
		d.wrongType(ptr+"/"+name, "a string", v)
	}
	return s
}

func (d *decoder) integer(obj Value, ptr, name string, required bool) int64 {
	v, ok := d.member(obj, ptr, name, required)
	if !ok {
		return 0
	}
	n, ok := v.Int()
	if !ok {
		if f, isNum := v.Float(); isNum {
			d.add(ptr+"/"+name, "must be an integer, is %v", f)
		} else {
			d.wrongType(ptr+"/"+name, "an integer", v)
		}
	}
	return n
}

func (d *decoder) boolean(obj Value, ptr, name string, required bool) bool {
	v, ok := d.member(obj, ptr, name, required)
	if !ok {
		return false
	}
	b, ok := v.Bool()
	if !ok {
		d.wrongType(ptr+"/"+name, "a boolean", v)
	}
	return b
}

func (d *decoder) isObject(v Value, ptr string) bool {
	if v.Kind() != Object {
		d.wrongType(ptr, "an object", v)
		return false
	}
	return true
}

func (d *decoder) object(obj Value, ptr, name string, required bool) (Value, bool) {
	v, ok := d.member(obj, ptr, name, required)
	if !ok || !d.isObject(v, ptr+"/"+name) {
		return Value{}, false
	}
	return v, true
}

// each calls f for every item of the array member name, with the item's pointer.
func (d *decoder) each(obj Value, ptr, name string, required bool, f func(item Value, ptr string)) {
	v, ok := d.member(obj, ptr, name, required)
	if !ok {
		return
	}
	if v.Kind() != Array {
		d.wrongType(ptr+"/"+name, "an array", v)
		return
	}
	for i, item := range v.Items() {
		f(item, ptr+"/"+name+"/"+strconv.Itoa(i))
	}
}

func (d *decoder) strs(obj Value, ptr, name string, required bool) []string {
	var out []string
	d.each(obj, ptr, name, required, func(item Value, p string) {
		s, ok := item.Str()
		if !ok {
			d.wrongType(p, "a string", item)
		}
		out = append(out, s)
	})
	return out
}

func (d *decoder) signature(v Value, ptr string) *Signature {
	return &Signature{
		Alg:   d.str(v, ptr, "alg", true),
		KeyID: d.str(v, ptr, "keyId", true),
		Sig:   d.str(v, ptr, "sig", true),
	}
}

func (d *decoder) row(item Value, ptr string) Row {
	r := Row{Raw: item}
	if !d.isObject(item, ptr) {
		return r
	}
	r.ID = d.str(item, ptr, "id", true)
	r.Scenario = d.str(item, ptr, "scenario", true)
	r.Result = d.str(item, ptr, "result", true)
	if r.Result != "" && !ValidResult(r.Result) {
		d.add(ptr+"/result", "%q is not one of %s", r.Result, strings.Join(Results, ", "))
	}
	if item.Has("assertions") {
		r.Assertions = d.intPtr(d.integer(item, ptr, "assertions", false))
	}
	if item.Has("detail") {
		r.Detail = d.strPtr(d.str(item, ptr, "detail", false))
	}
	if ev, ok := d.object(item, ptr, "evidence", false); ok {
		r.Evidence = d.evidence(ev, ptr+"/evidence")
	}
	return r
}

func (d *decoder) evidence(v Value, ptr string) *Evidence {
	e := &Evidence{}
	if rv, ok := d.object(v, ptr, "recovery", false); ok {
		e.Recovery = &Recovery{
			Class:      d.str(rv, ptr+"/recovery", "class", true),
			BoundMs:    d.integer(rv, ptr+"/recovery", "boundMs", true),
			ObservedMs: d.integer(rv, ptr+"/recovery", "observedMs", true),
		}
	}
	d.each(v, ptr, "recoveryBounds", false, func(item Value, p string) {
		if !d.isObject(item, p) {
			return
		}
		rb := RecoveryBound{Class: d.str(item, p, "class", true), Bound: d.integer(item, p, "bound", true), Terms: []BoundTerm{}}
		d.each(item, p, "terms", true, func(t Value, tp string) {
			if d.isObject(t, tp) {
				rb.Terms = append(rb.Terms, BoundTerm{Name: d.str(t, tp, "name", true), Ms: d.integer(t, tp, "ms", true)})
			}
		})
		e.RecoveryBounds = append(e.RecoveryBounds, rb)
	})
	return e
}

// DecodeRow builds the typed view of one requirement row, as Decode does for each
// item of results.requirements; ptr names the row in problems. To decode many
// rows, a RowDecoder shares its allocations among them.
func DecodeRow(item Value, ptr string) (Row, []Problem) {
	var rd RowDecoder
	return rd.Decode(item, ptr)
}

// RowDecoder decodes rows one after another as DecodeRow does, taking the rows'
// optional members from shared slabs (one allocation for many rows). The zero
// value is ready to use; it is not safe for concurrent use.
type RowDecoder struct{ d decoder }

// Decode builds the typed view of one requirement row and the problems found in
// it (only this row's: each call starts a new list).
func (rd *RowDecoder) Decode(item Value, ptr string) (Row, []Problem) {
	rd.d.problems = nil
	r := rd.d.row(item, ptr)
	return r, rd.d.problems
}
