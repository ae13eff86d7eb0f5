package gate

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/tiers"
	"github.com/certcut/certcut/timestamp"
)

// What each policy file is, as gate flips names it.
const (
	policyKeyring  = "the keyring"
	policyTiers    = "the host-tier table"
	policyAnchors  = "the harness-trust-anchor list"
	policyLedger   = "the corpus ledger, an unsigned file"
	policyTSA      = "a --tsa-cert file"
	policyRegistry = "the profile registry"
	policyHostKey  = "a --host-key file"
	policyVerifier = "a --verifier-key file"
	// The spec's declarations: what the maturity bound, the extension rule and
	// the suite checks of a witness read.
	policyDeclaration  = "the family declaration"
	policyCapabilities = "the capabilities schema"
	policyAdvisories   = "the suite advisory list"
)

// flipsPolicy is what gate flips trusts of the policy files inside the work
// tree: each read at the base revision and at the head, the stricter of the
// two (stricterPolicy). A nil field means the file is the same on both sides,
// or lies outside the work tree, and is read as the caller gave it.
type flipsPolicy struct {
	// tsa maps each --tsa-cert file inside the work tree to its git path, and
	// keyFiles each --host-key or --verifier-key PEM file inside it.
	tsa, keyFiles map[string]string
	tiers         *tiers.File
	ledger        *Ledger
	anchors       *Anchors
	// set says which of tiers, ledger and anchors replace what Open reads
	// (a nil value then means the file is absent on one side).
	set map[string]bool
}

// registerPolicy names the policy files inside the work tree whose top is top:
// the keyring, the host-tier table, the harness-trust-anchor list, the corpus
// ledger, the family declaration, the capabilities schema, a suite advisory
// list, every --tsa-cert file and a --registry file. An edit to any of them
// beside a flip is BLOCKED (checkPolicy), and each is read at the base and the
// head (stricterPolicy).
func (f *flipsRun) registerPolicy(top string) {
	f.strict = &flipsPolicy{tsa: map[string]string{}, keyFiles: map[string]string{}, set: map[string]bool{}}
	ledger := f.cfg.LedgerFile
	if ledger == "" {
		ledger = filepath.Join(f.cfg.Root, "evidence", "corpus-ledger.json")
	}
	for what, p := range map[string]string{policyKeyring: f.cfg.KeyringPath, policyTiers: f.cfg.TiersFile, policyAnchors: f.cfg.AnchorsFile, policyLedger: ledger,
		policyDeclaration: f.cfg.DeclarationFile, policyCapabilities: f.cfg.CapabilitiesFile, policyAdvisories: f.cfg.SuiteAdvisoriesFile} {
		if p == "" {
			continue // no --suite-advisories file: the built-in list
		}
		if gp, ok := gitPathOf(top, p); ok {
			f.policy[gp] = what
		}
	}
	if f.cfg.Loader == nil {
		return
	}
	opts := f.cfg.Loader.Options
	if opts.Keyring != nil && opts.Keyring.Path != "" && f.cfg.KeyringPath == "" {
		if gp, ok := gitPathOf(top, opts.Keyring.Path); ok {
			f.policy[gp] = policyKeyring
		}
	}
	if opts.TSA != nil {
		for _, p := range opts.TSA.Files {
			if gp, ok := gitPathOf(top, p); ok {
				f.policy[gp] = policyTSA
				f.strict.tsa[p] = gp
			}
		}
	}
	for what, set := range map[string]keys.Set{policyHostKey: opts.HostKeys, policyVerifier: opts.VerifierKeys} {
		for _, k := range set {
			if k.Source != keys.SourcePEMFile || k.Origin == "" {
				continue
			}
			if gp, ok := gitPathOf(top, k.Origin); ok {
				f.policy[gp] = what
				f.strict.keyFiles[k.Origin] = gp
			}
		}
	}
	if r := opts.Registry; r != nil && r.Source != "" && r.Source != profiles.Default().Source {
		if gp, ok := gitPathOf(top, r.Source); ok {
			f.policy[gp] = policyRegistry
		}
	}
}

