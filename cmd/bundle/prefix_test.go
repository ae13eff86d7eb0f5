package main

import (
	"bytes"
	"strings"
	"testing"
)

// Every message is printed after "bundle: " once: a message that names its
// command by its path does not double the prefix ("bundle: bundle gate …").
func TestErrorPrefixOnce(t *testing.T) {
	for _, args := range [][]string{{"gate"}, {"keys"}, {"gate", "nosuch"}} {
		var out, errb bytes.Buffer
		run(args, strings.NewReader(""), &out, &errb)
		if strings.Contains(errb.String(), "bundle: bundle ") || !strings.HasPrefix(errb.String(), "bundle: ") {
			t.Errorf("%v: %q", args, errb.String())
		}
	}
}
