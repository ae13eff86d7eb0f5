package bundle

// Value encodes the typed bundle as a document, members in the reference emitter's
// order (suite 2.44 and later): bundleVersion, generatedAt, suite, host, discovery,
// claimedProfiles, results, assertionCount, detail, durability, witnessSha256,
// signature, verifierSignature. Optional members are written only when set.
func (b *Bundle) Value() Value {
	root := []Member{
		{"bundleVersion", StringValue(b.BundleVersion)},
		{"generatedAt", StringValue(b.GeneratedAt)},
		{"suite", b.Suite.value()},
		{"host", b.Host.value()},
		{"discovery", b.Discovery.value()},
		{"claimedProfiles", b.claimedProfilesValue()},
		{"results", b.Results.value()},
		{"assertionCount", IntValue(b.AssertionCount)},
	}
	if b.Detail != nil {
		items := make([]Value, len(b.Detail.NonPass))
		for i, np := range b.Detail.NonPass {
			items[i] = ObjectValue(
				Member{"id", StringValue(np.ID)},
				Member{"result", StringValue(np.Result)},
				Member{"reason", StringValue(np.Reason)},
			)
		}
		root = append(root, Member{"detail", ObjectValue(Member{"nonPass", ArrayValue(items...)})})
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

func (r ResultSet) value() Value {
	t := r.Totals
	totals := ObjectValue(
		Member{"executedPass", IntValue(int64(t.ExecutedPass))},
		Member{"executedFail", IntValue(int64(t.ExecutedFail))},
		Member{"skipped", IntValue(int64(t.Skipped))},
		Member{"inapplicable", IntValue(int64(t.Inapplicable))},
		Member{"blocked", IntValue(int64(t.Blocked))},
	)
	// One slab for every row's members: a bundle is built several times while it
	// is minted, and a row is a handful of members.
	n := 0
	for i := range r.Requirements {
		n += r.Requirements[i].memberCount()
	}
	slab := make([]Member, 0, n)
	rows := make([]Value, len(r.Requirements))
	for i := range r.Requirements {
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