// stricterPolicy reads every policy file at the base revision (Base's commit,
// the reviewed branch as it is now, not the merge base) and at the head, and
// trusts the stricter of the two, so a key revoked on the base after the branch
// was cut is revoked here even when CI checks out the head alone, and an edit
// the change makes loosens nothing:
//
//   - keyring: a key is pinned only when both pin it (same id, algorithm, use
//     and public key); revoked when either revokes it (the earlier date), a key
//     one side revokes stays revoked even when the other does not pin it;
//     retired at the earlier retirement; valid from the later notBefore; bound
//     to the origins both pin.
//   - --tsa-cert files: a certificate is trusted only when the file holds it on
//     both sides; a file absent at the base trusts nothing.
//   - host-tier table: an origin is listed only when both list it, at the lower
//     of its two tiers (a tier qualifies when it is --min-tier or higher).
//   - harness-trust-anchor list: a row is listed only when both list its id.
//   - corpus ledger: an id is executed-pass only when both record it so; the
//     other results of both are kept.
//   - profile registry: the base's (a registry has no order of strictness);
//     the embedded one when the base has none.
//   - --host-key and --verifier-key PEM files: a key is trusted only when the
//     base holds the same key in the same file.
//   - the family declaration, the capabilities schema and a suite advisory
//     list: no order of strictness; an edit beside a flip is BLOCKED
//     (checkPolicy), so a flip is judged under the files the base has.
//
// A policy file that cannot be parsed at the base is an *InputError.
func (f *flipsRun) stricterPolicy() error {
	if len(f.policy) == 0 {
		return nil
	}
	base, head := f.rep.Base.Commit, f.rep.Head.Commit
	var paths, specs []string
	for gp := range f.policy {
		paths = append(paths, gp)
	}
	sort.Strings(paths)
	for _, gp := range paths {
		specs = append(specs, base+":"+gp, head+":"+gp)
	}
	blobs, err := f.g.blobs(specs)
	if err != nil {
		return &InputError{Err: err}
	}
	side := map[string][2][]byte{}
	for i, gp := range paths {
		side[gp] = [2][]byte{blobs[2*i], blobs[2*i+1]}
	}
	var loosened []string
	baseName := func(gp string) string { return short(base) + ":" + strings.TrimPrefix(gp, f.prefix) }
	differs := func(gp string) bool {
		s := side[gp]
		if s[0] == nil && s[1] == nil {
			return false // absent on both sides: nothing to choose
		}
		return s[0] == nil || !bytes.Equal(s[0], s[1])
	}
	note := func(gp, what string) {
		loosened = append(loosened, fmt.Sprintf("%s (%s)", f.toDisk(gp), what))
	}
	gpOf := func(what string) string {
		for gp, w := range f.policy {
			if w == what {
				return gp
			}
		}
		return ""
	}
	if f.cfg.Loader == nil {
		f.cfg.Loader = &Loader{}
	}
	opts := f.cfg.Loader.Options
	changedOpts := false

	if gp := gpOf(policyKeyring); gp != "" && opts.Keyring != nil && differs(gp) {
		baseRing := keys.NewKeyring()
		if d := side[gp][0]; d != nil {
			if baseRing, err = keys.ParseKeyring(d); err != nil {
				return &InputError{Err: fmt.Errorf("the keyring at the base, %s: %w", baseName(gp), err)}
			}
		}
		merged, err := stricterKeyring(baseRing, opts.Keyring)
		if err != nil {
			return &InputError{Err: fmt.Errorf("the keyring at the base %s and at the head: %w", short(base), err)}
		}
		opts.Keyring, changedOpts = merged, true
		note(gp, policyKeyring)
	}

	if opts.TSA != nil && len(f.strict.tsa) > 0 {
		var certs []*timestamp.Trust
		var files []string
		changed := false
		for _, p := range opts.TSA.Files {
			gp, inTree := f.strict.tsa[p]
			var t *timestamp.Trust
			switch {
			case !inTree:
				if t, err = timestamp.LoadTrust(p); err != nil {
					return &InputError{Err: fmt.Errorf("--tsa-cert: %w", err)}
				}
			case !differs(gp):
				if t, err = timestamp.ParseTrust(p, side[gp][1]); err != nil {
					return &InputError{Err: fmt.Errorf("--tsa-cert: %w", err)}
				}
			default:
				changed = true
				note(gp, policyTSA)
				t = timestamp.NewTrust()
				if d := side[gp][0]; d != nil {
					bt, err := timestamp.ParseTrust(baseName(gp), d)
					if err != nil {
						return &InputError{Err: fmt.Errorf("--tsa-cert at the base: %w", err)}
					}
					var ht *timestamp.Trust
					if h := side[gp][1]; h != nil {
						if ht, err = timestamp.ParseTrust(p, h); err != nil {
							return &InputError{Err: fmt.Errorf("--tsa-cert: %w", err)}
						}
					}
					var kept []*x509.Certificate
					for _, c := range bt.Certificates() {
						if slices.ContainsFunc(ht.Certificates(), func(hc *x509.Certificate) bool { return bytes.Equal(c.Raw, hc.Raw) }) {
							kept = append(kept, c)
						}
					}
					t = timestamp.NewTrust(kept...)
				}
			}
			certs = append(certs, t)
			files = append(files, p)
		}
		if changed {
			var kept []*x509.Certificate
			for _, t := range certs {
				kept = append(kept, t.Certificates()...)
			}
			all := timestamp.NewTrust(kept...)
			all.Files = files
			opts.TSA, changedOpts = all, true
		}
	}

	if len(f.strict.keyFiles) > 0 {
		// A key file is trusted only when the base holds the same key in it.
		keep := func(set keys.Set) (keys.Set, bool) {
			var out keys.Set
			dropped := false
			for _, k := range set {
				if gp, inTree := f.strict.keyFiles[k.Origin]; inTree && k.Source == keys.SourcePEMFile && differs(gp) {
					if pub, err := keys.ParsePublicPEM(side[gp][0]); side[gp][0] == nil || err != nil || !pub.Equal(k.Key) {
						dropped = true
						note(gp, f.policy[gp])
						continue
					}
				}
				out = append(out, k)
			}
			return out, dropped
		}
		var dh, dv bool
		opts.HostKeys, dh = keep(opts.HostKeys)
		opts.VerifierKeys, dv = keep(opts.VerifierKeys)
		changedOpts = changedOpts || dh || dv
	}

	if gp := gpOf(policyRegistry); gp != "" && differs(gp) {
		reg := profiles.Default()
		if d := side[gp][0]; d != nil {
			if reg, err = profiles.Parse(d, baseName(gp)); err != nil {
				return &InputError{Err: err}
			}
		}
		opts.Registry, changedOpts = reg, true
		note(gp, policyRegistry)
	}

	if gp := gpOf(policyTiers); gp != "" && differs(gp) {
		var b, h *tiers.File
		if d := side[gp][0]; d != nil {
			if b, err = tiers.Parse(d); err != nil {
				return &InputError{Err: fmt.Errorf("%s: %w", baseName(gp), err)}
			}
		}
		if d := side[gp][1]; d != nil {
			if h, err = tiers.Parse(d); err != nil {
				return &InputError{Err: fmt.Errorf("%s: %w", f.toDisk(gp), err)}
			}
		}
		f.strict.tiers, f.strict.set[policyTiers] = stricterTiers(b, h, f.toDisk(gp)), true
		note(gp, policyTiers)
	}
	if gp := gpOf(policyAnchors); gp != "" && differs(gp) {
		var b, h *Anchors
		if d := side[gp][0]; d != nil {
			if b, err = ParseAnchors(d, baseName(gp)); err != nil {
				return &InputError{Err: err}
			}
		}
		if d := side[gp][1]; d != nil {
			if h, err = ParseAnchors(d, f.toDisk(gp)); err != nil {
				return &InputError{Err: err}
			}
		}
		f.strict.anchors, f.strict.set[policyAnchors] = stricterAnchors(b, h, f.toDisk(gp)), true
		note(gp, policyAnchors)
	}
	if gp := gpOf(policyLedger); gp != "" && differs(gp) {
		var b, h *Ledger
		if d := side[gp][0]; d != nil {
			if b, err = ParseLedger(d, baseName(gp)); err != nil {
				return &InputError{Err: err}
			}
		}
		if d := side[gp][1]; d != nil {
			if h, err = ParseLedger(d, f.toDisk(gp)); err != nil {
				return &InputError{Err: err}
			}
		}
		f.strict.ledger, f.strict.set[policyLedger] = stricterLedger(b, h, f.toDisk(gp)), true
		note(gp, policyLedger)
	}

	if changedOpts {
		l := f.cfg.Loader
		f.cfg.Loader = &Loader{Options: opts, Workers: l.Workers, Progress: l.Progress, KeepRow: l.KeepRow}
	}
	if len(loosened) > 0 {
		f.rep.Notes = append(f.rep.Notes, fmt.Sprintf("policy read at the base %s and at the head, the stricter of the two trusted: %s differ(s) (docs/ci.md, policy files)", short(base), strings.Join(loosened, ", ")))
	}
	return nil
}

