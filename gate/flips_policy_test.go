package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

// flipsAt runs gate flips over the checked-out head against base, with the
// trust a CI job loads from the work tree: the keyring file and, when given,
// the --tsa-cert files (paths relative to the repository).
func flipsAt(t *testing.T, f *flipsRepo, base string, requireTimestamp bool, tsaCerts ...string) *gate.FlipsReport {
	t.Helper()
	ring, err := keys.LoadKeyring(filepath.Join(f.dir, "keyring.json"))
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.Options{Keyring: ring, Registry: profiles.Default()}
	if len(tsaCerts) > 0 {
		var paths []string
		for _, c := range tsaCerts {
			paths = append(paths, filepath.Join(f.dir, c))
		}
		if opts.TSA, err = timestamp.LoadTrust(paths...); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := gate.Flips(context.Background(), gate.Config{Root: f.dir, Loader: &gate.Loader{Options: opts}, KeyringPath: filepath.Join(f.dir, "keyring.json"), RequireTimestamp: requireTimestamp}, gate.FlipsRequest{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// retiredGood is good.json's rows signed by the key the fixture keyring
// retired on 2026-10-01, generated before that, with the signature it carries.
func retiredGood(t *testing.T) ([]byte, []byte) {
	rows := testkit.SpecRepoBundles()["good.json"].Results.Requirements
	b := testkit.BuildBundle(testkit.OriginTier1, testkit.KeyRetired, nil, func(b *bundle.Bundle) {
		b.Results.Requirements = append([]bundle.Row{}, rows...)
		b.GeneratedAt = "2026-09-20T12:00:00.000Z"
	})
	sig, err := keys.DecodeSignature(b.Signature.Sig)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.Encode(b), sig
}

func keyCriterion(t *testing.T, rep *gate.Report) gate.Criterion {
	t.Helper()
	for _, c := range rep.Criteria {
		if c.ID == gate.CritKey && c.Bundle != nil && filepath.Base(c.Bundle.File) == "good.json" {
			return c
		}
	}
	t.Fatalf("no bundle.key criterion for good.json: %+v", rep.Criteria)
	return gate.Criterion{}
}

// A --tsa-cert file is policy: a change that replaces the trusted TSA CA with
// its own and adds a token from its own TSA, to date a signature by a retired
// key before its retirement, is BLOCKED (flips.policy), and the token is judged
// under the base's CA, so the retired key FAILs.
func TestFlipsTSACertIsPolicy(t *testing.T) {
	good, sig := retiredGood(t)
	real, own := testkit.NewStamper("reviewed TSA", false), testkit.NewStamper("the change's TSA", false)
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
	f.base = f.commit(map[string][]byte{"tsa/ca.pem": testkit.PEM(real.CA), "evidence/v2-host-bundles/good.json": good})
	f.commit(map[string][]byte{
		"RFCS/0901-sample.md":                    flipRFC("0901", statusRow("Accepted")),
		"tsa/ca.pem":                             testkit.PEM(own.CA),
		"evidence/v2-host-bundles/good.json.tsr": own.Reply(sig, time.Date(2026, 9, 21, 0, 0, 0, 0, time.UTC), false),
	})
	rep := flipsAt(t, f, f.base, true, "tsa/ca.pem")
	c, ok := criterion(rep.Changes, gate.CritPolicy)
	if !ok || c.Status != gate.Blocked || !strings.Contains(c.Reason, "ca.pem (a --tsa-cert file)") {
		t.Fatalf("%s: no flips.policy for the TSA file: %+v", rep.Status, rep.Changes.Criteria)
	}
	if len(rep.Reports) != 1 {
		t.Fatalf("%+v", rep.Transitions)
	}
	if k := keyCriterion(t, rep.Reports[0]); k.Status != gate.Fail || !strings.Contains(k.Reason, "--require-timestamp: no trusted RFC 3161 time") {
		t.Fatalf("bundle.key under the base's TSA CA: %s %s", k.Status, k.Reason)
	}
	if rep.Status != gate.Fail {
		t.Fatalf("%s", rep.Status)
	}
}

// Policy is read at the base as it is now, not only at the merge base: when
// the base stops trusting a TSA, revokes a key or lowers a host's tier after
// the branch was cut, a head that still has the old file is judged under the
// stricter of the two, even though the change itself edits no policy file.
func TestFlipsBasePolicyAfterBranchCut(t *testing.T) {
	good, sig := retiredGood(t)
	real, other := testkit.NewStamper("reviewed TSA", false), testkit.NewStamper("distrusted TSA", false)
	both := append(testkit.PEM(real.CA), testkit.PEM(other.CA)...)
	for name, tc := range map[string]struct {
		cut, base map[string][]byte // the merge base's extra files, the base's edit after the cut
		head      map[string][]byte
		tsa       bool
		check     func(t *testing.T, rep *gate.FlipsReport)
	}{
		"the base distrusts a TSA": {
			cut:  map[string][]byte{"tsa/ca.pem": both, "evidence/v2-host-bundles/good.json": good},
			base: map[string][]byte{"tsa/ca.pem": testkit.PEM(real.CA)},
			head: map[string][]byte{"evidence/v2-host-bundles/good.json.tsr": other.Reply(sig, time.Date(2026, 9, 21, 0, 0, 0, 0, time.UTC), false)},
			tsa:  true,
			check: func(t *testing.T, rep *gate.FlipsReport) {
				if k := keyCriterion(t, rep.Reports[0]); k.Status != gate.Fail {
					t.Fatalf("bundle.key: %s %s", k.Status, k.Reason)
				}
			},
		},
		"the base revokes a key": {
			base: map[string][]byte{"keyring.json": revokedHostKeyring(t)},
			check: func(t *testing.T, rep *gate.FlipsReport) {
				if k := keyCriterion(t, rep.Reports[0]); k.Status != gate.Fail || !strings.Contains(k.Reason, "is revoked") {
					t.Fatalf("bundle.key: %s %s", k.Status, k.Reason)
				}
			},
		},
		"the base delists a host": {
			base: map[string][]byte{"evidence/host-tiers.json": tiersFile(t, map[string]int{testkit.OriginTier2: 2})},
			check: func(t *testing.T, rep *gate.FlipsReport) {
				if c := tierCriterion(t, rep.Reports[0], "good.json"); c.Status != gate.Fail || !strings.Contains(c.Reason, "not listed") {
					t.Fatalf("bundle.tier: %s %s", c.Status, c.Reason)
				}
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
			if tc.cut != nil {
				f.commit(tc.cut)
			}
			f.git("branch", "change")
			base := f.commit(tc.base)
			f.git("checkout", "-q", "change")
			head := map[string][]byte{"RFCS/0901-sample.md": flipRFC("0901", statusRow("Accepted"))}
			for k, v := range tc.head {
				head[k] = v
			}
			f.commit(head)
			var tsa []string
			if tc.tsa {
				tsa = []string{"tsa/ca.pem"}
			}
			rep := flipsAt(t, f, base, tc.tsa, tsa...)
			if _, ok := criterion(rep.Changes, gate.CritPolicy); ok {
				t.Fatalf("the change edits no policy file: %+v", rep.Changes.Criteria)
			}
			if len(rep.Reports) != 1 || rep.Status == gate.Pass {
				t.Fatalf("%s: %+v %q", rep.Status, rep.Reports[0].Criteria, rep.Notes)
			}
			tc.check(t, rep)
			if !strings.Contains(strings.Join(rep.Notes, "\n"), "the stricter of the two trusted") {
				t.Errorf("notes: %q", rep.Notes)
			}
		})
	}
}

func revokedHostKeyring(t *testing.T) []byte {
	t.Helper()
	k := testkit.SpecRepoKeyring()
	for i := range k.Keys {
		if k.Keys[i].KeyID == testkit.KeyHost.ID {
			k.Keys[i].RevokedAt, k.Keys[i].RevocationReason = "2026-11-20T00:00:00Z", "compromised after the branch was cut"
		}
	}
	p := filepath.Join(t.TempDir(), "keyring.json")
	if err := k.Save(p); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func tiersFile(t *testing.T, tiers map[string]int) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "host-tiers.json")
	if err := testkit.WriteTiers(p, tiers); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// corpusRFC is flipRFC with a (corpus) Falsifiability row for id.
func corpusRFC(status, id string) []byte {
	text := string(flipRFC("0901", statusRow(status)))
	return []byte(strings.Replace(text, "## Acceptance criteria", `### Falsifiability — one row per normative requirement

| Requirement | Observable | Who | Verdict |
| --- | --- | --- | --- |
| §A — `+"`openwop.requirement.0901.good`"+` | x | suite | witnessable — executed-pass required on a host bundle |
| §C — `+"`"+id+"`"+` (corpus) | the gate | corpus | witnessable (corpus) |

## Acceptance criteria`, 1))
}

// The corpus ledger is signed by nobody: a change that records its own
// executed-pass for the (corpus) id of the RFC it flips is BLOCKED
// (flips.policy), the id is not witnessed by the head's ledger alone, and a
// (corpus) criterion says it rests on an unsigned file.
func TestFlipsCorpusLedgerIsPolicy(t *testing.T) {
	const id = "openwop.requirement.0930.corpus-new"
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": corpusRFC("Draft", id)})
	ledger, err := os.ReadFile(filepath.Join(f.dir, "evidence", "corpus-ledger.json"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(ledger), `"requirements":{`, `"requirements":{
  "`+id+`":[{"result":"executed-pass","scenario":null}],`, 1)
	f.commit(map[string][]byte{"RFCS/0901-sample.md": corpusRFC("Accepted", id), "evidence/corpus-ledger.json": []byte(edited)})
	rep := flipsAt(t, f, f.base, false)
	c, ok := criterion(rep.Changes, gate.CritPolicy)
	if !ok || c.Status != gate.Blocked || !strings.Contains(c.Reason, "corpus-ledger.json (the corpus ledger, an unsigned file)") {
		t.Fatalf("%s: no flips.policy for the ledger: %+v", rep.Status, rep.Changes.Criteria)
	}
	corpus, ok := criterion(rep.Reports[0], gate.CritCorpus)
	if !ok || corpus.Status != gate.Fail {
		t.Fatalf("requirement.corpus under the base's ledger: %+v", corpus)
	}
	if rep.Status == gate.Pass {
		t.Fatal("PASS")
	}

	// Without the edit, a (corpus) PASS says what it rests on.
	f = newFlipsRepo(t, map[string][]byte{"0901-sample.md": corpusRFC("Draft", "openwop.requirement.0920.corpus-pass")})
	f.commit(map[string][]byte{"RFCS/0901-sample.md": corpusRFC("Accepted", "openwop.requirement.0920.corpus-pass")})
	rep = flipsAt(t, f, f.base, false)
	corpus, ok = criterion(rep.Reports[0], gate.CritCorpus)
	if rep.Status != gate.Pass || !ok || corpus.Status != gate.Pass || !strings.Contains(corpus.Reason, "an unsigned file") {
		t.Fatalf("%s: %+v", rep.Status, corpus)
	}
}

// A --host-key file inside the work tree is policy: a change that adds its own
// key to the keys directory CI trusts, and a bundle signed by it, gets neither
// the key (the base does not hold it) nor, beside a flip, a PASS.
func TestFlipsHostKeyFileIsPolicy(t *testing.T) {
	stranger := testkit.FixtureKey{Name: "stranger", ID: "stranger-1"}
	pemBytes, err := keys.MarshalPublicPEM(testkit.Public(stranger.Name))
	if err != nil {
		t.Fatal(err)
	}
	f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
	f.commit(map[string][]byte{
		"RFCS/0901-sample.md":                        flipRFC("0901", statusRow("Accepted")),
		"keys/stranger-1.pub.pem":                    pemBytes,
		"evidence/v2-host-bundles/new-stranger.json": testkit.Encode(testkit.BuildBundle(testkit.OriginUnlisted, stranger, nil, nil)),
	})
	hostKeys, err := keys.LoadPublic(filepath.Join(f.dir, "keys"))
	if err != nil {
		t.Fatal(err)
	}
	rep := f.flips(t, verify.Options{Keyring: f.opts.Keyring, Registry: profiles.Default(), HostKeys: hostKeys})
	c, ok := criterion(rep.Changes, gate.CritPolicy)
	if !ok || c.Status != gate.Blocked || !strings.Contains(c.Reason, "stranger-1.pub.pem (a --host-key file)") {
		t.Fatalf("%s: no flips.policy for the key file: %+v", rep.Status, rep.Changes.Criteria)
	}
	nb, ok := criterion(rep.Changes, gate.CritNewBundle)
	if !ok || nb.Status == gate.Pass {
		t.Fatalf("the change's own key verified its bundle: %+v", nb)
	}
}

// The spec's declarations decide whether a witness qualifies (the maturity
// bound, the suite advisories) and whether an extension may change Status: a
// flip beside an edit of the family declaration, the capabilities schema or a
// suite advisory list inside the work tree rests on what the change wrote, and
// is BLOCKED (before, each was read at head like any other file).
func TestFlipsDeclarationIsPolicy(t *testing.T) {
	for _, tc := range []struct{ file, what, content string }{
		{"spec/v2/declaration.json", "the family declaration", `{"families":[]}`},
		{"schemas/v2/capabilities.schema.json", "the capabilities schema", `{"properties":{}}`},
		{"evidence/suite-advisories.json", "the suite advisory list", `{"advisories":[]}`},
	} {
		t.Run(tc.what, func(t *testing.T) {
			f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
			f.commit(map[string][]byte{"RFCS/0901-sample.md": flipRFC("0901", statusRow("Accepted")), tc.file: []byte(tc.content + "\n")})
			cfg := gate.Config{Root: f.dir, Loader: &gate.Loader{Options: f.opts}, KeyringPath: filepath.Join(f.dir, "keyring.json")}
			if tc.what == "the suite advisory list" {
				cfg.SuiteAdvisoriesFile = filepath.Join(f.dir, tc.file)
			}
			rep, err := gate.Flips(t.Context(), cfg, gate.FlipsRequest{Base: f.base})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := criterion(rep.Changes, gate.CritPolicy)
			if !ok || c.Status != gate.Blocked || !strings.Contains(c.Reason, filepath.Base(tc.file)+" ("+tc.what+")") || rep.Status == gate.Pass {
				t.Fatalf("%s: %+v", rep.Status, rep.Changes.Criteria)
			}
		})
	}
}
