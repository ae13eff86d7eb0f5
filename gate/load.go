package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/internal/detach"
	"github.com/certcut/certcut/internal/panics"
	"github.com/certcut/certcut/timestamp"
	"github.com/certcut/certcut/verify"
)

// Entry is one bundle file, read and judged once.
//
// Bundle holds the facts of the bundle (Facts), not its parse tree: the typed
// members, the rows the Loader keeps (Loader.KeepRow) and the discovery
// document, one copy per distinct content. The tree is dropped once the bundle
// is judged, so that a run over thousands of bundles keeps kilobytes per
// bundle, not the file.
type Entry struct {
	File   string
	Sha256 string
	// Err is set when the file could not be read or is not I-JSON; Bundle and
	// Verdict are then nil.
	Err     error
	Bundle  *Facts
	Verdict *verify.Verdict
	// signed is the discovery.url and signed payload read from the parse tree,
	// for the history binder.
	signed version
}

// Ref returns the bundle reference reports name it by.
func (e *Entry) Ref() BundleRef {
	ref := BundleRef{File: e.File, Sha256: e.Sha256}
	if e.Bundle != nil && e.Bundle.Signature != nil {
		ref.KeyID = e.Bundle.Signature.KeyID
	}
	if e.Verdict != nil && e.Verdict.HostKey != nil && e.Verdict.SignatureVerified {
		ref.KeySource = e.Verdict.HostKey.Source
		if e.Verdict.HostKey.Origin != "" {
			ref.KeySource += " " + e.Verdict.HostKey.Origin
		}
		ref.KeyFingerprint = e.Verdict.HostKey.Fingerprint
	}
	return ref
}

// Outcome is the entry's verdict word, UNREADABLE when it has none.
func (e *Entry) Outcome() verify.Outcome {
	if e.Verdict == nil {
		return verify.Unreadable
	}
	return e.Verdict.Outcome
}

type judged struct {
	once    sync.Once
	err     error
	bundle  *Facts
	verdict *verify.Verdict
	signed  version
}

// Loader reads bundle files and judges each distinct content once with verify,
// caching the verdict by the file's SHA-256 and those of its time-stamp tokens
// (FILE.tsr, FILE.verifier.tsr beside it, read with it: verify.Judge). It is safe
// for concurrent use.
type Loader struct {
	// Options are the verify options every bundle is judged with.
	Options verify.Options
	// Workers bounds parallel verification; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called after each file with the count done and the
	// total; calls are serialized.
	Progress func(done, total int)
	// KeepRow, when set, says which rows of results.requirements an Entry keeps
	// (the rows the caller will ask about: a census's queries, a gate's
	// requirement ids); nil keeps every row. The egress-guard row
	// (profiles.EgressGuardRow), which the gate's qualification reads in every
	// bundle, is always kept. Verdicts are made on the whole bundle either way.
	KeepRow func(bundle.Row) bool

	mu    sync.Mutex
	cache map[string]*judged
	// judgeRuns counts the judgements made (each distinct content once).
	judgeRuns atomic.Int64
	docs      map[string]*bundle.Value // discovery documents by canonical digest
}

// ErrNoBundles is returned by LoadDir for a directory without *.json files.
var ErrNoBundles = errors.New("no *.json bundle files")

// LoadDir reads every *.json file of dir (not recursively), sorted by name. A
// missing or unreadable directory is an error; a file that cannot be read or
// parsed is an Entry with Err set, because a committed file that is not a bundle
// is itself worth reporting. A cancelled ctx stops it (LoadFiles).
func (l *Loader) LoadDir(ctx context.Context, dir string) ([]*Entry, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoBundles)
	}
	sort.Strings(files)
	return l.LoadFiles(ctx, files)
}

// LoadFiles reads and judges the files, in parallel, returning entries in the
// order given. When ctx is cancelled no further file is started, the files
// being judged finish, and LoadFiles returns no entries and the context's
// cause: a run that was interrupted has no verdicts to give.
func (l *Loader) LoadFiles(ctx context.Context, files []string) ([]*Entry, error) {
	out := make([]*Entry, len(files))
	workers := l.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	done := 0
	for range min(workers, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if ctx.Err() != nil {
					continue // drain: the producer stops sending soon
				}
				out[i] = l.loadFileSafely(files[i])
				if l.Progress != nil {
					progressMu.Lock()
					done++
					l.Progress(done, len(files))
					progressMu.Unlock()
				}
			}
		}()
	}
send:
	for i := range files {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break send
		}
	}
	close(jobs)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return out, nil
}

// loadFileSafely is LoadFile in a worker goroutine, where a panic would kill the
// process with the runtime's exit status 2 (read as a verdict): a panic becomes
// the entry's Err, a *panics.Error ("internal error: …"), so the file is reported
// unreadable and the process goes on.
func (l *Loader) loadFileSafely(path string) (e *Entry) {
	var err error
	defer func() {
		if err != nil {
			e = &Entry{File: path, Err: fmt.Errorf("%w; this is a defect in certcut, please report it", err)}
		}
	}()
	defer panics.Capture(&err)
	return l.LoadFile(path)
}

// loadHook, set only by tests, is called by LoadFile with the path, so that a test
// can force a panic in a worker.
var loadHook func(path string)