// applyPolicy puts the stricter policy into a repository opened from the work
// tree (the head).
func (p *flipsPolicy) apply(r *Repo) {
	if p == nil {
		return
	}
	if p.set[policyTiers] {
		r.Tiers = p.tiers
	}
	if p.set[policyLedger] {
		r.Ledger = p.ledger
	}
	if p.set[policyAnchors] {
		r.Anchors = p.anchors
	}
}

// stricterKeyring is the keyring both base and head agree to (see
// stricterPolicy). The result is validated.
func stricterKeyring(base, head *keys.Keyring) (*keys.Keyring, error) {
	out := keys.NewKeyring()
	out.Path = head.Path
	for _, b := range base.Keys {
		h, ok := head.Lookup(b.KeyID)
		if !ok || h.PublicKey != b.PublicKey || h.Alg != b.Alg || h.Use != b.Use {
			if b.Revoked() {
				out.Keys = append(out.Keys, withoutOrigins(b))
			}
			continue
		}
		e := b
		e.RevokedAt, e.RevocationReason = b.RevokedAt, b.RevocationReason
		if h.Revoked() && (!b.Revoked() || earlier(h.RevokedAt, b.RevokedAt)) {
			e.RevokedAt, e.RevocationReason = h.RevokedAt, h.RevocationReason
		}
		if h.RetiredAt != "" && (b.RetiredAt == "" || earlier(h.RetiredAt, b.RetiredAt)) {
			e.RetiredAt = h.RetiredAt
		}
		if h.NotBefore != "" && (b.NotBefore == "" || earlier(b.NotBefore, h.NotBefore)) {
			e.NotBefore = h.NotBefore
		}
		var both []string
		for _, o := range b.Host.PinnedOrigins() {
			if h.Host.Pins(o) {
				both = append(both, o)
			}
		}
		e.Host = keys.KeyringHost{Name: b.Host.Name}.WithOrigins(both...)
		out.Keys = append(out.Keys, e)
	}
	for _, h := range head.Keys {
		if _, inBase := base.Lookup(h.KeyID); !inBase && h.Revoked() {
			if !slices.ContainsFunc(out.Keys, func(e keys.KeyringEntry) bool { return e.PublicKey == h.PublicKey || e.KeyID == h.KeyID }) {
				out.Keys = append(out.Keys, withoutOrigins(h))
			}
		}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// withoutOrigins is a revoked entry kept from one side only: it binds nothing,
// and its revocation stands.
func withoutOrigins(e keys.KeyringEntry) keys.KeyringEntry {
	e.Host = keys.KeyringHost{Name: e.Host.Name}
	return e
}

// earlier reports whether the RFC 3339 time a is before b (as strings when
// either does not parse; the keyring's validation makes that rare).
func earlier(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339, a)
	tb, errB := time.Parse(time.RFC3339, b)
	if errA != nil || errB != nil {
		return a < b
	}
	return ta.Before(tb)
}

// stricterTiers lists an origin only when both tables list it, at the lower
// tier of the two (a tier qualifies when it is --min-tier or higher, so the
// lower number is the stricter); nil when either side has no table.
func stricterTiers(base, head *tiers.File, name string) *tiers.File {
	if base == nil || head == nil {
		return nil
	}
	out := &tiers.File{Path: name, Hosts: []tiers.Host{}}
	for _, b := range base.Hosts {
		for _, o := range b.Origins {
			m, err := head.Lookup(o)
			if err != nil || !m.Listed {
				continue
			}
			out.Hosts = append(out.Hosts, tiers.Host{Name: b.Name, Origins: []string{o}, Tier: min(b.Tier, m.Tier), Source: b.Source})
		}
	}
	return out
}

// stricterAnchors lists a row only when both lists list its id (the base's
// row); nil when either side has no list.
func stricterAnchors(base, head *Anchors, name string) *Anchors {
	if base == nil || head == nil {
		return nil
	}
	out := &Anchors{File: name, Version: base.Version, Updated: base.Updated, Rows: []AnchorRow{}, ids: map[string]int{}}
	for _, r := range base.Rows {
		if head.Has(r.RequirementID) {
			out.ids[r.RequirementID] = len(out.Rows)
			out.Rows = append(out.Rows, r)
		}
	}
	return out
}

// stricterLedger records an id executed-pass only when both ledgers do (the
// base's entries then); otherwise the results both record other than
// executed-pass, and nothing for an id only one side records. nil when either
// side has no ledger.
func stricterLedger(base, head *Ledger, name string) *Ledger {
	if base == nil || head == nil {
		return nil
	}
	out := *base
	out.File = name
	out.Requirements = map[string][]LedgerEntry{}
	passes := func(es []LedgerEntry) bool {
		return slices.ContainsFunc(es, func(e LedgerEntry) bool { return e.Result == bundle.ExecutedPass })
	}
	for id, b := range base.Requirements {
		h, ok := head.Requirements[id]
		if !ok {
			continue
		}
		if passes(b) && passes(h) {
			out.Requirements[id] = b
			continue
		}
		var rest []LedgerEntry
		for _, e := range append(append([]LedgerEntry{}, b...), h...) {
			if e.Result != bundle.ExecutedPass {
				rest = append(rest, e)
			}
		}
		if len(rest) > 0 {
			out.Requirements[id] = rest
		}
	}
	return &out
}
