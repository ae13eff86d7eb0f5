package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/testkit"
	"github.com/certcut/certcut/keys"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"bundle": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// exit-code N bundle ARGS...: run bundle and succeed only if it exits N.
		"exit-code": func() {
			want, err := strconv.Atoi(os.Args[1])
			if err != nil || len(os.Args) < 3 || os.Args[2] != "bundle" {
				fmt.Fprintln(os.Stderr, "usage: exit-code N bundle ARGS...")
				os.Exit(99)
			}
			if got := run(os.Args[3:], os.Stdin, os.Stdout, os.Stderr); got != want {
				fmt.Fprintf(os.Stderr, "exit-code: bundle exited %d, want %d\n", got, want)
				os.Exit(98)
			}
			os.Exit(0)
		},
	})
}

// TestScripts runs every testdata/script/*.txtar. Each script starts in a work
// directory holding:
//
//	fresh.json        a coherent bundle signed with the test host key
//	host.pub.pem      that key (SPKI PEM); keys/test-host-1.pub.pem too
//	other.pub.pem     an unrelated key
//	host.key.pem      the test host's private key (PKCS#8, mode 0600)
//	discovery.json    a discovery document publishing host.pub.pem as test-host-1
//
// and $CORPUS names ../shared/corpus/openwop; scripts that need it start with
// [!corpus] skip. $EXAMPLES names the repository's examples/ (read, never
// written). Scripts that need a PKCS#11 token start with [!softhsm] skip and make
// one with the softhsm command (pkcs11_test.go).
func TestScripts(t *testing.T) {
	corpus := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop")
	_, corpusErr := os.Stat(corpus)
	if corpusErr != nil {
		t.Logf("SKIPPING corpus scripts: %s is absent", corpus)
	}
	noOpenSSL := testkit.OpenSSLMissing()
	if noOpenSSL != "" {
		t.Logf("SKIPPING trusted-time scripts: %s", noOpenSSL)
	}
	noToken := softhsmMissing()
	if noToken != "" {
		t.Logf("SKIPPING PKCS#11 token scripts: %s", noToken)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CORPUS", corpus)
			env.Setenv("EXAMPLES", filepath.Join(testkit.ModuleRoot(), "examples"))
			env.Setenv("NO_COLOR", "1")
			return writeFixtures(env.WorkDir)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "corpus":
				return corpusErr == nil, nil
			case "softhsm":
				return noToken == "", nil
			case "openssl":
				return noOpenSSL == "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonset":  cmdJSONSet,
			"bigfile":  cmdBigFile,
			"deepjson": cmdDeepJSON,
			"hexfile":  cmdHexFile,
			// mint, sign and keys scripts
			"serve":    cmdServe,
			"vault":    cmdVault,
			"filemode": cmdFileMode,
			"jsonget":  cmdJSONGet,
			"softhsm":  cmdSoftHSM,
			// gate, census, diff and keyring scripts
			"specrepo":   cmdSpecRepo,
			"livehost":   cmdLiveHost,
			"servedisco": cmdServeDisco,
			// attest scripts
			"sha256env":  cmdSha256Env,
			"attestflip": cmdAttestFlip,
			// trusted-time scripts (tsa_test.go)
			"tsa":      cmdTSA,
			"tsastamp": cmdTSAStamp,
			"sigfile":  cmdSigFile,
			"truncate": cmdTruncate,
		},
	})
}

func writeFixtures(dir string) error {
	b := testkit.Signed("https://host.example")
	pub, err := keys.MarshalPublicPEM(testkit.Public("host"))
	if err != nil {
		return err
	}
	other, err := keys.MarshalPublicPEM(testkit.Public("other"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "keys"), 0o755); err != nil {
		return err
	}
	privPEM, err := keys.MarshalPrivatePEM(testkit.Key("host"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "host.key.pem"), privPEM, 0o600); err != nil {
		return err
	}
	doc, err := bundle.Indent(*b.Discovery.Document)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"discovery.json":                         doc,
		"fresh.json":                             testkit.Encode(b),
		"host.pub.pem":                           pub,
		"keys/" + testkit.HostKeyID + ".pub.pem": pub,
		"other.pub.pem":                          other,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// jsonset IN OUT PATH JSON: write IN with the value at the slash PATH replaced by
// JSON (array indexes are numbers), in the bundle file layout.
func cmdJSONSet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: jsonset IN OUT PATH JSON")
	}
	root, err := bundle.ParseIJSON([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	val, err := bundle.ParseIJSON([]byte(args[3]))
	ts.Check(err)
	root = setPath(ts, root, strings.Split(args[2], "/"), val)
	out, err := bundle.Indent(root)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
}

func setPath(ts *testscript.TestScript, cur bundle.Value, path []string, val bundle.Value) bundle.Value {
	if len(path) == 0 {
		return val
	}
	if cur.Kind() == bundle.Array {
		i, err := strconv.Atoi(path[0])
		ts.Check(err)
		items := append([]bundle.Value(nil), cur.Items()...)
		items[i] = setPath(ts, items[i], path[1:], val)
		return bundle.ArrayValue(items...)
	}
	child, _ := cur.Get(path[0])
	return cur.With(path[0], setPath(ts, child, path[1:], val))
}

// bigfile FILE MB: write a JSON array of MB mebibytes.
func cmdBigFile(ts *testscript.TestScript, neg bool, args []string) {
	mb, err := strconv.Atoi(args[1])
	ts.Check(err)
	var buf bytes.Buffer
	buf.WriteByte('[')
	chunk := strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 1024)
	for buf.Len() < mb<<20 {
		buf.WriteString(chunk)
	}
	buf.WriteString(`""]`)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}

