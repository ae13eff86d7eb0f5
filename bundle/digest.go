package bundle

import "slices"

// WitnessPreimage builds the value whose canonical form witnessSha256 digests
// (RFC 0148 §C as amended by suite 2.34.0, 2.35.0, RFC 0212 and RFC 0216), from the
// document root as stored:
//
//  1. results.requirements, stably sorted by id in UTF-16 code-unit order;
//  2. each row projected to id, scenario, result, and assertions, detail and evidence
//     only when present (a present null is kept); other members are dropped;
//  3. the bare rows array, unless host.relaxations is a non-empty array or
//     host.deployment is present: then {rows, relaxations?, deployment?}, the
//     relaxations as stored, in order.
//
// Rows that are not objects are projected as they are, so that a malformed row still
// digests deterministically (and, being malformed, differently from any good one).
func WitnessPreimage(root Value) Value {
	reqs, _ := root.Path("results", "requirements")
	rows := slices.Clone(reqs.Items())
	slices.SortStableFunc(rows, func(a, b Value) int {
		ida, _ := a.Get("id")
		idb, _ := b.Get("id")
		sa, _ := ida.Str()
		sb, _ := idb.Str()
		return CompareUTF16(sa, sb)
	})
	for i, r := range rows {
		if r.Kind() != Object {
			continue
		}
		proj := make([]Member, 0, 6)
		for _, name := range [...]string{"id", "scenario", "result", "assertions", "detail", "evidence"} {
			if v, ok := r.Get(name); ok {
				proj = append(proj, Member{name, v})
			}
		}
		rows[i] = ObjectValue(proj...)
	}
	rowsValue := ArrayValue(rows...)
	host, _ := root.Get("host")
	relax, hasRelax := host.Get("relaxations")
	hasRelax = hasRelax && relax.Kind() == Array && len(relax.Items()) > 0
	deployment, hasDeployment := host.Get("deployment")
	if !hasRelax && !hasDeployment {
		return rowsValue
	}
	wrapper := []Member{{"rows", rowsValue}}
	if hasRelax {
		wrapper = append(wrapper, Member{"relaxations", relax})
	}
	if hasDeployment {
		wrapper = append(wrapper, Member{"deployment", deployment})
	}
	return ObjectValue(wrapper...)
}

// WitnessDigest returns the lowercase hex SHA-256 of the canonical witness preimage
// of the document root. It writes the preimage's canonical form straight into the
// hash, without building the projected rows: the same bytes as
// CanonicalSHA256(WitnessPreimage(root)) (TestWitnessDigestStreams).
func WitnessDigest(root Value) (string, error) {
	reqs, _ := root.Path("results", "requirements")
	rows := reqs.Items()
	ids := make([]string, len(rows))
	order := make([]int32, len(rows))
	for i, r := range rows {
		id, _ := r.Get("id")
		ids[i], _ = id.Str()
		order[i] = int32(i)
	}
	// A stable sort by id: rows with equal ids keep their order. (SortStableFunc
	// would be, but it makes several times the comparisons.)
	slices.SortFunc(order, func(a, b int32) int {
		if c := CompareUTF16(ids[a], ids[b]); c != 0 {
			return c
		}
		return int(a) - int(b)
	})

	host, _ := root.Get("host")
	relax, hasRelax := host.Get("relaxations")
	hasRelax = hasRelax && relax.Kind() == Array && relax.Len() > 0
	deployment, hasDeployment := host.Get("deployment")
	wrapped := hasRelax || hasDeployment

	w, out := newHashWriter()
	var err error
	if wrapped {
		// {"deployment", "relaxations", "rows"}: the canonical order of the names.
		out = append(out, '{')
		if hasDeployment {
			out = append(out, `"deployment":`...)
			if out, err = w.value(out, deployment); err != nil {
				return "", err
			}
			out = append(out, ',')
		}
		if hasRelax {
			out = append(out, `"relaxations":`...)
			if out, err = w.value(out, relax); err != nil {
				return "", err
			}
			out = append(out, ',')
		}
		out = append(out, `"rows":`...)
	}
	out = append(out, '[')
	for i, idx := range order {
		if i > 0 {
			out = append(out, ',')
		}
		if out, err = w.projectedRow(out, rows[idx]); err != nil {
			return "", err
		}
	}
	out = append(out, ']')
	if wrapped {
		out = append(out, '}')
	}
	return w.sum(out), nil
}

// witnessMembers are the members a row keeps in the witness preimage, in canonical
// (UTF-16) order, each with the text that starts it.
var witnessMembers = [...]string{`"assertions":`, `"detail":`, `"evidence":`, `"id":`, `"result":`, `"scenario":`}

// witnessSlot returns the index in witnessMembers of a member a row keeps, and -1
// for one it drops.
func witnessSlot(name string) int {
	switch name {
	case "assertions":
		return 0
	case "detail":
		return 1
	case "evidence":
		return 2
	case "id":
		return 3
	case "result":
		return 4
	case "scenario":
		return 5
	}
	return -1
}

// projectedRow writes the canonical form of a row projected as WitnessPreimage
// projects it.
func (w *canonWriter) projectedRow(out []byte, r Value) ([]byte, error) {
	if r.Kind() != Object {
		return w.value(out, r)
	}
	// One pass over the members finds those kept; Get would take the first of
	// repeated names, and so does this.
	var kept [len(witnessMembers)]*Value
	members := r.Members()
	for i := range members {
		if slot := witnessSlot(members[i].Name); slot >= 0 && kept[slot] == nil {
			kept[slot] = &members[i].Value
		}
	}
	out = append(out, '{')
	first := true
	var err error
	for slot, v := range kept {
		if v == nil {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, witnessMembers[slot]...)
		if out, err = w.value(out, *v); err != nil {
			return out, err
		}
	}
	return w.flush(append(out, '}')), nil
}

// DiscoveryDigest returns the lowercase hex SHA-256 of the canonical form of a
// discovery document (the value discovery.sha256 must hold).
func DiscoveryDigest(doc Value) (string, error) {
	return CanonicalSHA256(doc)
}

// Attestation returns the bytes an Ed25519 signature covers: the canonical form of
// {"discovery.sha256", "host.build", "suite.version", "witnessSha256"} with each
// value taken as stored in the document root (the stored witnessSha256, not a
// recomputed one; the whole host.build object). A member the bundle lacks is left out,
// as JSON.stringify leaves out undefined; such a payload never matches a signature
// made over a complete bundle.
func Attestation(root Value) ([]byte, error) {
	var members []Member
	add := func(name string, path ...string) {
		if v, ok := root.Path(path...); ok {
			members = append(members, Member{name, v})
		}
	}
	add("witnessSha256", "witnessSha256")
	add("host.build", "host", "build")
	add("suite.version", "suite", "version")
	add("discovery.sha256", "discovery", "sha256")
	return Canonical(ObjectValue(members...))
}

// Attestation returns the bytes an Ed25519 signature over b covers: the same as
// Attestation(b.Value()), built from the four members alone rather than the whole
// document (TestBundleAttestation).
func (b *Bundle) Attestation() ([]byte, error) {
	return Attestation(ObjectValue(
		Member{"witnessSha256", StringValue(b.WitnessSha256)},
		Member{"host", ObjectValue(Member{"build", b.Host.Build.Value()})},
		Member{"suite", ObjectValue(Member{"version", StringValue(b.Suite.Version)})},
		Member{"discovery", ObjectValue(Member{"sha256", StringValue(b.Discovery.Sha256)})},
	))
}
