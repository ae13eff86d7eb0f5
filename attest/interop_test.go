package attest_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/attest"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
	intoto "github.com/in-toto/attestation/go/v1"
	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"google.golang.org/protobuf/encoding/protojson"
)

func envelopeKeyID(t *testing.T, env []byte) string {
	t.Helper()
	var e attest.Envelope
	if err := json.Unmarshal(env, &e); err != nil || len(e.Signatures) != 1 {
		t.Fatalf("envelope: %v", err)
	}
	return e.Signatures[0].KeyID
}

// By default the envelope's keyid is the key's DSSE fingerprint, which DSSE
// verifiers (go-securesystemslib, slsa-verifier verify-vsa) compute themselves
// when told no key id; none and id are there on request, and certcut's own
// check accepts all three.
func TestDSSEKeyIDModes(t *testing.T) {
	a, err := attest.Bundle(attest.BundleRequest{Options: opts(), Data: testkit.Encode(testkit.Signed("https://host.example")),
		Name: "fresh.json", Verify: hostTrust(), Predicate: attest.PredicateVSA})
	if err != nil {
		t.Fatal(err)
	}
	pub := testkit.Public("attestor")
	fp, err := ssldsse.SHA256KeyID(pub)
	if err != nil || !strings.HasPrefix(fp, "SHA256:") {
		t.Fatalf("fingerprint %q: %v", fp, err)
	}
	env, err := attest.Sign(a.Statement, testSigner(t, "attestor"), "lab-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := envelopeKeyID(t, env); got != fp {
		t.Fatalf("default keyid %q, want the DSSE fingerprint %q", got, fp)
	}
	if _, err := independentCheck(env, pub, ""); err != nil {
		t.Fatalf("a DSSE verifier told no key id refuses the default envelope: %v", err)
	}
	// Two trusted keys: the keyid must pick the key, the lone-key rule cannot.
	two := append(attestorSet("attestor", "lab-1"), attestorSet("other", "lab-2")...)
	for mode, want := range map[attest.KeyIDMode]string{attest.KeyIDFingerprint: fp, attest.KeyIDNone: "", attest.KeyIDName: "lab-1"} {
		env, err := attest.SignWith(a.Statement, testSigner(t, "attestor"), "lab-1", mode)
		if err != nil {
			t.Fatal(err)
		}
		if got := envelopeKeyID(t, env); got != want {
			t.Errorf("%s: keyid %q, want %q", mode, got, want)
		}
		res, err := attest.Verify(env, attest.Policy{Keys: attestorSet("attestor", "lab-1")})
		if err != nil || res.Outcome != verify.Verified {
			t.Errorf("%s: verify under the one key: %v %s %v", mode, err, res.Outcome, res.Problems)
		}
		if mode != attest.KeyIDNone {
			res, err := attest.Verify(env, attest.Policy{Keys: two})
			if err != nil || res.Outcome != verify.Verified {
				t.Errorf("%s: verify under two keys: %v %s %v %v", mode, err, res.Outcome, res.Problems, res.Unverified)
			}
		}
	}
	if _, err := attest.ParseKeyIDMode("sha1"); err == nil {
		t.Error("an unknown --dsse-keyid mode is accepted")
	}
}

