package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestInterruptExits130: a run whose context is cancelled (main cancels it on
// SIGINT or SIGTERM) exits 130 and says it was interrupted, not a verdict.
func TestInterruptExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := runContext(ctx, []string{"gate", "rules"}, strings.NewReader(""), &stdout, &stderr); code != 130 {
		t.Fatalf("exit %d, want 130; stderr %q", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "bundle: interrupted") {
		t.Errorf("stderr %q", stderr.String())
	}
	stderr.Reset()
	if code := runContext(context.Background(), []string{"gate", "rules"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("uncancelled: exit %d; stderr %q", code, stderr.String())
	}
}
