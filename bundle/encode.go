package bundle

import "unsafe"

// Value encodes the typed bundle as a document, members in the reference emitter's
// order (suite 2.44 and later): bundleVersion, generatedAt, suite, host, discovery,
// claimedProfiles, results, assertionCount, detail, durability, witnessSha256,
// signature, verifierSignature. Optional members are written only when set.
//
// A row or a detail.nonPass item that b.Raw holds at the same index, member for
// member identical to what b writes there, is taken from b.Raw instead of built
// again: a bundle being minted is encoded several times (sealed, signed, written)
// and builds its rows once. The document is the same either way.
func (b *Bundle) Value() Value {
	prevRows, _ := b.Raw.Path("results", "requirements")
	root := []Member{
		{"bundleVersion", StringValue(b.BundleVersion)},
		{"generatedAt", StringValue(b.GeneratedAt)},
		{"suite", b.Suite.value()},
		{"host", b.Host.value()},
		{"discovery", b.Discovery.value()},
		{"claimedProfiles", b.claimedProfilesValue()},
		{"results", b.Results.value(prevRows.Items())},
		{"assertionCount", IntValue(b.AssertionCount)},
	}
	if b.Detail != nil {
		prev, _ := b.Raw.Path("detail", "nonPass")
		root = append(root, Member{"detail", ObjectValue(Member{"nonPass", b.Detail.nonPassValue(prev.Items(), b.Results.Requirements)})})
	}
	if b.Durability != nil {
		root = append(root, Member{"durability", ObjectValue(Member{"rung", StringValue(b.Durability.Rung)})})
	}
	root = append(root, Member{"witnessSha256", StringValue(b.WitnessSha256)})
	if b.Signature != nil {
		root = append(root, Member{"signature", b.Signature.value()})
	}
	if b.VerifierSignature != nil {
		root = append(root, Member{"verifierSignature", b.VerifierSignature.value()})
	}
	return ObjectValue(root...)
}

func (s Suite) value() Value {
	m := []Member{
		{"name", StringValue(s.Name)},
		{"version", StringValue(s.Version)},
		{"targetMajor", IntValue(int64(s.TargetMajor))},
		{"specArtifactsVersion", StringValue(s.SpecArtifactsVersion)},
	}
	if s.StampSha256 != "" {
		m = append(m, Member{"stampSha256", StringValue(s.StampSha256)})
	}
	return ObjectValue(m...)
}

func (h Host) value() Value {
	m := []Member{
		{"name", StringValue(h.Name)},
		{"version", StringValue(h.Version)},
	}
	if h.Vendor != "" {
		m = append(m, Member{"vendor", StringValue(h.Vendor)})
	}
	m = append(m, Member{"build", h.Build.Value()})
	if h.SigningKeyID != "" {
		m = append(m, Member{"signingKeyId", StringValue(h.SigningKeyID)})
	}
	if len(h.Relaxations) > 0 {
		items := make([]Value, len(h.Relaxations))
		for i, r := range h.Relaxations {
			items[i] = r.Value()
		}
		m = append(m, Member{"relaxations", ArrayValue(items...)})
	}
	if h.Deployment != "" {
		m = append(m, Member{"deployment", StringValue(h.Deployment)})
	}
	return ObjectValue(m...)
}

// Value encodes the build as {kind, id}.
func (b Build) Value() Value {
	return ObjectValue(Member{"kind", StringValue(b.Kind)}, Member{"id", StringValue(b.ID)})
}

// Value encodes the relaxation as {obligation, durability, reason}.
func (r Relaxation) Value() Value {
	return ObjectValue(
		Member{"obligation", StringValue(r.Obligation)},
		Member{"durability", StringValue(r.Durability)},
		Member{"reason", StringValue(r.Reason)},
	)
}

func (d Discovery) value() Value {
	m := []Member{
		{"url", StringValue(d.URL)},
		{"sha256", StringValue(d.Sha256)},
		{"protocolVersions", StringsValue(d.ProtocolVersions)},
		{"preferredVersion", StringValue(d.PreferredVersion)},
	}
	if d.Document != nil {
		m = append(m, Member{"document", *d.Document})
	}
	return ObjectValue(m...)
}

func (b *Bundle) claimedProfilesValue() Value {
	items := make([]Value, len(b.ClaimedProfiles))
	for i, p := range b.ClaimedProfiles {
		items[i] = ObjectValue(
			Member{"id", StringValue(p.ID)},
			Member{"evidenceTier", StringValue(p.EvidenceTier)},
			Member{"witnessCount", IntValue(int64(p.WitnessCount))},
			Member{"certified", BoolValue(p.Certified)},
		)
	}
	return ArrayValue(items...)
}

