package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
)

// CutFileRequest is the cut gates for one bundle file in a spec repository.
type CutFileRequest struct {
	File string
	// Root is the spec repository: when ScenarioMajors or InteropMatrix is not
	// given, conformance/scenario-majors.json (with conformance/src/scenarios)
	// and INTEROP-MATRIX.md under it are used when they are there.
	Root                                        string
	ScenarioMajors, ScenariosDir, InteropMatrix string
	// HostDiscovery is a discovery document file: the key it publishes under the
	// bundle's signature.keyId is trusted (check-cut-gates' rule: only that key,
	// never a lone key of another id).
	HostDiscovery string
	Options       verify.Options
}

// DiscoveryFileError is a host discovery document that cannot be read (Parsed:
// read, but not I-JSON).
type DiscoveryFileError struct {
	File   string
	Parsed bool
	Err    error
}

func (e *DiscoveryFileError) Error() string {
	if e.Parsed {
		return fmt.Sprintf("host discovery document %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("host discovery document: %v", e.Err)
}

func (e *DiscoveryFileError) Unwrap() error { return e.Err }

// CutFile reads the inputs and runs Cut. The bundle file is read once: the key
// the discovery document publishes under its signature.keyId and the verdict
// both come from that one read. A bundle that cannot be read is an
// *InputError, a discovery document a *DiscoveryFileError.
func CutFile(req CutFileRequest) (*Report, error) {
	cut := CutRequest{ScenarioMajors: req.ScenarioMajors, ScenariosDir: req.ScenariosDir, InteropMatrix: req.InteropMatrix}
	opts := req.Options
	var doc *bundle.Value
	if req.HostDiscovery != "" {
		data, err := limitedfile.Read(req.HostDiscovery, limitedfile.MaxPolicy)
		if err != nil {
			return nil, &DiscoveryFileError{File: req.HostDiscovery, Err: err}
		}
		d, err := bundle.ParseIJSON(data)
		if err != nil {
			return nil, &DiscoveryFileError{File: req.HostDiscovery, Parsed: true, Err: err}
		}
		doc = &d
		cut.HostDiscovery, cut.HostDiscoveryDoc = req.HostDiscovery, doc
	}
	raw, err := bundle.ReadFile(req.File)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("no such file")
		}
		return nil, &InputError{Err: fmt.Errorf("%s: %v", req.File, err)}
	}
	if doc != nil {
		if b, _, err := bundle.Parse(raw); err == nil && b.Signature != nil {
			if k, err := keys.FromDiscovery(doc, b.Signature.KeyID, keys.SourceDiscovery, req.HostDiscovery); err == nil {
				opts.HostKeys = append(append(keys.Set{}, opts.HostKeys...), k)
			}
		}
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if cut.InteropMatrix == "" {
		if p := filepath.Join(req.Root, "INTEROP-MATRIX.md"); exists(p) {
			cut.InteropMatrix = p
		}
	}
	if cut.ScenarioMajors == "" {
		if p := filepath.Join(req.Root, "conformance", "scenario-majors.json"); exists(p) {
			cut.ScenarioMajors = p
			if cut.ScenariosDir == "" {
				cut.ScenariosDir = filepath.Join(req.Root, "conformance", "src", "scenarios")
			}
		}
	}
	loader := &Loader{Options: opts}
	if cut.Entry = loader.loadData(req.File, raw); cut.Entry.Bundle == nil {
		return nil, &InputError{Err: fmt.Errorf("%s: %v", req.File, cut.Entry.Err)}
	}
	return Cut(cut), nil
}

// loadData is LoadFile over a file's content already read: the time-stamp
// tokens beside it are read, and the content judged (cached as LoadFile does).
func (l *Loader) loadData(path string, data []byte) *Entry {
	if loadHook != nil {
		loadHook(path)
	}
	sum := sha256.Sum256(data)
	e := &Entry{File: path, Sha256: hex.EncodeToString(sum[:])}
	ts, key, err := readTokens(path)
	if err != nil {
		e.Err = err
		return e
	}
	j := l.judge(e.Sha256+key, data, ts)
	e.Err, e.Bundle, e.Verdict = j.err, j.bundle, j.verdict
	return e
}
