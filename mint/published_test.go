package mint_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/mint"
	"github.com/certcut/certcut/profiles"
	"github.com/certcut/certcut/rows"
	"github.com/certcut/certcut/verify"
)

const exampleDir = "../examples/rfc0211"

// exampleSigner loads the walk-through's demo key (the one its discovery document
// publishes as demo-host-1), or, with other set, a freshly made key.
func exampleSigner(t *testing.T, other bool) *keys.Signer {
	t.Helper()
	pemText, err := os.ReadFile(filepath.Join(exampleDir, "keys/demo-host-1.key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if other {
		if pemText, err = keys.MarshalPrivatePEM(testkit.Key("other-1")); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(t.TempDir(), "k.key.pem")
	if err := os.WriteFile(p, pemText, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := keys.LoadSigner(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// exampleInput is the walk-through's mint (docs/mint.md), from its committed run.
func exampleInput(t *testing.T, s *keys.Signer) mint.Input {
	t.Helper()
	reg := profiles.Default()
	in := mint.Input{
		Suite:        bundle.Suite{Version: "2.45.30", TargetMajor: 2, SpecArtifactsVersion: "2.45.30"},
		Registry:     reg,
		EvidenceTier: bundle.TierSelf,
		KeyID:        "demo-host-1",
		KeyPEM:       s.PEM,
		GeneratedAt:  time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC),
		Build:        bundle.Build{Kind: bundle.BuildCommit, ID: "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"},
	}
	var err error
	in.Rows, err = rows.Read(rows.Sources{
		Ledgers:       []string{filepath.Join(exampleDir, "run/requirement-ledger.jsonl")},
		LedgerReports: []string{filepath.Join(exampleDir, "run/vitest.json")},
	}, rows.Options{IsFloor: reg.IsFloor})
	if err != nil {
		t.Fatal(err)
	}
	if in.Discovery, err = discovery.Load(filepath.Join(exampleDir, "run/discovery.json"), "https://demo-host.example"); err != nil {
		t.Fatal(err)
	}
	return in
}

// checkDocumentAsCaptured fails unless the bundle embeds the captured discovery
// document unchanged and discovery.sha256 is the captured file's digest.
func checkDocumentAsCaptured(t *testing.T, name string, b *bundle.Bundle) {
	t.Helper()
	file, err := os.ReadFile(filepath.Join(exampleDir, "run/discovery.json"))
	if err != nil {
		t.Fatal(err)
	}
	captured, err := bundle.ParseIJSON(file)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := bundle.Canonical(captured)
	got, _ := bundle.Canonical(*b.Discovery.Document)
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the embedded discovery document differs from the captured file:\n%s\nwant\n%s", name, got, want)
	}
	sum := sha256.Sum256(want)
	if b.Discovery.Sha256 != hex.EncodeToString(sum[:]) {
		t.Errorf("%s: discovery.sha256 %s is not the captured document's %x", name, b.Discovery.Sha256, sum)
	}
}

// Settings whose names say KEY or TOKEN but whose values are settings (an
// algorithm name, a boolean, a number, a short id, a scheme the document
// publishes) leave the discovery document as captured: the walk-through still
// mints to the committed bytes. The discovery document is public, so it is never
// rewritten.
func TestMintLeavesTheDiscoveryDocumentAsCaptured(t *testing.T) {
	s := exampleSigner(t, false)
	committed, err := os.ReadFile(filepath.Join(exampleDir, "spec-repo/evidence/v2-host-bundles/demo-host.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, setting := range []string{
		"OPENWOP_TEST_KEY_ALG=ed25519",
		"OPENWOP_SIGNING_KEY_ALG=EdDSA",
		"OPENWOP_INTERRUPT_TOKEN_ALG=hs256",
		"OPENWOP_REQUIRE_SIGNING_KEY=true",
		"OPENWOP_TOKEN_REFRESH=false",
		"OPENWOP_TEST_TOKEN_TTL_MS=600000",
		"OPENWOP_TEST_LOW_SCOPE_KEY=low-scope",
		"OPENWOP_BUNDLE_SIGNING_KEY_ID=demo-host-1",
		"OPENWOP_TEST_KEY_ID=demo-host",
		"OPENWOP_KEY_ALGORITHM=ECDSA-P256-SHA256",
		"OPENWOP_WEBHOOK_SIGNING_KEY_SCHEME=standard-webhooks-1",
		"OPENWOP_A2A_TOKEN_AUDIENCE=https://demo-host.example/a2a",
	} {
		in := exampleInput(t, s)
		in.Env = []string{setting}
		cut, err := mint.Run(mint.Job{Input: in, Host: s})
		if err != nil {
			t.Errorf("%s: %v", setting, err)
			continue
		}
		checkDocumentAsCaptured(t, setting, cut.Bundle)
		if len(cut.Report.Redacted) != 0 {
			t.Errorf("%s: redacted %v", setting, cut.Report.Redacted)
		}
		if !bytes.Equal(cut.Data, committed) {
			t.Errorf("%s: the walk-through no longer mints to the committed bundle", setting)
		}
		name, _, _ := strings.Cut(setting, "=")
		if !strings.Contains(setting, "SIGNING_KEY_ID") && (len(cut.Report.LeftAlone) != 1 || !strings.Contains(cut.Report.LeftAlone[0], name)) {
			t.Errorf("%s: left alone %q, want one note naming the variable", setting, cut.Report.LeftAlone)
		}
		_, value, _ := strings.Cut(setting, "=")
		for _, note := range cut.Report.LeftAlone {
			if strings.Contains(note, value) {
				t.Errorf("%s: a note quotes the value: %s", setting, note)
			}
		}
	}
}

// A real secret — the canary, a 40-character token from the environment, a
// --secret value — is still scrubbed from the rows, beside benign settings, and
// the discovery document stays as captured.
func TestMintStillScrubsRealSecretsFromRows(t *testing.T) {
	s := exampleSigner(t, false)
	const token = "ghp_8f2a9c1d7e3b4a5f6e7d8c9b0a1f2e3d4c5b" // 40 characters
	const given = "s3cr3t-given"
	in := exampleInput(t, s)
	in.Rows = slices.Clone(in.Rows)
	leak := "request failed: Authorization: Bearer " + token + " canary " + mint.Canary + " " + given
	in.Rows[0].Detail = &leak
	in.Env = []string{"OPENWOP_TEST_KEY_ALG=ed25519", "OPENWOP_API_TOKEN=" + token, "OPENWOP_REQUIRE_SIGNING_KEY=true"}
	in.Secrets = []string{given}
	cut, err := mint.Run(mint.Job{Input: in, Host: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{token, mint.Canary, given} {
		if bytes.Contains(cut.Data, []byte(secret)) {
			t.Errorf("%q is in the bundle", secret)
		}
		if !bytes.Contains(cut.Data, []byte(mint.RedactionMarker(secret))) {
			t.Errorf("no marker for %q", secret)
		}
	}
	if !slices.Equal(cut.Report.Redacted, []string{"/results/requirements/0/detail"}) {
		t.Errorf("redacted %v", cut.Report.Redacted)
	}
	checkDocumentAsCaptured(t, "real secrets", cut.Bundle)
	if cut.Verdict.Outcome != verify.Verified {
		t.Errorf("self-check %s", cut.Verdict.Outcome)
	}
}

// A value given as a secret that the discovery document also holds is public: it
// is reported as left alone, with where the document holds it, and rewritten
// nowhere, neither in the document nor in the rows.
func TestMintLeavesASecretTheDocumentPublishes(t *testing.T) {
	s := exampleSigner(t, false)
	const public = "https://demo-host.example/a2a"
	const token = "tok_0123456789abcdefghijklmnopqrstuvwxyz"
	for _, tc := range []struct {
		name string
		set  func(*mint.Input)
	}{
		{"--secret", func(in *mint.Input) { in.Secrets = []string{public} }},
		{"environment", func(in *mint.Input) { in.Env = []string{"OPENWOP_A2A_TOKEN_URL=" + public} }},
	} {
		in := exampleInput(t, s)
		in.Rows = slices.Clone(in.Rows)
		detail := "called " + public + " with " + token
		in.Rows[0].Detail = &detail
		tc.set(&in)
		in.Secrets = append(in.Secrets, token)
		cut, err := mint.Run(mint.Job{Input: in, Host: s})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkDocumentAsCaptured(t, tc.name, cut.Bundle)
		if !bytes.Contains(cut.Data, []byte(`"called `+public+` with `+mint.RedactionMarker(token)+`"`)) {
			t.Errorf("%s: the row was not scrubbed of the token alone: %s", tc.name, *cut.Bundle.Results.Requirements[0].Detail)
		}
		if len(cut.Report.LeftAlone) != 1 || !strings.Contains(cut.Report.LeftAlone[0], "published in the discovery document at /discovery/document/a2a/interfaces/0/url") {
			t.Errorf("%s: left alone %q", tc.name, cut.Report.LeftAlone)
		}
	}
}

// The wrong private key is refused before anything is signed: the discovery
// document publishes demo-host-1 with another public key, and every reviewer
// verifies there. With UnpublishedKey the bundle is cut, verified under the
// signer's own key, and the report says the key is not published.
func TestMintRefusesAKeyTheDocumentDoesNotPublish(t *testing.T) {
	other := exampleSigner(t, true)
	cut, err := mint.Run(mint.Job{Input: exampleInput(t, other), Host: other})
	var unpub *mint.UnpublishedKeyError
	if !errors.As(err, &unpub) || cut != nil {
		t.Fatalf("got %v, %v; want *UnpublishedKeyError and no cut", cut, err)
	}
	if !strings.Contains(err.Error(), "--unpublished-key") {
		t.Errorf("the error names no way out: %v", err)
	}
	cut, err = mint.Run(mint.Job{Input: exampleInput(t, other), Host: other, UnpublishedKey: true})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Report.KeyNotPublished || cut.Verdict.Outcome != verify.Verified {
		t.Errorf("keyNotPublished %v, self-check %s", cut.Report.KeyNotPublished, cut.Verdict.Outcome)
	}
	// Under the published key, as a reviewer checks it, the bundle is refused.
	published := exampleSigner(t, false).Key("demo-host-1")
	if v, err := verify.Parse(cut.Data, verify.Options{HostKeys: keys.Set{published}, Registry: profiles.Default()}); err != nil || !v.HasRejection(verify.KindSignatureInvalid) {
		t.Errorf("under the published key: %v", err)
	}
	// The right key: published, verified under it, nothing to say.
	right := exampleSigner(t, false)
	cut, err = mint.Run(mint.Job{Input: exampleInput(t, right), Host: right})
	if err != nil || cut.Report.KeyNotPublished {
		t.Errorf("the published key: %v, keyNotPublished %v", err, cut != nil && cut.Report.KeyNotPublished)
	}
}

// sign refuses the same wrong key, as host, on a bundle minted unsigned; with
// UnpublishedKey it signs and says so. A benign setting found in the document
// does not make sign refuse it as a secret in signed content.
func TestSignRefusesAKeyTheDocumentDoesNotPublish(t *testing.T) {
	right := exampleSigner(t, false)
	in := exampleInput(t, right)
	in.KeyPEM = nil
	unsigned, err := mint.Run(mint.Job{Input: in})
	if err != nil {
		t.Fatal(err)
	}
	other := exampleSigner(t, true)
	env := []string{"OPENWOP_TEST_KEY_ALG=ed25519", "OPENWOP_WEBHOOK_SIGNING_KEY_SCHEME=standard-webhooks-1"}
	job := mint.SignJob{Data: unsigned.Data, Name: "unsigned.json", Signer: other, KeyID: "demo-host-1", Registry: profiles.Default(),
		Secrets: mint.CollectSecrets(nil, env, other.PEM, "demo-host-1")}
	signed, err := mint.SignFile(job)
	var unpub *mint.UnpublishedKeyError
	if !errors.As(err, &unpub) || signed != nil {
		t.Fatalf("got %v; want *UnpublishedKeyError and nothing signed", err)
	}
	job.UnpublishedKey = true
	if signed, err = mint.SignFile(job); err != nil || !signed.KeyNotPublished {
		t.Fatalf("with UnpublishedKey: %v", err)
	}
	job.Signer, job.UnpublishedKey = right, false
	job.Secrets = mint.CollectSecrets(nil, env, right.PEM, "demo-host-1")
	if signed, err = mint.SignFile(job); err != nil || signed.KeyNotPublished || signed.Verdict.Outcome != verify.Verified {
		t.Fatalf("the published key: %v", err)
	}
	if len(signed.LeftAlone) != 2 || len(signed.Redacted) != 0 {
		t.Errorf("left alone %q, redacted %q", signed.LeftAlone, signed.Redacted)
	}
	committed, _ := os.ReadFile(filepath.Join(exampleDir, "spec-repo/evidence/v2-host-bundles/demo-host.json"))
	if !bytes.Equal(signed.Data, committed) {
		t.Error("minted unsigned then signed, the walk-through differs from the committed bundle")
	}
}

// CollectSecrets takes an environment value for a secret only when it could be a
// credential; explicit values keep no minimum.
func TestCollectSecretsFromTheEnvironment(t *testing.T) {
	set := mint.CollectSecrets([]string{"short"}, []string{
		"OPENWOP_TEST_KEY_ALG=ed25519",
		"OPENWOP_FLAG_TOKEN=true",
		"OPENWOP_TOKEN_TTL=3600",
		"OPENWOP_SHORT_KEY=abc123",
		"OPENWOP_API_KEY=hk_live_8f2a9c1d7e3b",
		"OPENWOP_BASE_URL=https://h.example/a-long-value",
		"HOME=/root",
	}, nil)
	want := []string{mint.Canary, "hk_live_8f2a9c1d7e3b", "short"}
	if !slices.Equal(set.Values, want) {
		t.Errorf("secrets %q, want %q", set.Values, want)
	}
	if len(set.LeftAlone) != 4 {
		t.Errorf("left alone %q", set.LeftAlone)
	}
	if set.From("hk_live_8f2a9c1d7e3b") != "the value of OPENWOP_API_KEY" {
		t.Errorf("from %q", set.From("hk_live_8f2a9c1d7e3b"))
	}
}
