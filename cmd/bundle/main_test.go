package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
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
//
// and $CORPUS names ../shared/corpus/openwop; scripts that need it start with
// [!corpus] skip.
func TestScripts(t *testing.T) {
	corpus := filepath.Join(testkit.ModuleRoot(), "..", "shared", "corpus", "openwop")
	_, corpusErr := os.Stat(corpus)
	if corpusErr != nil {
		t.Logf("SKIPPING corpus scripts: %s is absent", corpus)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CORPUS", corpus)
			env.Setenv("NO_COLOR", "1")
			return writeFixtures(env.WorkDir)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "corpus" {
				return corpusErr == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonset":  cmdJSONSet,
			"bigfile":  cmdBigFile,
			"deepjson": cmdDeepJSON,
			"hexfile":  cmdHexFile,
			// gate, census, diff and keyring scripts
			"specrepo":   cmdSpecRepo,
			"livehost":   cmdLiveHost,
			"servedisco": cmdServeDisco,
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
	for name, data := range map[string][]byte{
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
