package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/limitedfile"
)

// governance is what the coherence, waiver and register rules read from a
// spec repository beside its RFCs, loaded once per gate run: every RFC's header
// (by the number its header states), the spec/v2 Status banners, the waiver
// retrospective register and the gap and risk registers. Nothing here fails:
// an input that cannot be read is recorded, and the rule that needs it is
// BLOCKED saying so.
type governance struct {
	rfcsDir string
	root    string
	// rfcs are the RFC files of rfcsDir, sorted by name; byNumber indexes them
	// by the number their header states (two files may state one number).
	rfcs     []*rfc.RFC
	byNumber map[string][]*rfc.RFC
	waived   map[string]int // RFC file → line saying the window was waived
	rfcsErr  error

	banners    []rfc.Banner
	bannersErr error

	waiverPath string
	waiverRows []rfc.WaiverRow
	waiverErr  error // fs.ErrNotExist when the register is absent
}

// loadGovernance reads the RFCs of rfcsDir and the spec/v2 banners and waiver
// register of the repository rfcsDir lies in (its parent directory).
func loadGovernance(rfcsDir string) *governance {
	names, err := os.ReadDir(rfcsDir)
	var files []string
	for _, n := range names {
		if !n.IsDir() && rfcFileRE().MatchString(n.Name()) {
			files = append(files, n.Name())
		}
	}
	sort.Strings(files)
	var rfcs []*rfc.RFC
	for _, f := range files {
		x, rerr := rfc.ReadFile(filepath.Join(rfcsDir, f))
		if rerr != nil {
			err = errors.Join(err, rerr)
			continue
		}
		rfcs = append(rfcs, x)
	}
	return newGovernance(rfcsDir, rfcs, err)
}

// newGovernance indexes RFCs already read from rfcsDir (rfcsErr: why some
// could not be) and reads the spec/v2 banners and the waiver register of the
// repository rfcsDir lies in.
func newGovernance(rfcsDir string, rfcs []*rfc.RFC, rfcsErr error) *governance {
	rfcsDir = filepath.Clean(rfcsDir)
	g := &governance{rfcsDir: rfcsDir, root: filepath.Dir(rfcsDir), byNumber: map[string][]*rfc.RFC{}, waived: map[string]int{}, rfcsErr: rfcsErr}
	for _, x := range rfcs {
		g.rfcs = append(g.rfcs, x)
		g.byNumber[x.Number] = append(g.byNumber[x.Number], x)
		if x.WaivedLine > 0 {
			g.waived[x.File] = x.WaivedLine
		}
	}
	specDir := filepath.Join(g.root, "spec", "v2")
	err := filepath.WalkDir(specDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		data, err := limitedfile.Read(p, limitedfile.MaxPolicy)
		if err != nil {
			return err
		}
		if b, ok := rfc.ReadBanner(p, string(data)); ok {
			g.banners = append(g.banners, b)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		g.bannersErr = err
	}
	g.waiverPath = filepath.Join(g.root, "docs", "WAIVER-RETROSPECTIVE-REGISTER.md")
	g.waiverRows, g.waiverErr = rfc.ReadWaiverRegister(g.waiverPath)
	return g
}

// statusOf is the Status of the RFC numbered n: the RFC, or why it cannot be
// told (absent, two files, an unreadable Status).
func (g *governance) lookup(n string) (*rfc.RFC, string) {
	xs := g.byNumber[n]
	switch {
	case len(xs) == 0:
		why := fmt.Sprintf("RFC %s has no file in %s", n, g.rfcsDir)
		if g.rfcsErr != nil {
			why += fmt.Sprintf(" (%v)", g.rfcsErr)
		}
		return nil, why
	case len(xs) > 1:
		var fs []string
		for _, x := range xs {
			fs = append(fs, x.File)
		}
		return nil, fmt.Sprintf("two files state RFC %s (%s), so its Status is open to reading", n, strings.Join(fs, ", "))
	case xs[0].StatusProblem != "":
		return nil, fmt.Sprintf("RFC %s's Status cannot be read: %s", n, xs[0].StatusProblem)
	}
	return xs[0], ""
}

// baseline is docs/witness-baseline.json's ratchets (RFC 0166 §C): a count
// absent or not a number is no ratchet.
type baseline struct {
	OpenGaps    *int `json:"openGaps"`
	OpenRisks   *int `json:"openRisks"`
	SelfCarried *int `json:"selfCarried"`
}

func readBaseline(path string) (*baseline, error) {
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := &baseline{}
	num := func(k string) *int {
		var n int
		if v, ok := raw[k]; ok && json.Unmarshal(v, &n) == nil {
			return &n
		}
		return nil
	}
	b.OpenGaps, b.OpenRisks, b.SelfCarried = num("openGaps"), num("openRisks"), num("selfCarried")
	return b, nil
}

func isTerminal(s rfc.Status) bool {
	return s == rfc.StatusAccepted || s == rfc.StatusSuperseded || s == rfc.StatusWithdrawn || s == rfc.StatusRejected
}

// repositoryReport runs the repository-wide governance rules over g: the
// supersession pointers, the spec/v2 Stable banners, the waiver register and
// the gap and risk registers (gate audit).
func repositoryReport(g *governance, settings Settings) *Report {
	rep := &Report{Gate: "audit", Subject: "the repository (" + g.root + ")", Settings: settings}
	if g.rfcsErr != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("some RFC files of %s cannot be read: %v", g.rfcsDir, g.rfcsErr))
	}
	rep.Criteria = append(rep.Criteria, supersededByCriterion(g, nil), stableBannerCriterion(g, nil), waiverAuditCriterion(g),
		schemasReadmeCriterion(g), draftEnforcedCriterion(g), v1StatusCriterion(g))
	crits, notes := registerCriteria(g)
	rep.Criteria = append(rep.Criteria, crits...)
	rep.Notes = append(rep.Notes, notes...)
	rep.finish()
	return rep
}

// governance is the criteria of the governance rules for the RFC gated: its
// supersessions and its waiver register row.
// The RFCs come from tree when it was read whole, else from disk again.
func (req AcceptedRequest) governance(x *rfc.RFC, tree *rfc.Tree) []Criterion {
	g := req.gov
	switch {
	case g != nil:
	case tree != nil:
		g = newGovernance(tree.Dir, tree.RFCs, nil)
	default:
		g = loadGovernance(filepath.Dir(x.File))
	}
	return []Criterion{supersessionCriterion(g, x), waiverCriterion(g, x)}
}
