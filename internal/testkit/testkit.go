// Package testkit builds coherent, signed bundles and deterministic keys for
// certcut's own tests and demos. Its keys are derived from public names: never use
// them for anything but tests.
package testkit

import (
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/keys"
)

// Key returns an Ed25519 private key derived from name. Anyone can derive it: test
// and demo use only.
func Key(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("certcut test key, never for real use: " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// Public returns the public half of Key(name).
func Public(name string) ed25519.PublicKey { return Key(name).Public().(ed25519.PublicKey) }

// HostKeyID is the key id test bundles are signed with by default.
const HostKeyID = "test-host-1"

// Discovery returns a v2 discovery document for origin that derives
// openwop-discovery-core and openwop-core-standard and publishes the given keys.
func Discovery(origin string, published ...keys.SigningKey) bundle.Value {
	keyItems := make([]bundle.Value, len(published))
	for i, k := range published {
		keyItems[i] = k.Value()
	}
	family := func() bundle.Value {
		return bundle.ObjectValue(
			bundle.Member{Name: "status", Value: bundle.StringValue("experimental")},
			bundle.Member{Name: "since", Value: bundle.StringValue("2.0")},
		)
	}
	return bundle.ObjectValue(
		bundle.Member{Name: "protocolVersions", Value: bundle.StringsValue([]string{"2.0"})},
		bundle.Member{Name: "preferredVersion", Value: bundle.StringValue("2.0")},
		bundle.Member{Name: "implementation", Value: bundle.ObjectValue(
			bundle.Member{Name: "name", Value: bundle.StringValue("test-host")},
			bundle.Member{Name: "version", Value: bundle.StringValue("1.0.0")},
			bundle.Member{Name: "vendor", Value: bundle.StringValue("certcut tests")},
		)},
		bundle.Member{Name: "signingKeys", Value: bundle.ArrayValue(keyItems...)},
		bundle.Member{Name: "limits", Value: bundle.ObjectValue(
			bundle.Member{Name: "maxRunDurationMs", Value: bundle.IntValue(600000)},
			bundle.Member{Name: "backoffFactor", Value: bundle.NumberValue(0.5)},
		)},
		bundle.Member{Name: "interrupt", Value: family()},
		bundle.Member{Name: "replay", Value: family()},
		bundle.Member{Name: "webhooks", Value: family()},
		bundle.Member{Name: "idempotency", Value: family()},
		bundle.Member{Name: "eventLog", Value: family()},
		bundle.Member{Name: "note", Value: bundle.StringValue("Ünïcödé, U+2028 \u2028 and an astral 😀 keep the digest honest")},
	)
}

func n(i int64) *int64   { return &i }
func s(v string) *string { return &v }

// Row returns a passing row with the given assertions.
func Row(id, scenario string, assertions int64) bundle.Row {
	return bundle.Row{ID: id, Scenario: scenario, Result: bundle.ExecutedPass, Assertions: n(assertions)}
}

// NonPassRow returns a row with a non-pass result and its reason.
func NonPassRow(id, scenario, result, reason string) bundle.Row {
	return bundle.Row{ID: id, Scenario: scenario, Result: result, Assertions: n(0), Detail: s(reason)}
}

// Rows returns a small, realistic ledger: the five RFC 0211 A2A error-details legs,
// the floor scenarios of the two derived profiles, the egress-guard row and the
// RFC 0158 durability rows (with recovery evidence), plus one inapplicable row.
func Rows() []bundle.Row {
	const a2a = "v2-a2a-client-error-details.test.ts"
	rows := []bundle.Row{
		Row("openwop.requirement.0211.a2a-error-data-shape", a2a, 4),
		Row("openwop.requirement.0211.a2a-unreadable-not-found-details", a2a, 2),
		Row("openwop.requirement.0211.a2a-no-openwop-envelope", a2a, 3),
		Row("openwop.requirement.0211.a2a-version-not-supported-shape", "v2-a2a-operation-map.test.ts", 2),
		Row("openwop.requirement.0211.a2a-client-reads-either-shape", a2a, 5),
		Row("openwop.scenario.v2-a2a-client-error-details", a2a, 14),
		Row("openwop.requirement.0171.webhook-egress-refused", "v2-webhook-egress-refusal.test.ts", 2),
	}
	for _, f := range []string{"v2-capabilities-root-closed", "v2-preferred-version-default", "v2-version-header-honored",
		"v2-interrupt-token-scheme", "v2-effect-seam-manifest", "v2-webhook-durable-delivery", "v2-idempotency-key-grammar", "v2-era-key"} {
		rows = append(rows, Row("openwop.floor."+f, f+".test.ts", 3))
	}
	const dur = "v2-durability-recovery.test.ts"
	bound := Row("openwop.requirement.0158.bound-is-derived", dur, 1)
	bound.Evidence = &bundle.Evidence{RecoveryBounds: []bundle.RecoveryBound{{
		Class: "single-instance-restart", Bound: 6000,
		Terms: []bundle.BoundTerm{{Name: "supervisor.restartDelay", Ms: 1000}, {Name: "boot.reentryBudget", Ms: 5000}},
	}}}
	kill1 := Row("openwop.requirement.0158.kill-after-accept", dur, 1)
	kill1.Evidence = &bundle.Evidence{Recovery: &bundle.Recovery{Class: "single-instance-restart", BoundMs: 6000, ObservedMs: 1685}}
	kill2 := Row("openwop.requirement.0158.kill-during-execution", dur, 1)
	kill2.Evidence = &bundle.Evidence{Recovery: &bundle.Recovery{Class: "single-instance-restart", BoundMs: 6000, ObservedMs: 1724}}
	rows = append(rows, bound, kill1, kill2,
		Row("openwop.requirement.0158.duplicate-delivery", dur, 2),
		Row("openwop.requirement.0158.poison-exhaustion", dur, 2),
		NonPassRow("openwop.scenario.v2-sandbox-exec", "v2-sandbox-exec.test.ts", bundle.Inapplicable, "profile not advertised in the captured discovery set"),
	)
	return rows
}

// Unsigned returns a sealed, unsigned bundle for origin with Rows() and a discovery
// document that publishes the test host key under HostKeyID.
func Unsigned(origin string) *bundle.Bundle {
	hostKey := keys.PublicKey{Key: Public("host"), KeyID: HostKeyID}
	doc := Discovery(origin, hostKey.Entry())
	b := &bundle.Bundle{
		BundleVersion: bundle.Version,
		GeneratedAt:   "2026-11-01T12:00:00.000Z",
		Suite:         bundle.Suite{Name: bundle.SuiteName, Version: "2.45.30", TargetMajor: 2, SpecArtifactsVersion: "2.45.30"},
		Host: bundle.Host{
			Name: "test-host", Version: "1.0.0", Vendor: "certcut tests",
			Build:        bundle.Build{Kind: bundle.BuildCommit, ID: "0123456789abcdef0123456789abcdef01234567"},
			SigningKeyID: HostKeyID,
		},
		Discovery: bundle.Discovery{
			URL: origin + "/.well-known/openwop", ProtocolVersions: []string{"2.0"}, PreferredVersion: "2.0", Document: &doc,
		},
		ClaimedProfiles: []bundle.ClaimedProfile{
			{ID: "openwop-discovery-core", EvidenceTier: bundle.TierSelf, WitnessCount: 3, Certified: true},
			{ID: "openwop-core-standard", EvidenceTier: bundle.TierSelf, WitnessCount: 5, Certified: true},
		},
		Results:    bundle.ResultSet{Requirements: Rows()},
		Durability: &bundle.Durability{Rung: bundle.RungDurableSingleInstance},
	}
	if err := b.Seal(); err != nil {
		panic(err)
	}
	return b
}

// Sign signs b as its host with Key(keyName) under keyID.
func Sign(b *bundle.Bundle, keyName, keyID string) *bundle.Bundle {
	signer, err := keys.NewSigner(Key(keyName))
	if err != nil {
		panic(err)
	}
	if err := keys.SignBundle(b, signer, keyID); err != nil {
		panic(err)
	}
	return b
}

// Signed returns Unsigned(origin) signed with the "host" key as HostKeyID.
func Signed(origin string) *bundle.Bundle { return Sign(Unsigned(origin), "host", HostKeyID) }

// Encode returns the bundle file bytes (2-space JSON and a newline).
func Encode(b *bundle.Bundle) []byte {
	out, err := bundle.Indent(b.Raw)
	if err != nil {
		panic(err)
	}
	return out
}

// HostPublic returns the test host key as a trusted key.
func HostPublic() keys.PublicKey {
	return keys.PublicKey{Key: Public("host"), KeyID: HostKeyID, Source: keys.SourcePEMFile, Origin: "testkit"}
}

// CorpusDir returns ../shared/corpus/openwop relative to the module root, or skips
// the test, loudly, when it is absent.
func CorpusDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(ModuleRoot(), "..", "shared", "corpus", "openwop")
	if env := os.Getenv("CERTCUT_CORPUS"); env != "" {
		dir = env // bench/run.sh passes the corpus it was given
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("SKIPPED: the OpenWOP corpus is not at %s (CI has it; clone the workspace with ../shared beside the project to run interop tests)", dir)
	}
	return dir
}

// ModuleRoot returns the directory holding go.mod.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// LargestCorpusBundle returns the path and bytes of the largest bundle in the
// corpus (the benchmarks' yardstick), skipping loudly when the corpus is absent.
func LargestCorpusBundle(t testing.TB) (string, []byte) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(CorpusDir(t), "evidence", "*", "*.json"))
	var best string
	var size int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil && info.Size() > size {
			best, size = f, info.Size()
		}
	}
	data, err := os.ReadFile(best)
	if err != nil {
		t.Fatal(err)
	}
	return best, data
}
