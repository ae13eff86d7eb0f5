package main

import (
	"fmt"
	"io"
	"os"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/tiers"
	"github.com/certcut/certcut/verify"
	"golang.org/x/term"
)

// reviewFile reads one bundle and the time-stamp tokens beside it, verifies it
// and builds its review. A file that cannot be read or is not I-JSON is an
// input error (exit 3).
func reviewFile(stdin io.Reader, file string, opts verify.Options, tf *tiers.File) (*render.Review, error) {
	data, err := readBundleArg(stdin, file)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %s", file, describeReadError(err)))
	}
	ts, err := tokensFor(file, "", "")
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %s", file, describeReadError(err)))
	}
	b, problems, err := bundle.Parse(data)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: %s", file, describeReadError(err)))
	}
	return render.NewReview(file, b, verify.Judge(b, problems, opts, ts), tf), nil
}

// loadTiers reads --tiers, if given.
func loadTiers(path string) (*tiers.File, error) {
	if path == "" {
		return nil, nil
	}
	tf, err := tiers.Load(path)
	if err != nil {
		return nil, inputError(fmt.Errorf("--tiers %s: %w (give OpenWOP's evidence/host-tiers.json)", path, err))
	}
	return tf, nil
}

// useColor decides --color: always, never, or auto — colour only when w is a
// terminal and NO_COLOR is unset or empty (no-color.org).
func useColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		if os.Getenv("NO_COLOR") != "" {
			return false, nil
		}
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, usageErrorf("--color must be auto, always or never, not %q", mode)
}
