package verify

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/jsonkind"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/internal/panics"
	"github.com/certcut/certcut/timestamp"
)

// ReadTimestamps reads the time-stamp tokens of a bundle file: the files named
// (host, verifier) when they are, else FILE.tsr and FILE.verifier.tsr beside it
// when they are there (none for standard input, "-"). A token file that is
// there but cannot be read is an error.
func ReadTimestamps(file, host, verifier string) (Timestamps, error) {
	var ts Timestamps
	for _, t := range []struct {
		given, beside string
		dst           **timestamp.File
	}{{host, timestamp.HostFile(file), &ts.Host}, {verifier, timestamp.VerifierFile(file), &ts.Verifier}} {
		var err error
		switch {
		case t.given != "":
			*t.dst, err = timestamp.ReadFile(t.given)
		case file != limitedfile.Stdin:
			*t.dst, err = timestamp.ReadBeside(t.beside)
		}
		if err != nil {
			return ts, fmt.Errorf("time-stamp token: %w", err)
		}
	}
	return ts, nil
}

// ReadBundle reads a bundle file named on a command line, or stdin for "-", at
// most bundle.MaxFileSize bytes either way, with the tokens beside it
// (ReadTimestamps), and parses it. A JSON document that is not a certification
// bundle at all is a *NotABundleError (Recognize).
func ReadBundle(file string, stdin io.Reader) (*bundle.Bundle, []bundle.Problem, Timestamps, error) {
	data, err := limitedfile.ReadArg(file, stdin, bundle.MaxFileSize)
	if err != nil {
		return nil, nil, Timestamps{}, err
	}
	ts, err := ReadTimestamps(file, "", "")
	if err != nil {
		return nil, nil, ts, err
	}
	b, problems, err := bundle.Parse(data)
	if err == nil {
		if err = Recognize(b); err != nil {
			err.(*NotABundleError).File = file
		}
	}
	return b, problems, ts, err
}

// NotABundleError is a JSON document that is recognisably not a certification
// bundle: it has no bundleVersion (a keyring, a discovery document, an
// attestation, {}). It is an input of the wrong kind, not a bundle to judge: a
// REJECTED verdict full of empty fields would say nothing true about it.
type NotABundleError struct {
	// Kind is what the document looks like (jsonkind).
	Kind jsonkind.Kind
	// File names the document in the command the message suggests ("FILE"
	// when empty).
	File string
}

func (e *NotABundleError) Error() string {
	what := string(e.Kind)
	if e.Kind == jsonkind.Other {
		what = "a JSON object with no bundleVersion"
	}
	file := e.File
	if file == "" || file == limitedfile.Stdin {
		file = "FILE"
	}
	return "not a certification bundle: it is " + what + "; " + strings.ReplaceAll(readBy(e.Kind), "FILE", file)
}

// readBy names the command that reads a document of the kind.
func readBy(k jsonkind.Kind) string {
	switch k {
	case jsonkind.Discovery:
		return "'bundle keys trust --from-discovery FILE --keyring KEYRING' pins the keys it publishes, 'bundle mint --discovery-file FILE' embeds it in a bundle"
	case jsonkind.Envelope:
		return "'bundle verify-attestation FILE' checks it"
	case jsonkind.Statement:
		return "'bundle verify-attestation' checks the signed envelope that carries it"
	case jsonkind.Keyring:
		return "'bundle verify --keyring FILE BUNDLE' reads it (so do show, report, gate and keys trust)"
	case jsonkind.Registry:
		return "'bundle verify --registry FILE BUNDLE' reads it"
	case jsonkind.Tiers:
		return "'bundle gate accepted --tiers FILE' reads it (so do show and report)"
	case jsonkind.GateFile:
		return "'bundle gate accepted --gate-file FILE' reads it"
	case jsonkind.Schema:
		return "certcut checks bundles against its own schema ('bundle schema' prints it)"
	}
	return "a certification bundle is a JSON object whose bundleVersion says its format ('bundle schema' prints the v3 shape)"
}

// Recognize returns a *NotABundleError when the parsed document is not a
// certification bundle at all (jsonkind.Of: no bundleVersion); nil for any
// document with a bundleVersion, which is judged (a v1 or v2 bundle is REJECTED
// not-v3, as the reference says).
func Recognize(b *bundle.Bundle) error {
	if k := jsonkind.Of(b.Raw); k != jsonkind.Bundle {
		return &NotABundleError{Kind: k}
	}
	return nil
}

// Result is one input's verdict, or why it has none.
type Result struct {
	Verdict *Verdict
	Err     error // the input could not be read or is not I-JSON
	// Panic is a panic while judging the input, captured (an internal error
	// for the caller to raise).
	Panic error
}

// Each judges n inputs concurrently, one worker per CPU, and calls emit with
// each result in input order, in the caller's goroutine, as soon as it and
// every result before it are ready. A result is dropped once emitted, and
// workers run at most a few inputs ahead of emit, so a run over any number of
// inputs holds a bounded number of verdicts (and parse trees). A panic in judge
// is captured in its Result; the worker goes on with the next input.
func Each(n int, judge func(i int) (*Verdict, error), emit func(i int, r Result)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	window := 4 * workers // inputs judged or being judged, not yet emitted
	type result struct {
		i int
		r Result
	}
	next := make(chan int)
	done := make(chan result, window)
	slots := make(chan struct{}, window)
	go func() {
		for i := range n {
			slots <- struct{}{} // wait until an input before it is emitted
			next <- i
		}
		close(next)
	}()
	for range workers {
		go func() {
			for i := range next {
				var r Result
				func() {
					defer panics.Capture(&r.Panic)
					r.Verdict, r.Err = judge(i)
				}()
				done <- result{i, r}
			}
		}()
	}
	pending := make(map[int]Result, window)
	for i := 0; i < n; {
		r, ok := pending[i]
		if !ok {
			d := <-done
			pending[d.i] = d.r
			continue
		}
		delete(pending, i)
		emit(i, r)
		<-slots
		i++
	}
}
