package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/render"
	"github.com/certcut/certcut/verify"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// repoFlags say where the spec repository keeps its evidence.
type repoFlags struct {
	root, bundles, tiers, ledger, anchors string
	minTier                               int
	live                                  bool
	trustUnsignedOrigin                   bool
	historyBase                           string
	requireTimestamp                      bool
}

func (r *repoFlags) register(cmd *cobra.Command, withLive bool) {
	fl := cmd.Flags()
	fl.StringVar(&r.root, "repo", ".", "spec repository `root` the default paths below are relative to")
	fl.StringVar(&r.bundles, "bundles", "", "committed bundles `dir` (default <repo>/evidence/v2-host-bundles)")
	fl.StringVar(&r.tiers, "tiers", "", "host-tier table `file` (default <repo>/evidence/host-tiers.json)")
	fl.StringVar(&r.ledger, "ledger", "", "corpus ledger `file` (default <repo>/evidence/corpus-ledger.json)")
	fl.StringVar(&r.anchors, "anchors", "", "harness-trust-anchor list `file` (default <repo>/spec/v2/harness-trust-anchors.json)")
	fl.IntVar(&r.minTier, "min-tier", 1, "lowest host tier that qualifies: 1 steward-verified, 2 steward-affiliated, 3 independent")
	fl.BoolVar(&r.requireTimestamp, "require-timestamp", false, "bundle.key FAILs a bundle whose host signature has no RFC 3161 token (FILE.tsr beside it) that chains to a --tsa-cert (docs/timestamps.md)")
	if withLive {
		fl.BoolVar(&r.live, "live", false, "fetch each witness host's live /.well-known/openwop and compare its canonical hash with discovery.sha256 (a match also binds the origin of discovery.url)")
		fl.StringVar(&r.historyBase, "history-base", "", "the reviewed `REF` (the branch pull requests merge into, e.g. origin/main): a committed bundle's discovery.url is bound by git history only when the commit that added it with its signed payload is on REF")
		fl.BoolVar(&r.trustUnsignedOrigin, "trust-unsigned-origin", false, "WEAKER: take a host's tier from the origin of discovery.url even when no keyring pin, git history or live fetch binds it (discovery.url is not signed), as the reference predicate does")
	}
}

func (r *repoFlags) config(stderr io.Writer, opts verify.Options, keyring string) (gate.Config, error) {
	if r.minTier < 1 || r.minTier > 3 {
		return gate.Config{}, usageErrorf("--min-tier must be 1, 2 or 3")
	}
	return gate.Config{
		Root: r.root, BundlesDir: r.bundles, TiersFile: r.tiers, LedgerFile: r.ledger, AnchorsFile: r.anchors,
		MinTier: r.minTier, Live: r.live, KeyringPath: keyring, TrustUnsignedOrigin: r.trustUnsignedOrigin, HistoryBase: r.historyBase,
		RequireTimestamp: r.requireTimestamp,
		Loader:           &gate.Loader{Options: opts, Progress: progress(stderr, "verifying bundles")},
	}, nil
}

// progress returns a progress printer for long runs when stderr is a terminal,
// and nil (quiet) otherwise.
func progress(stderr io.Writer, what string) func(done, total int) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func(done, total int) {
		if total < 20 {
			return
		}
		if done == total {
			fmt.Fprintf(f, "\r\033[K")
			return
		}
		if done%10 == 0 {
			fmt.Fprintf(f, "\r\033[Kbundle: %s %d/%d", what, done, total)
		}
	}
}

func openRepo(cfg gate.Config) (*gate.Repo, error) {
	repo, err := gate.Open(cfg)
	if err != nil {
		return nil, inputError(err)
	}
	return repo, nil
}

