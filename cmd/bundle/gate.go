package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/certcut/certcut/internal/lazyre"
	"os"
	"path/filepath"
	"strings"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/render"
	"github.com/spf13/cobra"
)

// repoFlags say where the spec repository keeps its evidence.
type repoFlags struct {
	root, bundles, tiers, ledger, anchors string
	minTier                               int
	live, trustUnsignedOrigin             bool
	historyBase                           string
	requireTimestamp                      bool
	declared                              declaredFlags
	// inferred: --repo was not given and no spec repository was found.
	unknown bool
}

func (r *repoFlags) register(cmd *cobra.Command, withLive bool) {
	fl := cmd.Flags()
	fl.StringVar(&r.root, "repo", ".", "spec repository `DIR` the default paths below are relative to (default: the one holding --rfc or the bundle, else the working directory)")
	fl.StringVar(&r.bundles, "bundles", "", "committed bundles `DIR` (default <repo>/evidence/v2-host-bundles)")
	fl.StringVar(&r.tiers, "tiers", "", "host-tier table `FILE` (default <repo>/evidence/host-tiers.json)")
	fl.StringVar(&r.ledger, "ledger", "", "corpus ledger `FILE` (default <repo>/evidence/corpus-ledger.json)")
	fl.StringVar(&r.anchors, "anchors", "", "harness-trust-anchor list `FILE` (default <repo>/spec/v2/harness-trust-anchors.json)")
	fl.IntVar(&r.minTier, "min-tier", 1, "lowest host `TIER` that qualifies: 1 steward-verified, 2 steward-affiliated, 3 independent")
	fl.BoolVar(&r.requireTimestamp, "require-timestamp", false, "bundle.key FAILs a bundle whose host signature has no RFC 3161 token (FILE.tsr beside it) that chains to a --tsa-cert (docs/timestamps.md)")
	r.declared.register(cmd)
	if withLive {
		fl.BoolVar(&r.live, "live", false, "fetch each witness host's live /.well-known/openwop and compare its canonical hash with discovery.sha256 (a match also binds the origin of discovery.url)")
		fl.StringVar(&r.historyBase, "history-base", "", "the reviewed `REF` (the branch pull requests merge into, e.g. origin/main): a committed bundle's discovery.url is bound by git history only when the commit that added it with its signed payload is on REF")
		fl.BoolVar(&r.trustUnsignedOrigin, "trust-unsigned-origin", false, "WEAKER: take a host's tier from the origin of discovery.url even when no keyring pin, git history or live fetch binds it (discovery.url is not signed), as the reference predicate does")
	}
}

// infer sets the root, when --repo is not given, to the spec repository that
// holds the first of paths (an RFC, a bundle, a directory), else to the
// working directory, remembering when that is no spec repository either.
func (r *repoFlags) infer(cmd *cobra.Command, paths ...string) {
	if cmd.Flags().Changed("repo") {
		return
	}
	for _, p := range paths {
		if root, ok := gate.FindRoot(p); ok {
			r.root = root
			return
		}
	}
	_, err := os.Stat(filepath.Join(r.root, "evidence"))
	r.unknown = err != nil && r.bundles == ""
}

func (r *repoFlags) config(cmd *cobra.Command, trust *trustFlags) (gate.Config, error) {
	if r.minTier < 1 || r.minTier > 3 {
		return gate.Config{}, usageErrorf("--min-tier must be 1, 2 or 3")
	}
	opts, err := trust.options()
	if err != nil {
		return gate.Config{}, err
	}
	return gate.Config{
		Root: r.root, BundlesDir: r.bundles, TiersFile: r.tiers, LedgerFile: r.ledger, AnchorsFile: r.anchors,
		MinTier: r.minTier, Live: r.live, KeyringPath: trust.keyring, TrustUnsignedOrigin: r.trustUnsignedOrigin, HistoryBase: r.historyBase,
		RequireTimestamp: r.requireTimestamp,
		DeclarationFile:  r.declared.declaration, MaturityFirstSuite: r.declared.firstSuite,
		SuiteAdvisoriesFile: r.declared.advisories, RequireSuiteTag: r.declared.requireSuiteTag,
		Loader: &gate.Loader{Options: opts, Progress: progress(cmd.ErrOrStderr(), "verifying bundles")},
	}, nil
}

// open loads the repository; when none was named or found, the error says to
// pass --repo.
func (r *repoFlags) open(ctx context.Context, cfg gate.Config) (*gate.Repo, error) {
	repo, err := gate.Open(ctx, cfg)
	if err != nil {
		if r.unknown && errors.Is(err, os.ErrNotExist) {
			return nil, inputError(fmt.Errorf("%w; this is not a spec repository (no evidence/ here or above the files given): pass --repo DIR", err))
		}
		return nil, inputError(err)
	}
	return repo, nil
}

