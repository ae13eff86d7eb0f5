package verify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func sigBytes(t *testing.T, s *bundle.Signature) []byte {
	t.Helper()
	raw, err := keys.DecodeSignature(s.Sig)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// backdated returns a bundle signed by the test host key whose generatedAt says
// when.
func backdated(when string) *bundle.Bundle {
	b := testkit.Unsigned("https://h.example")
	b.GeneratedAt = when
	if err := b.Seal(); err != nil {
		panic(err)
	}
	return testkit.Sign(b, "host", testkit.HostKeyID)
}

// Key validity is judged at the trusted time when there is one, and a retired
// key without one is at best COHERENT: generatedAt is the bundle's own word.
func TestKeyDatesAtSigningTime(t *testing.T) {
	tsa := testkit.NewStamper("verify TSA", false)
	trust := timestamp.NewTrust(tsa.CA)
	now := date("2026-12-01T00:00:00Z")
	retired := hostEntry()
	retired.RetiredAt = "2026-10-01T00:00:00Z"
	later := hostEntry()
	later.RetiredAt = "2027-06-01T00:00:00Z"
	notYet := hostEntry()
	notYet.NotBefore = "2026-06-01T00:00:00Z"
	type stamp struct {
		at      string
		trusted bool
	}
	for _, tc := range []struct {
		name      string
		entry     keys.KeyringEntry
		generated string
		stamp     *stamp
		outcome   verify.Outcome
		status    string
		source    string
		reason    string
	}{
		{"no dates, no token", hostEntry(), "2026-11-01T12:00:00Z", nil, verify.Verified, "", verify.TimeGeneratedAt, ""},
		{"retired, generatedAt before, no token", retired, "2026-09-01T12:00:00Z", nil, verify.Coherent, verify.KeyDatesSelfAsserted, verify.TimeGeneratedAt,
			"key test-host-1 was retired at 2026-10-01T00:00:00Z; only generatedAt (2026-09-01T12:00:00Z), which no signature covers, says the bundle was signed before then: an RFC 3161 token made before the retirement would show it"},
		{"retired, generatedAt after", retired, "2026-11-01T12:00:00Z", nil, verify.Coherent, verify.KeyOutOfService, verify.TimeGeneratedAt,
			"key test-host-1 was retired at 2026-10-01T00:00:00Z, but the bundle says it was generated at 2026-11-01T12:00:00Z (" + verify.SelfAssertedTime + ")"},
		{"retired, token before retirement", retired, "2026-09-01T12:00:00Z", &stamp{"2026-09-01T12:05:00Z", true}, verify.Verified, verify.KeyInService, verify.TimeRFC3161,
			"key test-host-1 was in service when it signed: the trusted time 2026-09-01T12:05:01Z (the rfc3161 token of CN=verify TSA) is before its retirement at 2026-10-01T00:00:00Z"},
		{"backdated, token after retirement", retired, "2026-09-01T12:00:00Z", &stamp{"2026-11-20T08:00:00Z", true}, verify.Coherent, verify.KeyOutOfService, verify.TimeRFC3161,
			"key test-host-1 was retired at 2026-10-01T00:00:00Z, but the trusted time shows the signature only by 2026-11-20T08:00:01Z (the rfc3161 token of CN=verify TSA, its accuracy included): it is not shown to predate the retirement"},
		{"token at the retirement, its accuracy past it", retired, "2026-09-01T12:00:00Z", &stamp{"2026-10-01T00:00:00Z", true}, verify.Coherent, verify.KeyOutOfService, verify.TimeRFC3161, "not shown to predate"},
		{"token before retirement, not trusted", retired, "2026-09-01T12:00:00Z", &stamp{"2026-09-01T12:05:00Z", false}, verify.Coherent, verify.KeyDatesSelfAsserted, verify.TimeGeneratedAt,
			"; the token b.json.tsr does not count: " + timestamp.NoTrust},
		{"retirement still to come", later, "2026-11-01T12:00:00Z", nil, verify.Verified, verify.KeyInService, verify.TimeGeneratedAt, "retires at 2027-06-01T00:00:00Z, which is still to come"},
		{"notBefore met by generatedAt", notYet, "2026-11-01T12:00:00Z", nil, verify.Verified, verify.KeyInService, verify.TimeGeneratedAt, "is valid from 2026-06-01T00:00:00Z"},
		{"token before notBefore", notYet, "2026-11-01T12:00:00Z", &stamp{"2026-05-01T00:00:00Z", true}, verify.Coherent, verify.KeyOutOfService, verify.TimeRFC3161, "existed already by 2026-05-01T00:00:01Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := backdated(tc.generated)
			var ts verify.Timestamps
			opts := verify.Options{Keyring: ringWith(tc.entry), Registry: profiles.Default(), Now: now}
			if tc.stamp != nil {
				ts.Host = &timestamp.File{Path: "b.json.tsr", Reply: tsa.Reply(sigBytes(t, b.Signature), date(tc.stamp.at), false)}
				if tc.stamp.trusted {
					opts.TSA = trust
				}
			}
			v := verify.Judge(b, nil, opts, ts)
			if v.Outcome != tc.outcome || len(v.Rejections) > 0 {
				t.Fatalf("%s %v %v", v.Outcome, v.Rejections, v.Unverified)
			}
			if v.SigningTime.Source != tc.source {
				t.Errorf("signing time %+v", v.SigningTime)
			}
			if tc.status == "" {
				if v.KeyDates != nil {
					t.Errorf("key dates %+v for a key without dates", v.KeyDates)
				}
				return
			}
			if v.KeyDates == nil || v.KeyDates.Status != tc.status || !strings.Contains(v.KeyDates.Reason, tc.reason) {
				t.Fatalf("key dates %+v, want %s with %q", v.KeyDates, tc.status, tc.reason)
			}
			inUnverified := strings.Contains(strings.Join(v.Unverified, "\n"), v.KeyDates.Reason)
			if inUnverified != (tc.status != verify.KeyInService) {
				t.Errorf("the reason is in notIndependentlyVerified: %v (%v)", inUnverified, v.Unverified)
			}
		})
	}
}

