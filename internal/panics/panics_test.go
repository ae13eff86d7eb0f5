package panics_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/certcut/certcut/internal/panics"
)

func TestCapture(t *testing.T) {
	f := func() (err error) {
		defer panics.Capture(&err)
		var m map[string]int
		m["x"] = 1 // a runtime panic
		return nil
	}
	err := f()
	var pe *panics.Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "internal error: assignment to entry in nil map") || !strings.Contains(string(pe.Stack), "panics_test.go") {
		t.Fatalf("captured %v", err)
	}
	// Re-raised and captured again, it keeps its first stack.
	g := func() (err error) {
		defer panics.Capture(&err)
		panic(pe)
	}
	if again := g(); again != pe {
		t.Errorf("re-captured as %v", again)
	}
}

func TestGo(t *testing.T) {
	if err := <-panics.Go(func() {}); err != nil {
		t.Errorf("no panic: %v", err)
	}
	err := <-panics.Go(func() { panic("boom") })
	var pe *panics.Error
	if !errors.As(err, &pe) || pe.Value != "boom" {
		t.Errorf("panic in the goroutine: %v", err)
	}
}
