package gate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/certcut/certcut/declaration"
)

// openDeclared sets the default paths of the spec's declarations and loads the
// declaration and the capabilities schema. An absent file is not an error (the
// rules that need it are BLOCKED or not applied, as each says); a malformed one
// is an *InputError.
func (r *Repo) openDeclared() error {
	root := r.Root
	if r.DeclarationFile == "" {
		r.DeclarationFile = filepath.Join(root, "spec", "v2", "declaration.json")
	}
	if r.CapabilitiesFile == "" {
		r.CapabilitiesFile = filepath.Join(root, "schemas", "v2", "capabilities.schema.json")
	}
	if r.ExtDir == "" {
		r.ExtDir = filepath.Join(root, "spec", "v2", "ext")
	}
	if r.MaturityFirstSuite == "" {
		r.MaturityFirstSuite = declaration.FirstBoundSuite
	} else if _, _, ok := declaration.MajorMinor(r.MaturityFirstSuite); !ok {
		return &InputError{Err: fmt.Errorf("the maturity bound's first suite %q is not a version (major.minor…)", r.MaturityFirstSuite)}
	}
	var err error
	if r.Advisories, err = declaration.LoadAdvisories(r.SuiteAdvisoriesFile); err != nil {
		return &InputError{Err: fmt.Errorf("suite advisories: %w", err)}
	}
	if r.Declaration, err = optional(r.DeclarationFile, declaration.Load); err != nil {
		return err
	}
	if r.Capabilities, err = optional(r.CapabilitiesFile, declaration.LoadCapabilities); err != nil {
		return err
	}
	return nil
}

// familyKeys are the keys of the family records: the capabilities schema's, or
// the declaration's without a schema (said so in the reason).
func (r *Repo) familyKeys() declaration.FamilyKeys {
	return declaration.KeysOf(r.Capabilities, r.Declaration)
}

// signedFacts reports whether what the maturity bound reads of the bundle —
// suite.version and discovery.document — is signed: the host signature verified
// under a trusted key (it covers suite.version and discovery.sha256) and the
// embedded document hashes to discovery.sha256.
func signedFacts(e *Entry) bool {
	v, b := e.Verdict, e.Bundle
	if v == nil || b == nil || !v.SignatureVerified {
		return false
	}
	return b.Discovery.Document == nil || v.DiscoveryRecomputed == b.Discovery.Sha256
}

// MaturityOf applies the maturity bound to one committed bundle; ok is false
// when there is no declaration or the bundle could not be read.
func (r *Repo) MaturityOf(e *Entry) (declaration.Maturity, bool) {
	if r.Declaration == nil || e.Bundle == nil {
		return declaration.Maturity{}, false
	}
	return declaration.CheckMaturity(e.Bundle.members(), r.familyKeys(), r.Declaration, r.MaturityFirstSuite), true
}

// maturityCheck decides bundle.maturity for one bundle: FAIL when the bound
// applies and some family record is overstated (on the file's own claim, signed
// or not: an overstating file fails either way); PASS when none is, or when the
// bundle's signed suite.version is below the bound (REPORTED, as upstream);
// BLOCKED when the exemption would rest on an unsigned or unreadable
// suite.version. ok is false without a declaration (the rule is then not
// applied; gate audit says so).
func (r *Repo) maturityCheck(e *Entry) (check, bool) {
	m, ok := r.MaturityOf(e)
	if !ok {
		return check{}, false
	}
	c := check{id: CritMaturity, title: rule(CritMaturity).Title}
	signed := signedFacts(e)
	line := m.Line()
	if len(m.Overstated) > 0 {
		line += ": " + m.OverstatedList()
	}
	switch m.Outcome() {
	case declaration.MaturityNothing, declaration.MaturityOK:
		c.status, c.reason = Pass, line
	case declaration.MaturityFails:
		c.status, c.reason = Fail, line+fmt.Sprintf("; the declaration %s does not call these families stable: re-cut with status experimental, or promote the family by RFC", r.Declaration.File)
		if !signed {
			c.reason += " (the file's own claim: its signature did not verify under a trusted key)"
		}
	default: // REPORTED
		switch {
		case m.SuiteUnreadable:
			c.status, c.reason = Blocked, line+fmt.Sprintf("; suite.version %q has no major.minor, so whether RFC 0197 §C.7 binds it cannot be decided", m.Suite)
		case !signed:
			c.status, c.reason = Blocked, line+"; the suite.version that exempts it is not signed (the host signature did not verify under a trusted key): pass the host's key to decide"
		default:
			c.status, c.reason = Pass, line
		}
	}
	c.reason += " [family keys from " + r.familyKeys().From + "]"
	return c, true
}

// declaredChecks are the qualification checks of the declared rules for one
// bundle (assessNow appends them).
func (r *Repo) declaredChecks(ctx context.Context, e *Entry) []check {
	var out []check
	if c, ok := r.maturityCheck(e); ok {
		out = append(out, c)
	}
	// The advisory check joins a witness's checks only when it blocks, so a
	// report lists it where it matters (gate audit lists it for every bundle).
	if c := r.suiteAdvisoryCheck(e); c.status != Pass {
		out = append(out, c)
	}
	if r.RequireSuiteTag {
		out = append(out, r.suiteIdentityCheck(ctx, e))
	}
	return out
}

// Declared runs the declared rules over the repository for gate audit: one
// bundle.maturity criterion per committed bundle (as upstream lists every
// bundle), then the extension READMEs' Status.
func (r *Repo) Declared(ctx context.Context) *Report {
	rep := &Report{Gate: "declared", Subject: "what the spec declares", Settings: r.settings()}
	if r.Declaration == nil {
		rep.Criteria = append(rep.Criteria, rule(CritMaturity).Criterion(Result{Status: Blocked,
			Reason: fmt.Sprintf("no declaration at %s: the maturity bound (RFC 0197 §C.7) cannot be applied", r.DeclarationFile)}))
	} else {
		fk := r.familyKeys()
		rep.Notes = append(rep.Notes, fmt.Sprintf("maturity bound: %d family record key(s) from %s; %d declared families; RFC 0197 §C.7 binds bundles cut on suite %s or later",
			fk.Len(), fk.From, len(r.Declaration.Families), r.MaturityFirstSuite))
		for _, e := range r.Entries {
			ref := e.Ref()
			if e.Bundle == nil {
				rep.Criteria = append(rep.Criteria, rule(CritMaturity).Criterion(Result{Status: Blocked, Bundle: &ref,
					Reason: "unreadable: " + errString(e.Err)}))
				continue
			}
			c, _ := r.maturityCheck(e)
			rep.Criteria = append(rep.Criteria, rule(CritMaturity).Criterion(Result{Status: c.status, Reason: c.reason, Bundle: &ref}))
		}
	}
	for _, e := range r.Entries {
		if e.Bundle == nil {
			continue
		}
		ref := e.Ref()
		for _, c := range []check{r.suiteAdvisoryCheck(e), r.suiteIdentityCheck(ctx, e)} {
			rep.Criteria = append(rep.Criteria, rule(RuleID(c.id)).Criterion(Result{Status: c.status, Reason: c.reason, Bundle: &ref}))
		}
	}
	rep.Criteria = append(rep.Criteria, r.coherenceCriteria()...)
	rep.Criteria = append(rep.Criteria, r.extStatusCriteria(ctx)...)
	rep.Criteria = append(rep.Criteria, r.anchorsCriteria()...)
	rep.finish()
	return rep
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
