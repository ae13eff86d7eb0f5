package main

import "runtime/debug"

// versionString returns the module version and, when the binary was built from a
// checkout, the commit: "v0.3.0", "(devel) commit 1a2b3c4d5e6f".
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " commit " + s.Value[:12]
		}
	}
	return v
}