// LoadFile reads and judges one file (cached by content).
func (l *Loader) LoadFile(path string) *Entry {
	if loadHook != nil {
		loadHook(path)
	}
	e := &Entry{File: path}
	data, err := bundle.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("no such file")
		}
		e.Err = err
		return e
	}
	sum := sha256.Sum256(data)
	e.Sha256 = hex.EncodeToString(sum[:])
	ts, key, err := readTokens(path)
	if err != nil {
		e.Err = err
		return e
	}
	j := l.judge(e.Sha256+key, data, ts)
	e.Err, e.Bundle, e.Verdict, e.signed = j.err, j.bundle, j.verdict, j.signed
	return e
}

// readTokens reads the time-stamp tokens beside a bundle file (FILE.tsr,
// FILE.verifier.tsr), if any, and returns them with a cache key that tells
// their contents apart: a verdict depends on them. A token file that is there
// but cannot be read makes the entry unreadable.
func readTokens(path string) (verify.Timestamps, string, error) {
	var ts verify.Timestamps
	var key strings.Builder
	for _, t := range []struct {
		file string
		dst  **timestamp.File
	}{{timestamp.HostFile(path), &ts.Host}, {timestamp.VerifierFile(path), &ts.Verifier}} {
		f, err := timestamp.ReadBeside(t.file)
		if err != nil {
			return ts, "", fmt.Errorf("its time-stamp token %s cannot be read: %w", t.file, err)
		}
		if f == nil {
			key.WriteString("|")
			continue
		}
		*t.dst = f
		sum := sha256.Sum256(f.Reply)
		key.WriteString("|" + hex.EncodeToString(sum[:]))
	}
	return ts, key.String(), nil
}

// judge returns the judgement of one content, computing it exactly once however
// many goroutines ask for it at the same time: the first to ask stores an entry
// and judges; the others wait on that entry.
func (l *Loader) judge(key string, data []byte, ts verify.Timestamps) *judged {
	l.mu.Lock()
	if l.cache == nil {
		l.cache = map[string]*judged{}
	}
	j, ok := l.cache[key]
	if !ok {
		j = &judged{}
		l.cache[key] = j
	}
	l.mu.Unlock()
	j.once.Do(func() {
		l.judgeRuns.Add(1)
		defer func() {
			if p := recover(); p != nil {
				// The waiting callers see an error, not an empty judgement.
				j.err = fmt.Errorf("internal error while judging: %v", p)
				panic(p)
			}
		}()
		b, problems, err := bundle.Parse(data)
		if err != nil {
			j.err = fmt.Errorf("not a bundle: the file is not valid I-JSON: %w", err)
			return
		}
		j.verdict = verify.Judge(b, problems, l.Options, ts)
		detach.Strings(j.verdict)
		j.bundle = l.facts(b, j.verdict.DiscoveryRecomputed)
		if v, ok := payloadOf(b.Raw); ok {
			v.url, v.payload = strings.Clone(v.url), strings.Clone(v.payload)
			v.ok = true
			j.signed = v
		}
	})
	return j
}

// facts returns what an Entry keeps of a judged bundle (factsOf, with the
// Loader's KeepRow), the discovery document shared among bundles whose
// documents have the same canonical digest (docDigest, from the verdict; ""
// when it could not be computed, and then the document is copied on its own).
func (l *Loader) facts(b *bundle.Bundle, docDigest string) *Facts {
	f := factsOf(b, l.KeepRow)
	if doc := b.Discovery.Document; doc != nil {
		f.Discovery.Document = l.sharedDocument(*doc, docDigest)
	}
	return f
}

// sharedDocument returns the loader's copy of a discovery document with the given
// canonical digest, making it on first sight.
func (l *Loader) sharedDocument(doc bundle.Value, digest string) *bundle.Value {
	if digest == "" {
		c := doc.Clone()
		return &c
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.docs == nil {
		l.docs = map[string]*bundle.Value{}
	}
	if d, ok := l.docs[digest]; ok {
		return d
	}
	c := doc.Clone()
	l.docs[digest] = &c
	return &c
}

// Reload reads the entry's file again and returns the whole bundle, parse tree
// and every row, for the rare check that needs more than an Entry keeps (a
// colocated companion verified again under its primary's published key). It fails
// when the file cannot be read or no longer has the entry's content.
func (l *Loader) Reload(e *Entry) (*bundle.Bundle, error) {
	data, err := bundle.ReadFile(e.File)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.Sha256 {
		return nil, fmt.Errorf("%s changed while it was being judged", e.File)
	}
	b, _, err := bundle.Parse(data)
	return b, err
}

// Judged reports how many distinct contents the loader has judged.
func (l *Loader) Judged() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.cache)
}

// rejectionLines renders a verdict's rejections as "[kind] (profile) detail".
func rejectionLines(v *verify.Verdict) []string {
	out := []string{}
	if v == nil {
		return out
	}
	for _, r := range v.Rejections {
		s := "[" + string(r.Kind) + "] "
		if r.Profile != "" {
			s += "(" + r.Profile + ") "
		}
		out = append(out, s+r.Detail)
	}
	return out
}

func firstN(ss []string, n int) string {
	if len(ss) <= n {
		return strings.Join(ss, "; ")
	}
	return strings.Join(ss[:n], "; ") + fmt.Sprintf("; and %d more", len(ss)-n)
}