// nonPassValue encodes detail.nonPass, taking each item identical to prev's at the
// same index from prev (and prev itself when every item is).
// An item built anew takes its strings from the row it stands for, when rows
// (in order, as seal lists them) hold the very same strings, so that strings read
// verbatim stay verbatim.
func (d *Detail) nonPassValue(prev []Value, rows []Row) Value {
	reuse := len(prev) == len(d.NonPass)
	var items []Value // made at the first item prev lacks
	var slab []Member
	next := 0 // the row after the last one an item was found in
	for i := range d.NonPass {
		np := &d.NonPass[i]
		if reuse && np.writtenAs(prev[i]) {
			if items != nil {
				items[i] = prev[i]
			}
			continue
		}
		if items == nil {
			items = make([]Value, len(d.NonPass))
			copy(items, prev[:i]) // prev[:i] were identical, or i is 0
			slab = make([]Member, 0, 3*(len(d.NonPass)-i))
		}
		start := len(slab)
		var row *Row
		for next < len(rows) && rows[next].Result == ExecutedPass {
			next++ // seal lists every other row
		}
		if next < len(rows) && sameString(rows[next].ID, np.ID) {
			row = &rows[next]
			next++
		}
		slab = np.appendMembers(slab, row)
		items[i] = ObjectValue(slab[start:len(slab):len(slab)]...)
	}
	if items == nil {
		items = []Value{}
		if reuse {
			items = prev
		}
	}
	return ArrayValue(items...)
}

// appendMembers appends the members of a detail.nonPass item: id, result, reason;
// each string is taken from the row's Raw value when that is the same string.
func (np *NonPass) appendMembers(m []Member, row *Row) []Member {
	var id, result, reason Value
	if row != nil {
		id, _ = row.Raw.Get("id")
		result, _ = row.Raw.Get("result")
		reason, _ = row.Raw.Get("detail")
	}
	return append(m, Member{"id", sameStringValue(np.ID, id)}, Member{"result", sameStringValue(np.Result, result)}, Member{"reason", sameStringValue(np.Reason, reason)})
}

// sameStringValue returns v when it is a string of the very bytes of s (so that
// it keeps its verbatim flag), and s as a new Value otherwise.
func sameStringValue(s string, v Value) Value {
	if v.kind == String && sameString(v.str(), s) {
		return v
	}
	return StringValue(s)
}

// sameString reports whether a and b are the same bytes in memory.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// writtenAs reports whether v is identical to the item appendMembers writes.
func (np *NonPass) writtenAs(v Value) bool {
	if v.kind != Object || v.n != 3 {
		return false
	}
	m := v.Members()
	return m[0].Name == "id" && m[0].Value.isString(np.ID) &&
		m[1].Name == "result" && m[1].Value.isString(np.Result) &&
		m[2].Name == "reason" && m[2].Value.isString(np.Reason)
}

// identical reports whether a and b are written alike, by Indent as by Canonical:
// the same kind, the same string, the same number bits, items identical in order
// and members with the same names, identical values, in the same order (Equal
// ignores member order, and takes 0 and -0 for one number).
func identical(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Bool:
		return (a.n != 0) == (b.n != 0)
	case Number:
		return a.n == b.n
	case String:
		return a.str() == b.str() // equal pointers compare at once
	case Array:
		ai, bi := a.Items(), b.Items()
		if len(ai) != len(bi) {
			return false
		}
		for i := range ai {
			if !identical(ai[i], bi[i]) {
				return false
			}
		}
		return true
	case Object:
		return identicalMembers(a.Members(), b)
	}
	return true // null
}

// identicalMembers reports whether b is an object whose members are identical to m,
// in order.
func identicalMembers(m []Member, b Value) bool {
	if b.kind != Object || len(m) != int(b.n) {
		return false
	}
	bm := b.Members()
	for i := range m {
		if m[i].Name != bm[i].Name || !identical(m[i].Value, bm[i].Value) {
			return false
		}
	}
	return true
}

// value encodes the result set; a row identical to prev's at the same index is
// taken from prev (see Bundle.Value).
func (r ResultSet) value(prev []Value) Value {
	t := r.Totals
	totals := ObjectValue(
		Member{"executedPass", IntValue(int64(t.ExecutedPass))},
		Member{"executedFail", IntValue(int64(t.ExecutedFail))},
		Member{"skipped", IntValue(int64(t.Skipped))},
		Member{"inapplicable", IntValue(int64(t.Inapplicable))},
		Member{"blocked", IntValue(int64(t.Blocked))},
	)
	reuse := len(prev) == len(r.Requirements)
	var rows []Value // made at the first row prev lacks
	n := 0           // members of the rows to build
	for i := range r.Requirements {
		row := &r.Requirements[i]
		if reuse && row.writtenAs(prev[i]) {
			if rows != nil {
				rows[i] = prev[i]
			}
			continue
		}
		if rows == nil {
			rows = make([]Value, len(r.Requirements))
			if reuse {
				copy(rows, prev[:i]) // identical
			}
		}
		if row.writtenAs(row.Raw) { // the row as it was read, when it is what would be built
			rows[i] = row.Raw
			continue
		}
		n += row.memberCount()
	}
	if rows == nil {
		rows = []Value{}
		if reuse {
			rows = prev // every row is prev's: prev is never written to below
		}
	}
	// One slab for the members of every row built: a row is a handful of members.
	slab := make([]Member, 0, n)
	for i := range r.Requirements {
		if rows[i].kind == Object {
			continue // taken from prev or the row's Raw
		}
		start := len(slab)
		slab = r.Requirements[i].appendMembers(slab)
		rows[i] = ObjectValue(slab[start:len(slab):len(slab)]...)
	}
	return ObjectValue(Member{"totals", totals}, Member{"requirements", ArrayValue(rows...)})
}