// The signing time says where it comes from: a trusted token's time, TSA and
// accuracy; else generatedAt, with why a token that came does not count.
func TestSigningTime(t *testing.T) {
	tsa := testkit.NewStamper("verify TSA", false)
	b := testkit.Signed("https://h.example")
	reply := tsa.Reply(sigBytes(t, b.Signature), date("2026-11-01T12:03:00Z"), false)
	opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}

	v := verify.Judge(b, nil, opts, verify.Timestamps{})
	if st := v.SigningTime; st != (verify.SigningTime{Source: verify.TimeGeneratedAt, Time: "2026-11-01T12:00:00.000Z"}) || v.Outcome != verify.Verified {
		t.Fatalf("no token: %+v %s", st, v.Outcome)
	}
	file := &timestamp.File{Path: "fresh.json.tsr", Reply: reply}
	v = verify.Judge(b, nil, opts, verify.Timestamps{Host: file})
	if st := v.SigningTime; st.Source != verify.TimeGeneratedAt || st.Token != "fresh.json.tsr" || st.TokenNotTrusted != timestamp.NoTrust || v.Outcome != verify.Verified {
		t.Fatalf("untrusted token: %+v %s", st, v.Outcome)
	}
	opts.TSA = timestamp.NewTrust(tsa.CA)
	v = verify.Judge(b, nil, opts, verify.Timestamps{Host: file})
	want := verify.SigningTime{Source: verify.TimeRFC3161, Time: "2026-11-01T12:03:00Z", Accuracy: "1s", TSA: "CN=verify TSA",
		TrustedBy: "CN=verify TSA root", Serial: v.SigningTime.Serial, Token: "fresh.json.tsr"}
	if v.SigningTime != want || v.Outcome != verify.Verified || want.Serial == "" {
		t.Fatalf("trusted token: %+v %s", v.SigningTime, v.Outcome)
	}
}