// hexfile FILE HEX: write the bytes HEX spells.
func cmdHexFile(ts *testscript.TestScript, neg bool, args []string) {
	data, err := hex.DecodeString(args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// deepjson FILE DEPTH: write DEPTH nested arrays.
func cmdDeepJSON(ts *testscript.TestScript, neg bool, args []string) {
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Repeat("[", n)+strings.Repeat("]", n)), 0o644))
}

// serve MODE [FILE]: start a loopback HTTP server for the rest of the script and
// set $URL to its base URL. It answers /.well-known/openwop by MODE:
//
//	json FILE   FILE as application/json, only with OpenWOP-Version: 2.0 (else 406)
//	500         HTTP 500
//	html        an HTML page
//	big         a 50 MB JSON body
//	slow        nothing until the client gives up
//	away        a redirect to another origin
func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: serve json FILE | 500 | html | big | slow | away")
	}
	var body []byte
	if args[0] == "json" {
		if len(args) != 2 {
			ts.Fatalf("usage: serve json FILE")
		}
		body = []byte(ts.ReadFile(args[1]))
	}
	done := make(chan struct{})
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/openwop" {
			http.NotFound(w, r)
			return
		}
		switch args[0] {
		case "json":
			if r.Header.Get("OpenWOP-Version") != "2.0" || r.Header.Get("Accept") != "application/json" {
				http.Error(w, "send OpenWOP-Version: 2.0 and Accept: application/json", http.StatusNotAcceptable)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		case "500":
			http.Error(w, "internal error", http.StatusInternalServerError)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<!doctype html><title>It works</title>"))
		case "big":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("["))
			chunk := bytes.Repeat([]byte(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`), 16384)
			for written := 0; written < 50<<20; written += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "slow":
			select {
			case <-done:
			case <-r.Context().Done():
			}
		case "away":
			http.Redirect(w, r, other.URL+"/.well-known/openwop", http.StatusFound)
		default:
			http.Error(w, "unknown mode", http.StatusTeapot)
		}
	}))
	ts.Defer(func() {
		close(done)
		srv.Close()
		other.Close()
	})
	ts.Setenv("URL", srv.URL)
}

// vault NAME PEMFILE: start a loopback HashiCorp Vault transit fake holding the
// Ed25519 key of PEMFILE as transit key NAME; set VAULT_ADDR and VAULT_TOKEN.
func cmdVault(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: vault NAME PEMFILE")
	}
	priv, err := keys.ParsePrivatePEM([]byte(ts.ReadFile(args[1])))
	ts.Check(err)
	v := testkit.NewVault(map[string]ed25519.PrivateKey{args[0]: priv})
	v.AddECDSA("p256")
	ts.Defer(v.Close)
	ts.Setenv("VAULT_ADDR", v.URL)
	ts.Setenv("VAULT_TOKEN", testkit.VaultToken)
}

// filemode FILE PERM: succeed if FILE's permission bits are PERM (octal).
func cmdFileMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: filemode FILE PERM")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	info, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if got := uint64(info.Mode().Perm()); (got == want) == neg {
		ts.Fatalf("%s has mode %04o (want %s%04o)", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// jsonget FILE PATH ENV: set $ENV to the string or number at the slash PATH of FILE.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: jsonget FILE PATH ENV")
	}
	cur, err := bundle.ParseIJSON([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	for _, step := range strings.Split(args[1], "/") {
		if cur.Kind() == bundle.Array {
			i, err := strconv.Atoi(step)
			ts.Check(err)
			cur = cur.Items()[i]
			continue
		}
		next, ok := cur.Get(step)
		if !ok {
			ts.Fatalf("%s has no %s", args[0], args[1])
		}
		cur = next
	}
	out, err := bundle.Canonical(cur)
	ts.Check(err)
	ts.Setenv(args[2], strings.Trim(string(out), `"`))
}
