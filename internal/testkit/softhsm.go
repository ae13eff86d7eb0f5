package testkit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SoftHSM is a SoftHSM 2 token in a directory of its own, for tests of PKCS#11
// keys against a real token implementation. It sets no environment itself: give
// Conf to the module as SOFTHSM2_CONF (Env does) before the module is loaded.
type SoftHSM struct {
	Module  string // the SoftHSM 2 PKCS#11 module
	Dir     string // the token directory and the configuration file's home
	Conf    string // the SOFTHSM2_CONF file
	Label   string // the token's label
	PIN     string // the user PIN
	SOPIN   string // the security officer's PIN
	PINFile string // a mode-0600 file holding PIN
}

// softHSMModules are where Debian, Fedora, Homebrew and source builds put the
// module; SOFTHSM2_MODULE names another.
var softHSMModules = []string{
	"/usr/lib/softhsm/libsofthsm2.so",
	"/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
	"/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
	"/usr/lib64/pkcs11/libsofthsm2.so",
	"/usr/local/lib/softhsm/libsofthsm2.so",
	"/opt/homebrew/lib/softhsm/libsofthsm2.so",
}

// SoftHSMModule returns the path of the SoftHSM 2 module, or why tests of token
// keys cannot run here: the module, softhsm2-util or OpenSC's pkcs11-tool (the
// independent client the tests read public keys with) is missing.
func SoftHSMModule() (string, error) {
	for _, tool := range []string{"softhsm2-util", "pkcs11-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s is not installed (apt-get install softhsm2 opensc)", tool)
		}
	}
	candidates := softHSMModules
	if m := os.Getenv("SOFTHSM2_MODULE"); m != "" {
		candidates = []string{m}
	}
	for _, m := range candidates {
		if _, err := os.Stat(m); err == nil {
			return m, nil
		}
	}
	return "", errors.New("the SoftHSM 2 module libsofthsm2.so is not installed (apt-get install softhsm2)")
}

// NewSoftHSM initialises a token labelled label with user PIN pin in dir, with
// softhsm2-util.
func NewSoftHSM(dir, label, pin string) (*SoftHSM, error) {
	module, err := SoftHSMModule()
	if err != nil {
		return nil, err
	}
	tokens := filepath.Join(dir, "tokens")
	if err := os.MkdirAll(tokens, 0o700); err != nil {
		return nil, err
	}
	h := &SoftHSM{Module: module, Dir: dir, Conf: filepath.Join(dir, "softhsm2.conf"), Label: label, PIN: pin, SOPIN: "so-" + pin, PINFile: filepath.Join(dir, "pin")}
	conf := fmt.Sprintf("directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n", tokens)
	if err := os.WriteFile(h.Conf, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(h.PINFile, []byte(pin+"\n"), 0o600); err != nil {
		return nil, err
	}
	if _, err := h.run("softhsm2-util", "--init-token", "--free", "--label", label, "--so-pin", h.SOPIN, "--pin", pin); err != nil {
		return nil, err
	}
	return h, nil
}

// Env is the environment a process needs to see this token.
func (h *SoftHSM) Env() []string { return []string{"SOFTHSM2_CONF=" + h.Conf} }

func (h *SoftHSM) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), h.Env()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out, nil
}

// Tool runs pkcs11-tool on this token, logged in, and returns its output.
func (h *SoftHSM) Tool(args ...string) ([]byte, error) {
	return h.run("pkcs11-tool", append([]string{"--module", h.Module, "--token-label", h.Label, "--login", "--pin", h.PIN}, args...)...)
}

// GenerateKey makes a key pair on the token with pkcs11-tool, as an operator
// would: keyType as pkcs11-tool spells it ("EC:edwards25519", "EC:prime256v1",
// "rsa:2048"), the label and the id in hex.
func (h *SoftHSM) GenerateKey(keyType, label, idHex string) error {
	_, err := h.Tool("--keypairgen", "--key-type", keyType, "--label", label, "--id", idHex)
	return err
}

// PublicPEM reads the public key labelled label with pkcs11-tool (not certcut)
// and returns it as an SPKI PEM.
func (h *SoftHSM) PublicPEM(label string) ([]byte, error) {
	out := filepath.Join(h.Dir, "read-"+label+".pub.pem")
	if _, err := h.run("pkcs11-tool", "--module", h.Module, "--token-label", h.Label, "--read-object", "--type", "pubkey", "--label", label, "--output-file", out); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

// URI names the key labelled object on this token, with the module and the PIN
// file.
func (h *SoftHSM) URI(object string) string {
	return fmt.Sprintf("pkcs11:token=%s;object=%s?module-path=%s&pin-source=%s", h.Label, object, h.Module, h.PINFile)
}