// A bad token is a rejection of its own kind, whatever else the bundle is; a
// token from a TSA the caller does not trust is one only when the caller named
// TSA certificates.
func TestTokenRejections(t *testing.T) {
	tsa := testkit.NewStamper("verify TSA", false)
	stranger := testkit.NewStamper("stranger TSA", false)
	noUsage := testkit.NewStamper("no-usage TSA", true)
	b := testkit.Signed("https://h.example")
	// generatedAt is not signed: another signature needs other signed content.
	other := testkit.Unsigned("https://h.example")
	other.Suite.Version = "2.45.31"
	if err := other.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(other, "host", testkit.HostKeyID)
	sig := sigBytes(t, b.Signature)
	at := date("2026-11-01T12:03:00Z")
	good := tsa.Reply(sig, at, false)
	trust := timestamp.NewTrust(tsa.CA)
	for _, tc := range []struct {
		name  string
		reply []byte
		trust *timestamp.Trust
		want  verify.Kind
	}{
		{"another signature's token", tsa.Reply(sigBytes(t, other.Signature), at, false), trust, verify.KindTimestampImprint},
		{"an untrusted TSA", stranger.Reply(sig, at, false), trust, verify.KindTimestampUntrusted},
		{"truncated", good[:len(good)-20], trust, verify.KindTimestampMalformed},
		{"no time-stamping usage", noUsage.Reply(sig, at, false), trust, verify.KindTimestampUsage},
		{"no time-stamping usage, no trust", noUsage.Reply(sig, at, false), nil, verify.KindTimestampUsage},
		{"another signature's token, no trust", tsa.Reply(sigBytes(t, other.Signature), at, false), nil, verify.KindTimestampImprint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default(), TSA: tc.trust}
			v := verify.Judge(b, nil, opts, verify.Timestamps{Host: &timestamp.File{Path: "fresh.json.tsr", Reply: tc.reply}})
			if v.Outcome != verify.Rejected || len(v.Rejections) != 1 || v.Rejections[0].Kind != tc.want {
				t.Fatalf("%s %v", v.Outcome, v.Rejections)
			}
			if !strings.HasPrefix(v.Rejections[0].Detail, "fresh.json.tsr (the token of the host signature): ") {
				t.Errorf("detail %q", v.Rejections[0].Detail)
			}
			if v.SigningTime.Trusted() || len(v.CertifiedProfiles) != 0 {
				t.Errorf("a refused token counted: %+v, certified %v", v.SigningTime, v.CertifiedProfiles)
			}
		})
	}
	// From a stranger with no TSA trusted: well formed, not trusted, not a rejection.
	v := verify.Judge(b, nil, verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()},
		verify.Timestamps{Host: &timestamp.File{Path: "fresh.json.tsr", Reply: stranger.Reply(sig, at, false)}})
	if v.Outcome != verify.Verified || v.SigningTime.Trusted() {
		t.Fatalf("%s %+v", v.Outcome, v.SigningTime)
	}
}

// A revoked key stays refused whatever the token says: revokedAt records when
// the revocation was made, not when the key leaked.
func TestRevokedKeyRefusedDespiteToken(t *testing.T) {
	tsa := testkit.NewStamper("verify TSA", false)
	b := testkit.Signed("https://h.example")
	e := hostEntry()
	e.RevokedAt, e.RevocationReason = "2026-12-01T00:00:00Z", "private key leaked"
	opts := verify.Options{Keyring: ringWith(e), Registry: profiles.Default(), TSA: timestamp.NewTrust(tsa.CA)}
	ts := verify.Timestamps{Host: &timestamp.File{Path: "b.tsr", Reply: tsa.Reply(sigBytes(t, b.Signature), date("2026-11-01T12:03:00Z"), false)}}
	v := verify.Judge(b, nil, opts, ts)
	if v.Outcome != verify.Coherent || v.SignatureVerified || v.RevokedKey == nil || !v.SigningTime.Trusted() {
		t.Fatalf("%s verified=%v revoked=%+v time=%+v", v.Outcome, v.SignatureVerified, v.RevokedKey, v.SigningTime)
	}
}

// The bundle's own document, authenticated by the signature it verifies, can
// retire the key: judged like a keyring's date.
func TestSelfPublishedRetirementJudged(t *testing.T) {
	host := keys.PublicKey{Key: testkit.Public("host"), KeyID: testkit.HostKeyID}
	entry := host.Entry()
	entry.RetiredAt = "2026-10-01T00:00:00Z"
	b := testkit.Unsigned("https://h.example")
	doc := testkit.Discovery("https://h.example", entry)
	b.Discovery.Document = &doc
	b.GeneratedAt = "2026-09-01T00:00:00.000Z"
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	testkit.Sign(b, "host", testkit.HostKeyID)
	v := verify.Judge(b, nil, verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default()}, verify.Timestamps{})
	if v.Outcome != verify.Coherent || v.KeyDates == nil || v.KeyDates.Status != verify.KeyDatesSelfAsserted {
		t.Fatalf("%s %+v %v", v.Outcome, v.KeyDates, v.Unverified)
	}
	for _, n := range v.Notes {
		if strings.Contains(n, "retired") {
			t.Errorf("the retirement is noted twice: %q", n)
		}
	}
}