func checkFormat(f string, allowed []render.Format) error {
	if _, err := render.ParseFormat(f, allowed...); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

func renderReports(w io.Writer, format string, reps []*gate.Report) error {
	return render.WriteGate(w, reps, render.GateOptions{Format: render.Format(format), Version: versionString()})
}

func newGateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Decide governance gates over committed bundles: accepted, audit, cut",
		Long: `gate decides, criterion by criterion, what reviewers and CI otherwise check by hand:

  bundle gate accepted   the Accepted predicate for one RFC (or explicit ids)
  bundle gate audit      the Accepted predicate over every Accepted RFC of a register
  bundle gate cut        the host half of the v2 cut gates for one bundle
  bundle gate flips      CI: every RFC Status change between two revisions, each flip
                         to Accepted gated, each changed bundle checked for regressions

Every criterion ends PASS, FAIL or BLOCKED (could not be evaluated, with why),
naming the bundle file, its sha256, the row and the key. Exit codes: 0 all pass,
1 any fail, 2 blocked only, 3 an input could not be read, 4 usage error.
Documentation: docs/gate.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("bundle gate: give a subcommand: accepted, audit, cut or flips (see 'bundle gate --help')")
		},
	}
	cmd.AddCommand(newGateAcceptedCmd(), newGateAuditCmd(), newGateCutCmd(), newGateFlipsCmd())
	return cmd
}

func newGateAcceptedCmd() *cobra.Command {
	var (
		trust         trustFlags
		repo          repoFlags
		rfcFile       string
		require       []string
		requireCorpus []string
		gateFilePath  string
		format        string
		att           attestFlags
	)
	cmd := &cobra.Command{
		Use:   "accepted [flags]",
		Short: "Decide the Accepted predicate for an RFC, criterion by criterion",
		Long: `accepted decides whether the evidence supports flipping an RFC to Accepted
(RFC 0174 §B.1): from the RFC's text (--rfc), explicit ids (--require) or a
gate file (--gate-file, YAML or JSON), over the committed bundles.

Criteria:
  rfc.acceptance     every acceptance box ticked, or unticked with reason:/deferred:/Phase 4
  rfc.updated        the Updated field names tier-1/2/3 or "corpus gate"
  rfc.register       no ` + "`open`" + ` row in RFCS/registers/NNNN*.gaps.md
  requirement        each id (from the Falsifiability and Conformance tables and the
                     acceptance lines; 0211.x and .y shorthand expanded) has a row, or
                     legs under it, executed-pass, assertions >= 1, not partial-witness:,
                     in a bundle that qualifies
  requirement.corpus a (corpus) id is executed-pass in evidence/corpus-ledger.json
  bundle.*           for each bundle relied on: verifies with zero rejections under a
                     trusted key (--keyring or --host-key); key not revoked and in
                     service when it signed (judged at the time of a FILE.tsr token
                     trusted under --tsa-cert; a retired key without one is BLOCKED;
                     --require-timestamp FAILs a bundle without one); all claimed
                     profiles certified; relaxations empty;
                     guard closed; host tier known and >= --min-tier (by the origin of
                     discovery.url in evidence/host-tiers.json), that origin bound to
                     the signed bundle by the keyring pin of the signing key, the git
                     history of the committed file up to the reviewed --history-base,
                     or the --live fetch (else BLOCKED;
                     --trust-unsigned-origin accepts it unbound, weaker); a colocated
                     companion only for harness-trust-anchor rows and only when it pairs;
                     with --live, the live /.well-known/openwop still hashes to
                     discovery.sha256 (Deployed, not merged)

--attest FILE --key KEY --key-id ID also writes the decision as a signed SLSA VSA
(subject the RFC file and its digest, inputs the bundles relied on, PASSED or
FAILED; a BLOCKED decision writes none): docs/attestations.md.

Exit codes: 0 all pass, 1 any fail, 2 blocked only, 3 an input could not be
read, 4 usage error.`,
		Example: `  bundle gate accepted --rfc RFCS/0211-a2a-error-details-are-errorinfo.md --keyring keyring.json
  bundle gate accepted --require 0211.a2a-error-data-shape --require .a2a-no-openwop-envelope --host-key keys/
  bundle gate accepted --gate-file gates/0235.yaml --keyring keyring.json --live --format github`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, render.GateFormats); err != nil {
				return err
			}
			if gateFilePath != "" {
				g, err := gate.LoadFile(gateFilePath)
				if err != nil {
					return inputError(err)
				}
				if rfcFile == "" && g.RFC != "" {
					rfcFile = g.RFC
				}
				require = append(g.Require, require...)
				requireCorpus = append(g.RequireCorpus, requireCorpus...)
				if !cmd.Flags().Changed("min-tier") && g.MinTier != 0 {
					repo.minTier = g.MinTier
				}
				repo.live = repo.live || g.Live
				if repo.bundles == "" {
					repo.bundles = g.Bundles
				}
			}
			if rfcFile == "" && len(require) == 0 && len(requireCorpus) == 0 {
				return usageErrorf("bundle gate accepted: give --rfc FILE, --require ID or --gate-file FILE (see --help)")
			}
			if err := att.prepare(cmd, rfcFile != ""); err != nil {
				return err
			}
			ids, err := gate.ExpandIDs(require)
			if err != nil {
				return usageErrorf("--require: %v", err)
			}
			corpusIDs, err := gate.ExpandIDs(requireCorpus)
			if err != nil {
				return usageErrorf("--require-corpus: %v", err)
			}
			var x *rfc.RFC
			if rfcFile != "" {
				if x, err = rfc.ReadFile(rfcFile); err != nil {
					return inputError(fmt.Errorf("--rfc: %w", err))
				}
			}
			opts, err := trust.options()
			if err != nil {
				return err
			}
			cfg, err := repo.config(cmd.ErrOrStderr(), opts, trust.keyring)
			if err != nil {
				return err
			}
			req := gate.AcceptedRequest{RFC: x, Require: ids, RequireCorpus: corpusIDs}
			cfg.Loader.KeepRow = req.RowFilter()
			r, err := openRepo(cfg)
			if err != nil {
				return err
			}
			rep := r.Accepted(context.Background(), req)
			if err := renderReports(cmd.OutOrStdout(), format, []*gate.Report{rep}); err != nil {
				return err
			}
			if err := att.writeGate(cmd, rep, repo.root, gateFilePath); err != nil {
				return err
			}
			return exitFor(rep.ExitCode)
		},
	}
	trust.register(cmd)
	repo.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&rfcFile, "rfc", "", "RFC Markdown `file` (RFCS/NNNN-….md) whose tables and acceptance lines name the ids")
	fl.StringArrayVar(&require, "require", nil, "required host-tier `id` (repeatable; 0211.x and .y shorthand allowed)")
	fl.StringArrayVar(&requireCorpus, "require-corpus", nil, "required `id` witnessed by the corpus ledger (repeatable)")
	fl.StringVar(&gateFilePath, "gate-file", "", "gate `file` (YAML or JSON: rfc, require, requireCorpus, minTier, live, bundles)")
	fl.StringVar(&format, "format", "text", "output: text, json, github (workflow annotations), sarif (2.1.0) or junit")
	att.register(cmd)
	return cmd
}

func exitFor(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code}
}

func newGateAuditCmd() *cobra.Command {
	var (
		trust  trustFlags
		repo   repoFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "audit [flags] RFCS-DIR",
		Short: "Run the Accepted predicate over every Accepted RFC (0167 and later)",
		Long: `audit runs the Accepted predicate (see 'bundle gate accepted --help') over every
RFCS/NNNN-*.md numbered 0167 or higher whose Status is Accepted, and prints one
row per RFC: its verdict, the bundles that witness it, and what is missing. This
is how a steward checks the whole register before a cut. Every bundle is read and
verified once for the whole run.

Exit codes: 0 every RFC passes, 1 any fails, 2 blocked only, 3 an input could
not be read, 4 usage error.`,
		Example: `  bundle gate audit --keyring keyring.json RFCS/
  bundle gate audit --host-key keys/ --format json RFCS/ | jq '.rows[] | select(.status != "PASS")'`,
		Args: exactArgs(1, "the RFCS directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, render.GateFormats); err != nil {
				return err
			}
			opts, err := trust.options()
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("repo") {
				repo.root = filepath.Dir(filepath.Clean(args[0]))
			}
			cfg, err := repo.config(cmd.ErrOrStderr(), opts, trust.keyring)
			if err != nil {
				return err
			}
			r, err := openRepo(cfg)
			if err != nil {
				return err
			}
			audit, err := r.Audit(context.Background(), args[0])
			if err != nil {
				return inputError(err)
			}
			if err := render.WriteAudit(cmd.OutOrStdout(), audit, render.GateOptions{Format: render.Format(format), Version: versionString()}); err != nil {
				return err
			}
			return exitFor(audit.ExitCode)
		},
	}
	trust.register(cmd)
	repo.register(cmd, true)
	cmd.Flags().StringVar(&format, "format", "text", "output: text, json, github, sarif or junit")
	return cmd
}

func newGateCutCmd() *cobra.Command {
	var (
		trust                                        trustFlags
		repo                                         repoFlags
		format                                       string
		majors, scenarios, matrix, hostDiscoveryFile string
	)
	cmd := &cobra.Command{
		Use:   "cut [flags] BUNDLE",
		Short: "The host half of the v2 cut gates (Witness, Coexistence, Front door) for one bundle",
		Long: `cut runs the host-evidence gates of the v2.0 cut (RFC 0167 §F) on one bundle:

  Witness      every v2 requirement id (req('…') call sites of the scenario files
               conformance/scenario-majors.json assigns to major 2) has a row, unless
               its file's row is inapplicable or blocked with a reason; every non-pass
               row that is not inapplicable states a reason
  Coexistence  every leg of 0172.dual-stack-negotiation, 0176.fork-a-v1-run,
               0176.v1-signed-webhook-accepted, 0177.manifest-ceiling-refused
               is executed-pass (and at least one exists)
  Front door   every scenario file applicable at the bundle's major has a scenario or
               floor row; executedFail is 0; INTEROP-MATRIX.md names host.name; the
               signature is attributable (four outcomes kept apart); zero rejections

A check whose input was not given is BLOCKED. Exit codes as for 'gate accepted'.`,
		Example: `  bundle gate cut --keyring keyring.json evidence/v2-host-bundles/myndhyve-2.45.25.json
  bundle gate cut --host-discovery live-discovery.json --scenario-majors conformance/scenario-majors.json \
      --scenarios conformance/src/scenarios --interop-matrix INTEROP-MATRIX.md bundle.json`,
		Args: exactArgs(1, "one bundle FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, render.GateFormats); err != nil {
				return err
			}
			opts, err := trust.options()
			if err != nil {
				return err
			}
			req := gate.CutRequest{ScenarioMajors: majors, ScenariosDir: scenarios, InteropMatrix: matrix}
			if hostDiscoveryFile != "" {
				data, err := limitedfile.Read(hostDiscoveryFile, limitedfile.MaxPolicy)
				if err != nil {
					return inputError(fmt.Errorf("--host-discovery: %w", err))
				}
				doc, err := bundle.ParseIJSON(data)
				if err != nil {
					return inputError(fmt.Errorf("--host-discovery %s: %w", hostDiscoveryFile, err))
				}
				req.HostDiscovery, req.HostDiscoveryDoc = hostDiscoveryFile, &doc
				// Resolve signature.keyId in the document (check-cut-gates' rule): only the
				// key published under that id is trusted, never a lone key of another id.
				if raw, err := bundle.ReadFile(args[0]); err == nil {
					if b, _, err := bundle.Parse(raw); err == nil && b.Signature != nil {
						if k, err := keys.FromDiscovery(&doc, b.Signature.KeyID, keys.SourceDiscovery, hostDiscoveryFile); err == nil {
							opts.HostKeys = append(opts.HostKeys, k)
						}
					}
				}
			}
			if req.InteropMatrix == "" {
				if p := filepath.Join(repo.root, "INTEROP-MATRIX.md"); fileExists(p) {
					req.InteropMatrix = p
				}
			}
			if req.ScenarioMajors == "" {
				if p := filepath.Join(repo.root, "conformance", "scenario-majors.json"); fileExists(p) {
					req.ScenarioMajors = p
					if req.ScenariosDir == "" {
						req.ScenariosDir = filepath.Join(repo.root, "conformance", "src", "scenarios")
					}
				}
			}
			loader := &gate.Loader{Options: opts}
			e := loader.LoadFile(args[0])
			if e.Bundle == nil {
				return inputError(fmt.Errorf("%s: %v", args[0], e.Err))
			}
			req.Entry = e
			rep := gate.Cut(req)
			if err := renderReports(cmd.OutOrStdout(), format, []*gate.Report{rep}); err != nil {
				return err
			}
			return exitFor(rep.ExitCode)
		},
	}
	trust.register(cmd)
	cmd.Flags().StringVar(&repo.root, "repo", ".", "spec repository `root` (for INTEROP-MATRIX.md and conformance/scenario-majors.json)")
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "text", "output: text, json, github, sarif or junit")
	fl.StringVar(&majors, "scenario-majors", "", "conformance/scenario-majors.json `file`")
	fl.StringVar(&scenarios, "scenarios", "", "conformance/src/scenarios `dir` (req('…') call sites)")
	fl.StringVar(&matrix, "interop-matrix", "", "INTEROP-MATRIX.md `file`")
	fl.StringVar(&hostDiscoveryFile, "host-discovery", "", "the host's discovery document `file`; its signingKeys[] become trusted keys")
	return cmd
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