func newGateCmd() *cobra.Command {
	return group("gate", "gate", "Decide governance gates over committed bundles: accepted, audit, cut, flips; list their rules",
		newGateAcceptedCmd(), newGateAuditCmd(), newGateCutCmd(), newGateFlipsCmd(), newGateRulesCmd())
}

// gateOutput registers --format text|json|github|sarif|junit and --quiet.
func gateOutput(cmd *cobra.Command, o *output) { addOutput(cmd, o, true, render.GateFormats...) }

func (o *output) gateOptions(cmd *cobra.Command) render.GateOptions {
	return render.GateOptions{Format: o.f, Quiet: o.quiet, Color: useColor(cmd.OutOrStdout()), Version: versionString()}
}

type gateAcceptedOptions struct {
	trust                 trustFlags
	repo                  repoFlags
	out                   output
	att                   attestFlags
	rfcs, require, corpus []string
	gateFile              string
}

func newGateAcceptedCmd() *cobra.Command {
	var o gateAcceptedOptions
	cmd := command("gate-accepted", "accepted [flags]", "Decide the Accepted predicate for an RFC, criterion by criterion", cobra.NoArgs,
		func(cmd *cobra.Command, _ []string) error { return runGateAccepted(cmd, &o) })
	o.trust.register(cmd, false)
	o.repo.register(cmd, true)
	gateOutput(cmd, &o.out)
	fl := cmd.Flags()
	fl.StringArrayVar(&o.rfcs, "rfc", nil, "RFC Markdown `FILE|DIR|GLOB` (RFCS/NNNN-….md) whose tables and acceptance lines name the ids; repeatable, a directory or a quoted glob gates each RFC in it")
	fl.StringArrayVar(&o.require, "require", nil, "required host-tier `ID` (repeatable; 0211.x and .y shorthand allowed)")
	fl.StringArrayVar(&o.corpus, "require-corpus", nil, "required `ID` witnessed by the corpus ledger (repeatable)")
	fl.StringVar(&o.gateFile, "gate-file", "", "gate `FILE` (YAML or JSON: rfc, require, requireCorpus, minTier, live, bundles)")
	o.att.register(cmd)
	return cmd
}

func runGateAccepted(cmd *cobra.Command, o *gateAcceptedOptions) error {
	if o.gateFile != "" {
		g, err := gate.LoadFile(o.gateFile)
		if err != nil {
			return inputError(err)
		}
		if len(o.rfcs) == 0 && g.RFC != "" {
			o.rfcs = []string{g.RFC}
		}
		o.require = append(g.Require, o.require...)
		o.corpus = append(g.RequireCorpus, o.corpus...)
		if !cmd.Flags().Changed("min-tier") && g.MinTier != 0 {
			o.repo.minTier = g.MinTier
		}
		o.repo.live = o.repo.live || g.Live
		if o.repo.bundles == "" {
			o.repo.bundles = g.Bundles
		}
	}
	files, err := expandRFCs(o.rfcs)
	if err != nil {
		return err
	}
	if len(files) == 0 && len(o.require) == 0 && len(o.corpus) == 0 {
		return usageErrorf("bundle gate accepted: give --rfc FILE, --require ID or --gate-file FILE (see --help)")
	}
	if err := o.att.prepare(cmd, len(files) > 0); err != nil {
		return err
	}
	ids, err := gate.ExpandIDs(o.require)
	if err != nil {
		return usageErrorf("--require: %v", err)
	}
	corpusIDs, err := gate.ExpandIDs(o.corpus)
	if err != nil {
		return usageErrorf("--require-corpus: %v", err)
	}
	reqs := []gate.AcceptedRequest{{Require: ids, RequireCorpus: corpusIDs}}
	if len(files) > 0 {
		reqs = nil
	}
	for _, f := range files {
		x, err := rfc.Open(f)
		if err != nil {
			return inputError(fmt.Errorf("--rfc: %w", err))
		}
		reqs = append(reqs, gate.AcceptedRequest{RFC: x, Require: ids, RequireCorpus: corpusIDs})
	}
	o.repo.infer(cmd, files...)
	cfg, err := o.repo.config(cmd, &o.trust)
	if err != nil {
		return err
	}
	cfg.Loader.KeepRow = gate.KeepRowsFor(reqs...)
	r, err := o.repo.open(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	var reps []*gate.Report
	for _, req := range reqs {
		reps = append(reps, r.Accepted(cmd.Context(), req))
	}
	if err := context.Cause(cmd.Context()); err != nil {
		return err // interrupted: no report, no verdict (exit 130)
	}
	if err := render.WriteGate(cmd.OutOrStdout(), reps, o.out.gateOptions(cmd)); err != nil {
		return err
	}
	if err := o.att.write(cmd, reps, o.repo.root, o.gateFile); err != nil {
		return err
	}
	return exitFor(gate.Worst(reps).ExitCode())
}

var rfcFileRE = lazyre.New(`^\d{4}-.*\.md$`)

// expandRFCs expands --rfc arguments: a directory to its NNNN-*.md files, a
// glob (quoted, so the shell left it) to its matches; either must name at least
// one file.
func expandRFCs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		var matches []string
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			names, _ := filepath.Glob(filepath.Join(a, "*.md"))
			for _, n := range names {
				if rfcFileRE().MatchString(filepath.Base(n)) {
					matches = append(matches, n)
				}
			}
		} else if strings.ContainsAny(a, "*?[") {
			var gerr error
			if matches, gerr = filepath.Glob(a); gerr != nil {
				return nil, usageErrorf("--rfc %s: %v", a, gerr)
			}
		} else {
			matches = []string{a}
		}
		if len(matches) == 0 {
			return nil, usageErrorf("--rfc %s names no RFC file (RFCS/NNNN-….md)", a)
		}
		out = append(out, matches...)
	}
	return out, nil
}