// A countersigned bundle can carry a token for the verifier signature too.
func TestVerifierToken(t *testing.T) {
	tsa := testkit.NewStamper("verify TSA", false)
	b := testkit.Signed("https://h.example")
	signer, err := keys.NewSigner(testkit.Key("verifier"))
	if err != nil {
		t.Fatal(err)
	}
	if err := keys.CountersignBundle(b, signer, "lab-verifier-1"); err != nil {
		t.Fatal(err)
	}
	at := date("2026-11-02T09:00:00Z")
	opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, Registry: profiles.Default(), TSA: timestamp.NewTrust(tsa.CA)}
	good := &timestamp.File{Path: "b.json.verifier.tsr", Reply: tsa.Reply(sigBytes(t, b.VerifierSignature), at, false)}
	v := verify.Judge(b, nil, opts, verify.Timestamps{Verifier: good})
	if v.VerifierSigningTime == nil || !v.VerifierSigningTime.Trusted() || v.VerifierSigningTime.Time != "2026-11-02T09:00:00Z" || v.SigningTime.Trusted() {
		t.Fatalf("%+v %+v", v.VerifierSigningTime, v.SigningTime)
	}
	// The host signature's token in the verifier's place is another signature's.
	swapped := &timestamp.File{Path: "b.json.verifier.tsr", Reply: tsa.Reply(sigBytes(t, b.Signature), at, false)}
	v = verify.Judge(b, nil, opts, verify.Timestamps{Verifier: swapped})
	if !v.HasRejection(verify.KindTimestampImprint) || !strings.Contains(v.Rejections[0].Detail, "the token of the verifier signature") {
		t.Fatalf("%v", v.Rejections)
	}
}

// The keyring dates a key by its bytes, however the key was supplied.
func TestKeyringDatesAPEMKey(t *testing.T) {
	e := hostEntry()
	e.RetiredAt = "2026-10-01T00:00:00Z"
	for name, opts := range map[string]verify.Options{
		"keyring":                   {Keyring: ringWith(e)},
		"PEM key, keyring has date": {Keyring: ringWith(e), HostKeys: keys.Set{testkit.HostPublic()}},
	} {
		opts.Registry = profiles.Default()
		v := verify.Bundle(testkit.Signed("https://h.example"), nil, opts)
		if v.Outcome != verify.Coherent || len(v.Rejections) > 0 || v.HostKey.RetiredAt != e.RetiredAt {
			t.Errorf("%s: %s %v, hostKey.retiredAt %q", name, v.Outcome, v.Rejections, v.HostKey.RetiredAt)
		}
		if v.KeyDates == nil || v.KeyDates.Status != verify.KeyOutOfService {
			t.Errorf("%s: key dates %+v", name, v.KeyDates)
		}
	}
}

