package gate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/certcut/certcut/declaration"
	"github.com/certcut/certcut/discovery"
	"github.com/certcut/certcut/tiers"
	"github.com/certcut/certcut/verify"
)

// Config says where a spec repository keeps what the gates read. Empty paths take
// the defaults of the OpenWOP layout under Root.
type Config struct {
	// Root is the spec repository's root ("." by default).
	Root string
	// BundlesDir holds the committed bundles (Root/evidence/v2-host-bundles).
	BundlesDir string
	// TiersFile is the host-tier table (Root/evidence/host-tiers.json).
	TiersFile string
	// LedgerFile is the corpus ledger (Root/evidence/corpus-ledger.json).
	LedgerFile string
	// AnchorsFile lists the harness-trust-anchor rows
	// (Root/spec/v2/harness-trust-anchors.json).
	AnchorsFile string
	// MinTier is the lowest host tier that qualifies (1 by default).
	MinTier int
	// Live compares each witness's discovery.sha256 with the host's live document.
	Live bool
	// Fetch fetches a live discovery document; nil means discovery.Fetch.
	Fetch func(ctx context.Context, url string, major int) (*discovery.Document, error)
	// Loader reads and judges the bundles (its Options carry the trusted keys).
	Loader *Loader
	// KeyringPath is recorded in reports.
	KeyringPath string
	// TrustUnsignedOrigin takes a host's tier from the origin of discovery.url
	// even when nothing binds that origin to the signed bundle (no keyring pin, no
	// git history, no live fetch), as the reference predicate does. It is weaker:
	// anyone who can edit a committed bundle can then move it to another host's
	// tier. The criterion says the origin is unsigned. A keyring that pins the
	// signing key to other origins still FAILs the bundle.
	TrustUnsignedOrigin bool
	// HistoryBase is the reviewed branch or commit (a pull request's base) the git
	// history binder trusts: a committed bundle's discovery.url is bound by
	// history only when the commit that added it with its signed payload is on
	// HistoryBase. Empty: history binds nothing. gate flips sets it to the merge
	// base of the change it gates, so a bundle the change adds or replaces is
	// never bound by history its author wrote.
	HistoryBase string
	// RequireTimestamp makes bundle.key FAIL for a bundle whose host signature
	// has no trusted RFC 3161 token (none beside it, or one that does not chain
	// to a TSA certificate of Loader.Options.TSA).
	RequireTimestamp bool
	// DeclarationFile is the spec's family declaration
	// (Root/spec/v2/declaration.json); CapabilitiesFile its capabilities schema
	// (Root/schemas/v2/capabilities.schema.json); ExtDir the extension READMEs
	// (Root/spec/v2/ext). See package declaration.
	DeclarationFile, CapabilitiesFile, ExtDir string
	// MaturityFirstSuite is the first suite the maturity bound binds
	// (declaration.FirstBoundSuite by default; upstream's OPENWOP_0197_FIRST_SUITE).
	MaturityFirstSuite string
	// SuiteAdvisoriesFile is a suite advisory list to use instead of the built-in
	// one (declaration.LoadAdvisories).
	SuiteAdvisoriesFile string
	// RequireSuiteTag makes bundle.suite-identity a qualification check of every
	// witness (gate accepted, flips), not only a gate audit line.
	RequireSuiteTag bool
}

// Repo is a spec repository's evidence, loaded once: the committed bundles and
// the policy files. Gate runs over it share every verdict.
type Repo struct {
	Config
	Entries []*Entry
	Tiers   *tiers.File
	Ledger  *Ledger
	Anchors *Anchors
	// Declaration and Capabilities are the spec's declarations (nil when absent).
	Declaration  *declaration.Declaration
	Capabilities *declaration.Capabilities
	Advisories   *declaration.Advisories
	suiteTags    suiteTagCache

	mu      sync.Mutex
	assess  map[*Entry]*assessment
	live    map[string]liveResult
	pairing map[string]*verify.Verdict
	// normalised holds each entry's discovery document in the canonical form
	// companion pairing compares ("" when it has none).
	normalised map[*Entry]string
	// byPayload indexes Entries by their signed payload (samePayloadOtherURL).
	byPayloadOnce sync.Once
	byPayload     map[string][]*Entry
	// history is the evidence history, read once (historyOf).
	historyMu sync.Mutex
	history   *historyIndex
}

