package main

import (
	"io"
	"testing"
)

func BenchmarkTmpVersion(b *testing.B) {
	for b.Loop() {
		run([]string{"version"}, nil, io.Discard, io.Discard)
	}
}
func BenchmarkTmpRoot(b *testing.B) {
	for b.Loop() {
		newRootCmd(nil, io.Discard, io.Discard)
	}
}