func TestRemoteURL(t *testing.T) {
	for in, want := range map[string]string{
		"git@github.com:openwop/openwop.git":             "https://github.com/openwop/openwop",
		"https://github.com/openwop/openwop.git":         "https://github.com/openwop/openwop",
		"https://user:token@github.com/openwop/openwop/": "https://github.com/openwop/openwop",
		"ssh://git@gitlab.example:2222/a/b.git":          "https://gitlab.example/a/b",
		"/srv/git/openwop.git":                           "",
		"../openwop":                                     "",
		"file:///srv/git/openwop.git":                    "",
	} {
		got, ok := attest.RemoteURL(in)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A gate VSA names its files by absolute URIs (in-toto's ResourceURI is an RFC
// 3986 URI): git+https://host/owner/repo@COMMIT#path from the repository's
// origin and HEAD, a file: URI without them; and its signed keyring setting is
// the repository's path, not one of the signer's machine.
func TestGateURIsAbsolute(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIPPED: git is not installed")
	}
	x, err := rfc.ReadFile(exampleRFC)
	if err != nil {
		t.Fatal(err)
	}
	absKeyring, err := filepath.Abs(filepath.Join(exampleRepo, "keyring.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := gate.Open(t.Context(), gate.Config{Root: exampleRepo, MinTier: 1, KeyringPath: absKeyring, Loader: &gate.Loader{Options: exampleVerify(t)}})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Accepted(context.Background(), gate.AcceptedRequest{RFC: x})
	if rep.Status != gate.Pass {
		t.Fatalf("gate %s", rep.Status)
	}

	// A throwaway clone-like repository: origin set, one commit.
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "remote", "add", "origin", "git@github.com:openwop/openwop.git")
	os.MkdirAll(filepath.Join(dir, "spec"), 0o755)
	os.WriteFile(filepath.Join(dir, "spec", "README.md"), []byte("x\n"), 0o644)
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-qm", "one")
	head := gitRun(t, dir, "rev-parse", "HEAD")
	base := attest.RepoURIBase(filepath.Join(dir, "spec"))
	if want := "git+https://github.com/openwop/openwop@" + head + "#spec/"; base.Prefix != want || base.LastResort {
		t.Fatalf("URI base %+v, want %s", base, want)
	}
	if fb := attest.RepoURIBase(t.TempDir()); !fb.LastResort || !strings.HasPrefix(fb.Prefix, "file:///") {
		t.Fatalf("without git: %+v", fb)
	}

	a, err := attest.Gate(attest.GateRequest{Options: attest.Options{Version: "v0.0.0-test", Time: at, URIBase: base}, Report: rep, Root: exampleRepo})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := protojson.Marshal(a.Statement.GetPredicate())
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		ResourceURI string `json:"resourceUri"`
		Policy      struct {
			URI string `json:"uri"`
		} `json:"policy"`
		Inputs []struct {
			URI string `json:"uri"`
		} `json:"inputAttestations"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	uris := []string{p.ResourceURI, p.Policy.URI}
	for _, in := range p.Inputs {
		uris = append(uris, in.URI)
	}
	if len(p.Inputs) == 0 {
		t.Fatal("no input attestations")
	}
	for _, u := range uris {
		parsed, err := url.Parse(u)
		if err != nil || !parsed.IsAbs() || !strings.HasPrefix(u, base.Prefix) {
			t.Errorf("URI %q is not absolute under %s", u, base.Prefix)
		}
	}
	if want := base.Prefix + "RFCS/0211-a2a-error-details-are-errorinfo.md"; p.ResourceURI != want {
		t.Errorf("resourceUri %q, want %q", p.ResourceURI, want)
	}
	st, _ := protojson.Marshal(a.Statement)
	if strings.Contains(string(st), absKeyring) || !strings.Contains(string(st), `"keyring":"keyring.json"`) {
		t.Errorf("the signed settings name the keyring by a path of this machine:\n%s", st)
	}
}

// slsa-verifier (v2.7.1, scripts/interop.sh --ci builds it) verifies certcut's VSA
// in its default invocation: --public-key-path, no --public-key-id.
func TestSLSAVerifierDefault(t *testing.T) {
	bin, err := exec.LookPath("slsa-verifier")
	if err != nil {
		t.Skip("SKIPPED: slsa-verifier is not on PATH (scripts/interop.sh --ci builds v2.7.1 and runs this test)")
	}
	data := testkit.Encode(testkit.Signed("https://host.example"))
	a, err := attest.Bundle(attest.BundleRequest{Options: opts(), Data: data, Name: "fresh.json", Verify: hostTrust(), Predicate: attest.PredicateVSA})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	der, err := x509.MarshalPKIXPublicKey(testkit.Public("attestor"))
	if err != nil {
		t.Fatal(err)
	}
	pubFile, envFile := filepath.Join(dir, "attestor.pub.pem"), filepath.Join(dir, "vsa.json")
	os.WriteFile(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
	var levels []string
	var st intoto.Statement
	raw, _ := protojson.Marshal(a.Statement)
	protojson.Unmarshal(raw, &st)
	fields := st.GetPredicate().GetFields()
	for _, l := range fields["verifiedLevels"].GetListValue().GetValues() {
		levels = append(levels, l.GetStringValue())
	}
	for _, mode := range []attest.KeyIDMode{attest.KeyIDFingerprint, attest.KeyIDNone} {
		env, err := attest.SignWith(a.Statement, testSigner(t, "attestor"), "lab-1", mode)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(envFile, env, 0o644)
		args := []string{"verify-vsa", "--attestation-path", envFile, "--public-key-path", pubFile,
			"--subject-digest", "sha256:" + attest.Sha256Hex(data),
			"--verifier-id", fields["verifier"].GetStructValue().GetFields()["id"].GetStringValue(),
			"--resource-uri", fields["resourceUri"].GetStringValue()}
		if len(levels) == 0 {
			t.Fatal("the VSA has no verifiedLevels")
		}
		for _, l := range levels { // v2.7.1's flags are singular and repeated
			args = append(args, "--verified-level", l)
		}
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Errorf("%s: slsa-verifier %s: %v\n%s", mode, strings.Join(args, " "), err, out)
		}
		// It does check: another subject digest is refused.
		wrong := append([]string{}, args...)
		wrong[6] = "sha256:" + strings.Repeat("0", 64)
		if out, err := exec.Command(bin, wrong...).CombinedOutput(); err == nil {
			t.Errorf("%s: slsa-verifier accepts a VSA for another subject digest:\n%s", mode, out)
		}
		if mode != attest.KeyIDFingerprint {
			continue
		}
		// --dsse-keyid id (docs/attestations.md): refused without
		// --public-key-id, verified with it.
		env, err = attest.SignWith(a.Statement, testSigner(t, "attestor"), "lab-1", attest.KeyIDName)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(envFile, env, 0o644)
		if out, err := exec.Command(bin, args...).CombinedOutput(); err == nil {
			t.Errorf("id: slsa-verifier accepts a keyid it was not told without --public-key-id:\n%s", out)
		}
		if out, err := exec.Command(bin, append(args, "--public-key-id", "lab-1")...).CombinedOutput(); err != nil {
			t.Errorf("id: slsa-verifier --public-key-id lab-1: %v\n%s", err, out)
		}
	}
	_ = keys.KeyIDPattern
}