// InputError is a policy or evidence file that exists but cannot be used; the CLI
// exits 3 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Open loads the bundles and the policy files. A missing policy file is not an
// error (the criteria that need it are BLOCKED); a malformed one, or a missing
// bundles directory, is an *InputError. A cancelled ctx stops the loading and
// Open returns the context's cause.
func Open(ctx context.Context, cfg Config) (*Repo, error) {
	if cfg.BundlesDir == "" {
		root := cfg.Root
		if root == "" {
			root = "."
		}
		cfg.BundlesDir = filepath.Join(root, "evidence", "v2-host-bundles")
	}
	r, err := openPolicy(cfg)
	if err != nil {
		return nil, err
	}
	entries, err := r.Loader.LoadDir(ctx, r.BundlesDir)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("bundles directory: %w", err)}
	}
	r.Entries = entries
	return r, nil
}

func openPolicy(cfg Config) (*Repo, error) {
	root := cfg.Root
	if root == "" {
		root = "."
	}
	if cfg.TiersFile == "" {
		cfg.TiersFile = filepath.Join(root, "evidence", "host-tiers.json")
	}
	if cfg.AnchorsFile == "" {
		cfg.AnchorsFile = filepath.Join(root, "spec", "v2", "harness-trust-anchors.json")
	}
	if cfg.Root == "" {
		cfg.Root = root
	}
	if cfg.LedgerFile == "" {
		cfg.LedgerFile = filepath.Join(root, "evidence", "corpus-ledger.json")
	}
	if cfg.MinTier == 0 {
		cfg.MinTier = 1
	}
	if cfg.Loader == nil {
		cfg.Loader = &Loader{}
	}
	if cfg.Fetch == nil {
		cfg.Fetch = func(ctx context.Context, url string, major int) (*discovery.Document, error) {
			return discovery.Fetch(ctx, url, discovery.Options{TargetMajor: major})
		}
	}
	r := &Repo{Config: cfg, assess: map[*Entry]*assessment{}, live: map[string]liveResult{}, pairing: map[string]*verify.Verdict{}, normalised: map[*Entry]string{}}
	var err error
	if r.Tiers, err = optional(cfg.TiersFile, tiers.Load); err != nil {
		return nil, err
	}
	if r.Ledger, err = optional(cfg.LedgerFile, LoadLedger); err != nil {
		return nil, err
	}
	if r.Anchors, err = optional(cfg.AnchorsFile, LoadAnchors); err != nil {
		return nil, err
	}
	if err := r.openDeclared(); err != nil {
		return nil, err
	}
	return r, nil
}

func optional[T any](path string, load func(string) (*T, error)) (*T, error) {
	v, err := load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &InputError{Err: err}
	}
	return v, nil
}

func (r *Repo) settings() Settings {
	s := Settings{BundlesDir: r.BundlesDir, TiersFile: r.TiersFile, LedgerFile: r.LedgerFile, Anchors: r.AnchorsFile,
		Keyring: r.KeyringPath, HostKeys: len(r.Loader.Options.HostKeys), MinTier: r.MinTier, Live: r.Live,
		TrustUnsignedOrigin: r.TrustUnsignedOrigin, HistoryBase: r.HistoryBase,
		RequireTimestamp: r.RequireTimestamp, TSACerts: r.Loader.Options.TSA.Subjects()}
	if r.Tiers == nil {
		s.TiersFile += " (absent)"
	}
	if r.Ledger == nil {
		s.LedgerFile += " (absent)"
	}
	if r.Anchors == nil {
		s.Anchors += " (absent)"
	}
	return s
}
