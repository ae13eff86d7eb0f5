package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptPIN is the user PIN of the scripts' tokens: distinctive, so that a script
// can check it appears in no output and no file.
const scriptPIN = "pin-93e1c07b"

// softhsmMissing says why scripts that need a token skip ("" when they run):
// SoftHSM 2 or OpenSC's pkcs11-tool is not installed, or this build has no cgo.
func softhsmMissing() string {
	if !keys.PKCS11Available {
		return "this build has no cgo, and PKCS#11 needs the cgo build"
	}
	if _, err := testkit.SoftHSMModule(); err != nil {
		return err.Error()
	}
	return ""
}

// softhsm: make a SoftHSM 2 token "certcut" in $WORK/hsm, with pkcs11-tool: Ed25519
// keys host-ed (id 01) and verifier-ed (02), an RSA key host-rsa (03) and a P-256
// key host-p256 (04). It sets SOFTHSM2_CONF, $P11MODULE (the module), $P11PIN (the
// user PIN), $PINFILE (a mode-0600 file holding it), $HOSTKEY and $VERIFIERKEY
// (the Ed25519 keys' URIs, with pin-source=$PINFILE) and $TOKEN (the URI's
// module and PIN part, to append to pkcs11:token=certcut;object=…).
func cmdSoftHSM(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: softhsm")
	}
	h, err := testkit.NewSoftHSM(ts.MkAbs("hsm"), "certcut", scriptPIN)
	ts.Check(err)
	for _, k := range []struct{ typ, label, id string }{
		{"EC:edwards25519", "host-ed", "01"},
		{"EC:edwards25519", "verifier-ed", "02"},
		{"rsa:2048", "host-rsa", "03"},
		{"EC:prime256v1", "host-p256", "04"},
	} {
		ts.Check(h.GenerateKey(k.typ, k.label, k.id))
	}
	ts.Setenv("SOFTHSM2_CONF", h.Conf)
	ts.Setenv("P11MODULE", h.Module)
	ts.Setenv("P11PIN", h.PIN)
	ts.Setenv("PINFILE", h.PINFile)
	ts.Setenv("HOSTKEY", h.URI("host-ed"))
	ts.Setenv("VERIFIERKEY", h.URI("verifier-ed"))
	ts.Setenv("TOKEN", "?module-path="+h.Module+"&pin-source="+h.PINFile)
}

// A build without cgo (as release binaries are built) compiles, and refuses a
// pkcs11: key with one line saying it needs the cgo build, exit 3, while its
// other keys work as ever.
func TestPKCS11WithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("building without cgo is skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "bundle")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "keys", "public", "--format", "raw", "--key", "pkcs11:token=certcut;object=host?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-value=1234-secret")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitInput {
		t.Fatalf("exit %v, want %d\n%s", err, exitInput, out)
	}
	want := "bundle: --key: pkcs11:token=certcut;object=host?module-path=/usr/lib/softhsm/libsofthsm2.so: loading the module: PKCS#11 needs the cgo build: "
	if !strings.HasPrefix(string(out), want) || strings.Count(string(out), "\n") != 1 {
		t.Errorf("output:\n%s\nwant one line starting %q", out, want)
	}
	if strings.Contains(string(out), "1234-secret") {
		t.Errorf("the PIN is echoed:\n%s", out)
	}
	out, err = exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), ", PKCS#11 tokens: no, they need the cgo build)") {
		t.Errorf("version of the build without cgo: %v\n%s", err, out)
	}
	dir := t.TempDir()
	priv, _ := keys.MarshalPrivatePEM(testkit.Key("host"))
	os.WriteFile(filepath.Join(dir, "host.key.pem"), priv, 0o600)
	out, err = exec.Command(bin, "keys", "public", "--format", "raw", "--key", filepath.Join(dir, "host.key.pem")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != (keys.PublicKey{Key: testkit.Public("host")}).Base64URL() {
		t.Errorf("a PEM key in the build without cgo: %v\n%s", err, out)
	}
}
