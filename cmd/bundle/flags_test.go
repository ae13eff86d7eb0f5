package main

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// stringsVar's flags parse, print and complete as pflag's StringArrayVar's.
func TestStringsVarIsStringArray(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--x", "a"},
		{"--x", "a,b", "--x", `say "hi"`, "--x", " lead", "--x", "", "--x", `\.`, "--x", "tab\there", "--x", "line\nbreak", "--x", "é"},
	} {
		var got, want []string
		ours, theirs := pflag.NewFlagSet("ours", pflag.ContinueOnError), pflag.NewFlagSet("theirs", pflag.ContinueOnError)
		stringsVar(ours, &got, "x", "usage")
		theirs.StringArrayVar(&want, "x", nil, "usage")
		if err := ours.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := theirs.Parse(args); err != nil {
			t.Fatal(err)
		}
		o, th := ours.Lookup("x"), theirs.Lookup("x")
		if !slices.Equal(got, want) || o.Value.String() != th.Value.String() || o.Value.Type() != th.Value.Type() || o.DefValue != "" || th.DefValue != "[]" {
			t.Errorf("%q: ours %q %s %s %s, pflag's %q %s %s %s", args, got, o.Value, o.Value.Type(), o.DefValue, want, th.Value, th.Value.Type(), th.DefValue)
		}
		if ours.FlagUsages() != theirs.FlagUsages() {
			t.Errorf("usage: %q, pflag's %q", ours.FlagUsages(), theirs.FlagUsages())
		}
		os, ts := o.Value.(pflag.SliceValue), th.Value.(pflag.SliceValue)
		_ = os.Append("z")
		_ = ts.Append("z")
		if !slices.Equal(os.GetSlice(), ts.GetSlice()) {
			t.Errorf("append: %q, pflag's %q", os.GetSlice(), ts.GetSlice())
		}
		_ = os.Replace([]string{"r", "s"})
		_ = ts.Replace([]string{"r", "s"})
		if !slices.Equal(got, want) {
			t.Errorf("replace: %q, pflag's %q", got, want)
		}
	}
}