func newGateAuditCmd() *cobra.Command {
	var (
		trust trustFlags
		repo  repoFlags
		out   output
	)
	cmd := command("gate-audit", "audit [flags] RFCS-DIR", "Run the Accepted predicate over every Accepted RFC (0167 and later)",
		exactArgs(1, "the RFCS directory"), func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("repo") {
				repo.root = filepath.Dir(filepath.Clean(args[0]))
			}
			cfg, err := repo.config(cmd, &trust)
			if err != nil {
				return err
			}
			r, err := repo.open(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			audit, err := r.Audit(cmd.Context(), args[0])
			if cause := context.Cause(cmd.Context()); cause != nil {
				return cause // interrupted: no report, no verdict (exit 130)
			}
			if err != nil {
				return inputError(err)
			}
			if err := render.WriteAudit(cmd.OutOrStdout(), audit, out.gateOptions(cmd)); err != nil {
				return err
			}
			return exitFor(audit.ExitCode)
		})
	trust.register(cmd, false)
	repo.register(cmd, true)
	gateOutput(cmd, &out)
	return cmd
}

func newGateCutCmd() *cobra.Command {
	var (
		trust trustFlags
		out   output
		root  string
		req   gate.CutFileRequest
	)
	cmd := command("gate-cut", "cut [flags] BUNDLE", "The host half of the v2 cut gates (Witness, Coexistence, Front door) for one bundle",
		exactArgs(1, "one bundle FILE"), func(cmd *cobra.Command, args []string) error {
			var err error
			if req.Options, err = trust.options(); err != nil {
				return err
			}
			req.File, req.Root = args[0], root
			if found, ok := gate.FindRoot(args[0]); ok && !cmd.Flags().Changed("repo") {
				req.Root = found
			}
			rep, err := gate.CutFile(req)
			var de *gate.DiscoveryFileError
			switch {
			case errors.As(err, &de) && de.Parsed:
				return inputError(fmt.Errorf("--host-discovery %s: %w", de.File, de.Err))
			case errors.As(err, &de):
				return inputError(fmt.Errorf("--host-discovery: %w", de.Err))
			case err != nil:
				return inputError(err)
			}
			if err := render.WriteGate(cmd.OutOrStdout(), []*gate.Report{rep}, out.gateOptions(cmd)); err != nil {
				return err
			}
			return exitFor(rep.ExitCode)
		})
	trust.register(cmd, false)
	gateOutput(cmd, &out)
	fl := cmd.Flags()
	fl.StringVar(&root, "repo", ".", "spec repository `DIR` (for INTEROP-MATRIX.md and conformance/scenario-majors.json; default: the one holding the bundle)")
	fl.StringVar(&req.ScenarioMajors, "scenario-majors", "", "conformance/scenario-majors.json `FILE`")
	fl.StringVar(&req.ScenariosDir, "scenarios", "", "conformance/src/scenarios `DIR` (req('…') call sites)")
	fl.StringVar(&req.InteropMatrix, "interop-matrix", "", "INTEROP-MATRIX.md `FILE`")
	fl.StringVar(&req.HostDiscovery, "host-discovery", "", "the host's discovery document `FILE`; the key it publishes under the bundle's signature.keyId becomes trusted")
	return cmd
}
