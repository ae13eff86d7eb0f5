package rows

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
)

// Sources name the files a bundle's rows are read from, by kind. A path "-"
// reads Stdin. Every file is read whole, at most limitedfile.MaxInput bytes; a
// FIFO or a device is refused, not waited on.
type Sources struct {
	// Ledgers are the suite's requirement-ledger.jsonl files; LedgerReports the
	// vitest JSON reports of the same runs, which name each ledger row's file.
	Ledgers, LedgerReports []string
	// Native are native rows (a JSON array or JSON Lines); Vitest and JUnit are
	// test reports.
	Native, Vitest, JUnit []string
	Stdin                 io.Reader
}

// The kinds of input, as FileError names them.
const (
	KindLedger       = "ledger"
	KindLedgerReport = "ledger-report"
	KindNative       = "rows"
	KindVitest       = "vitest"
	KindJUnit        = "junit"
)

// FileError is an input that cannot be read: missing, too large, not a regular
// file. Kind says which input it is.
type FileError struct {
	Kind, Path string
	Err        error
}

func (e *FileError) Error() string {
	if errors.Is(e.Err, os.ErrNotExist) {
		return fmt.Sprintf("%s %s: no such file", e.Kind, e.Path)
	}
	return fmt.Sprintf("%s %s: %v", e.Kind, e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

var (
	// ErrNoRows: Sources names no input.
	ErrNoRows = errors.New("no rows: no ledger, native rows, vitest or JUnit input")
	// ErrReportWithoutLedger: a ledger report is given without its ledger.
	ErrReportWithoutLedger = errors.New("a ledger report names the files of a ledger's rows, and no ledger is given")
)

// Read reads every source and merges the rows (Merge: an id two inputs record is
// an error naming both). Errors: *FileError for a file that cannot be read,
// ErrNoRows, ErrReportWithoutLedger, and the readers' own errors (with the file
// and line) for malformed content.
func Read(src Sources, opts Options) ([]bundle.Row, error) {
	read := func(kind, path string) ([]byte, error) {
		data, err := limitedfile.ReadArg(path, src.Stdin, limitedfile.MaxInput)
		if err != nil {
			return nil, &FileError{Kind: kind, Path: path, Err: err}
		}
		return data, nil
	}
	if len(src.LedgerReports) > 0 && len(src.Ledgers) == 0 {
		return nil, ErrReportWithoutLedger
	}
	var index *ScenarioIndex
	for _, path := range src.LedgerReports {
		data, err := read(KindLedgerReport, path)
		if err != nil {
			return nil, err
		}
		name := path
		if path == limitedfile.Stdin {
			name = "standard input"
		}
		_, idx, err := ReadVitest(data, name, opts)
		if err != nil {
			return nil, err
		}
		if index == nil {
			index = idx
		} else {
			index.Merge(idx)
		}
	}
	var inputs [][]Sourced
	for _, in := range []struct {
		kind  string
		paths []string
		parse func(data []byte, path string) ([]Sourced, error)
	}{
		{KindLedger, src.Ledgers, func(d []byte, p string) ([]Sourced, error) { return ReadLedger(d, p, index) }},
		{KindNative, src.Native, ReadNative},
		{KindVitest, src.Vitest, func(d []byte, p string) ([]Sourced, error) { got, _, err := ReadVitest(d, p, opts); return got, err }},
		{KindJUnit, src.JUnit, func(d []byte, p string) ([]Sourced, error) { got, _, err := ReadJUnit(d, p, opts); return got, err }},
	} {
		for _, path := range in.paths {
			data, err := read(in.kind, path)
			if err != nil {
				return nil, err
			}
			name := path
			if path == limitedfile.Stdin {
				name = "standard input"
			}
			got, err := in.parse(data, name)
			if err != nil {
				return nil, err
			}
			inputs = append(inputs, got)
		}
	}
	if len(inputs) == 0 {
		return nil, ErrNoRows
	}
	return Merge(inputs...)
}