// A verifier key's dates are judged as a host key's: a keyring that retires the
// verifier key before generatedAt, or whose notBefore is after it, leaves an
// independent-tier bundle COHERENT (it was VERIFIED with no word); a trusted
// verifier token decides at its time; without an independent claim it is a note.
func TestVerifierKeyDates(t *testing.T) {
	tsa := testkit.NewStamper("verify TSA", false)
	now := date("2026-12-01T00:00:00Z")
	countersigned := func(independent bool) *bundle.Bundle {
		b := testkit.Unsigned("https://h.example")
		if independent {
			b.ClaimedProfiles[0].EvidenceTier = bundle.TierIndependent
		}
		if err := b.Seal(); err != nil {
			t.Fatal(err)
		}
		testkit.Sign(b, "host", testkit.HostKeyID)
		signer, _ := keys.NewSigner(testkit.Key("verifier"))
		if err := keys.CountersignBundle(b, signer, "lab-verifier-1"); err != nil {
			t.Fatal(err)
		}
		return b
	}
	verifierPEM := keys.PublicKey{Key: testkit.Public("verifier"), KeyID: "lab-verifier-1", Source: keys.SourcePEMFile}
	entry := func(retired, notBefore string) keys.KeyringEntry {
		return keys.KeyringEntry{KeyID: "lab-verifier-1", Alg: "ed25519", PublicKey: verifierPEM.Base64URL(),
			Host: keys.KeyringHost{Name: "lab", Origin: "https://lab.example"}, RetiredAt: retired, NotBefore: notBefore}
	}
	for _, tc := range []struct {
		name        string
		independent bool
		entry       keys.KeyringEntry
		stamp       string // the verifier token's time, "" for none
		outcome     verify.Outcome
		status      string // VerifierKeyDates.Status, "" for nil
		reason      string // in the COHERENT reasons (or, not independent, the notes)
	}{
		{"no dates", true, entry("", ""), "", verify.Verified, "", ""},
		{"retired before generatedAt", true, entry("2026-10-01T00:00:00Z", ""), "", verify.Coherent, verify.KeyOutOfService,
			"verifier key lab-verifier-1 was retired at 2026-10-01T00:00:00Z, but the bundle says it was generated at 2026-11-01T12:00:00.000Z"},
		{"valid only after generatedAt", true, entry("", "2026-11-15T00:00:00Z"), "", verify.Coherent, verify.KeyOutOfService,
			"verifier key lab-verifier-1 is valid from 2026-11-15T00:00:00Z, but the bundle says it was generated at"},
		{"retired, only generatedAt says before", true, entry("2026-11-20T00:00:00Z", ""), "", verify.Coherent, verify.KeyDatesSelfAsserted,
			"only generatedAt (2026-11-01T12:00:00.000Z), which no signature covers"},
		{"retirement still to come", true, entry("2027-06-01T00:00:00Z", ""), "", verify.Verified, verify.KeyInService, ""},
		{"trusted token before the retirement", true, entry("2026-11-20T00:00:00Z", ""), "2026-11-02T09:00:00Z", verify.Verified, verify.KeyInService, ""},
		{"trusted token after the retirement", true, entry("2026-10-01T00:00:00Z", ""), "2026-11-02T09:00:00Z", verify.Coherent, verify.KeyOutOfService,
			"verifier key lab-verifier-1 was retired at 2026-10-01T00:00:00Z, but the trusted time shows the signature only by 2026-11-02T09:00:01Z"},
		{"not independent: a note", false, entry("2026-10-01T00:00:00Z", ""), "", verify.Verified, verify.KeyOutOfService,
			"no profile claims the independent tier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := countersigned(tc.independent)
			opts := verify.Options{HostKeys: keys.Set{testkit.HostPublic()}, VerifierKeys: keys.Set{verifierPEM}, Keyring: ringWith(entry(tc.entry.RetiredAt, tc.entry.NotBefore)),
				Registry: profiles.Default(), TSA: timestamp.NewTrust(tsa.CA), Now: now}
			var ts verify.Timestamps
			if tc.stamp != "" {
				ts.Verifier = &timestamp.File{Path: "b.json.verifier.tsr", Reply: tsa.Reply(sigBytes(t, b.VerifierSignature), date(tc.stamp), false)}
			}
			v := verify.Judge(b, nil, opts, ts)
			if v.Outcome != tc.outcome || len(v.Rejections) > 0 || !v.VerifierSignatureVerified {
				t.Fatalf("%s %v verifierVerified=%v %v", v.Outcome, v.Kinds(), v.VerifierSignatureVerified, v.Unverified)
			}
			switch {
			case tc.status == "" && v.VerifierKeyDates != nil:
				t.Errorf("verifier key dates %+v", v.VerifierKeyDates)
			case tc.status != "" && (v.VerifierKeyDates == nil || v.VerifierKeyDates.Status != tc.status):
				t.Errorf("verifier key dates %+v, want %s", v.VerifierKeyDates, tc.status)
			}
			if v.KeyDates != nil {
				t.Errorf("the host key's dates judged: %+v", v.KeyDates)
			}
			said := joined(v.Unverified)
			if !tc.independent {
				said = joined(v.Notes)
			}
			if tc.reason != "" && !strings.Contains(said, tc.reason) {
				t.Errorf("%q does not say %q", said, tc.reason)
			}
		})
	}
}