// Value encodes the row as {id, scenario, result, assertions?, detail?, evidence?}.
func (r Row) Value() Value {
	return ObjectValue(r.appendMembers(make([]Member, 0, r.memberCount()))...)
}

// memberCount is how many members Value writes.
func (r *Row) memberCount() int {
	n := 3
	if r.Assertions != nil {
		n++
	}
	if r.Detail != nil {
		n++
	}
	if r.Evidence != nil {
		n++
	}
	return n
}

// appendMembers appends the members Value writes, in order.
func (r *Row) appendMembers(m []Member) []Member {
	m = append(m,
		Member{"id", StringValue(r.ID)},
		Member{"scenario", StringValue(r.Scenario)},
		Member{"result", StringValue(r.Result)},
	)
	if r.Assertions != nil {
		m = append(m, Member{"assertions", IntValue(*r.Assertions)})
	}
	if r.Detail != nil {
		m = append(m, Member{"detail", StringValue(*r.Detail)})
	}
	if r.Evidence != nil {
		m = append(m, Member{"evidence", r.Evidence.Value()})
	}
	return m
}

// writtenAs reports whether v is identical to what Value writes for r: the
// members appendMembers appends, compared where they stand without building
// them (TestRowWrittenAs holds the two to each other).
func (r *Row) writtenAs(v Value) bool {
	if v.kind != Object || int(v.n) != r.memberCount() {
		return false
	}
	m := v.Members()
	if m[0].Name != "id" || !m[0].Value.isString(r.ID) ||
		m[1].Name != "scenario" || !m[1].Value.isString(r.Scenario) ||
		m[2].Name != "result" || !m[2].Value.isString(r.Result) {
		return false
	}
	m = m[3:]
	if r.Assertions != nil {
		if m[0].Name != "assertions" || m[0].Value.kind != Number || m[0].Value.n != IntValue(*r.Assertions).n {
			return false
		}
		m = m[1:]
	}
	if r.Detail != nil {
		if m[0].Name != "detail" || !m[0].Value.isString(*r.Detail) {
			return false
		}
		m = m[1:]
	}
	if r.Evidence != nil {
		return m[0].Name == "evidence" && identical(m[0].Value, r.Evidence.Value())
	}
	return true
}

// isString reports whether v is the string s.
func (v Value) isString(s string) bool {
	return v.kind == String && int(v.n) == len(s) && (v.ptr == unsafe.Pointer(unsafe.StringData(s)) || v.str() == s)
}

// Value encodes row evidence with the members that are set.
func (e Evidence) Value() Value {
	var m []Member
	if e.Recovery != nil {
		m = append(m, Member{"recovery", ObjectValue(
			Member{"class", StringValue(e.Recovery.Class)},
			Member{"boundMs", IntValue(e.Recovery.BoundMs)},
			Member{"observedMs", IntValue(e.Recovery.ObservedMs)},
		)})
	}
	if e.RecoveryBounds != nil {
		items := make([]Value, len(e.RecoveryBounds))
		for i, rb := range e.RecoveryBounds {
			terms := make([]Value, len(rb.Terms))
			for j, t := range rb.Terms {
				terms[j] = ObjectValue(Member{"name", StringValue(t.Name)}, Member{"ms", IntValue(t.Ms)})
			}
			items[i] = ObjectValue(
				Member{"class", StringValue(rb.Class)},
				Member{"bound", IntValue(rb.Bound)},
				Member{"terms", ArrayValue(terms...)},
			)
		}
		m = append(m, Member{"recoveryBounds", ArrayValue(items...)})
	}
	return ObjectValue(m...)
}

func (s Signature) value() Value {
	m := []Member{
		{"alg", StringValue(s.Alg)},
		{"keyId", StringValue(s.KeyID)},
		{"sig", StringValue(s.Sig)},
	}
	if s.Over != nil {
		m = append(m, Member{"over", StringsValue(s.Over)})
	}
	return ObjectValue(m...)
}
