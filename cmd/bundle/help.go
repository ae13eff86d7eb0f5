package main

import (
	"embed"
	"strings"
)

// Each command's long help and examples are prose in help/<command>.txt (the
// command path without "bundle", words joined by "-"): the text, then, after a
// line "--- examples", the examples. man pages are generated from the same text.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help returns the long help and the examples of a command.
func help(name string) (long, example string) {
	data, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("no help/" + name + ".txt") // a defect: TestHelpFiles keeps each one there
	}
	long, example, _ = strings.Cut(strings.TrimRight(string(data), "\n"), "\n--- examples\n")
	return long, example
}
