package gate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/lazyre"
	"github.com/certcut/certcut/internal/limitedfile"
	"github.com/certcut/certcut/keys"
	"github.com/certcut/certcut/verify"
)

// CoexistencePrefixes are the four RFC 0167 §F Coexistence scenarios, by id
// prefix: every leg of each must be executed-pass.
var CoexistencePrefixes = []string{
	"openwop.requirement.0172.dual-stack-negotiation",
	"openwop.requirement.0176.fork-a-v1-run",
	"openwop.requirement.0176.v1-signed-webhook-accepted",
	"openwop.requirement.0177.manifest-ceiling-refused",
}

// CutRequest is the host half of the v2 cut gates for one bundle.
type CutRequest struct {
	Entry *Entry
	// ScenarioMajors is conformance/scenario-majors.json ({"majors": {file: [1,2]}});
	// ScenariosDir is conformance/src/scenarios. Without them the checks that need
	// the corpus's scenario list are BLOCKED.
	ScenarioMajors string
	ScenariosDir   string
	// InteropMatrix is INTEROP-MATRIX.md; without it the host-listed check is BLOCKED.
	InteropMatrix string
	// HostDiscovery is the file whose signingKeys[] were supplied as trusted keys
	// (--host-discovery), with its parsed document; "" when none.
	HostDiscovery    string
	HostDiscoveryDoc *bundle.Value
}

var reqCallRE = lazyre.New(`\breq\(\s*'(openwop\.requirement\.[a-z0-9.-]+)'`)

// Cut runs Witness, Coexistence and Front door (spec §8.2) on one bundle.
func Cut(req CutRequest) *Report {
	e := req.Entry
	ref := e.Ref()
	rep := &Report{Gate: "cut", Subject: e.File}
	add := func(id RuleID, st Status, reason string) {
		rep.Criteria = append(rep.Criteria, rule(id).Criterion(Result{Status: st, Reason: reason, Bundle: &ref}))
	}
	addTitled := func(id RuleID, title string, st Status, reason string) {
		rep.Criteria = append(rep.Criteria, rule(id).Criterion(Result{Title: title, Status: st, Reason: reason, Bundle: &ref}))
	}
	if e.Bundle == nil {
		add(CritCutReadable, Fail, "unreadable: "+errString(e.Err))
		rep.finish()
		return rep
	}
	b := e.Bundle
	rows := b.Rows
	majors, majorsErr := readMajors(req.ScenarioMajors)

	// Witness.
	if majorsErr != nil || req.ScenariosDir == "" {
		why := "give --scenario-majors (conformance/scenario-majors.json) and --scenarios (conformance/src/scenarios) to derive the v2 requirement ids"
		if majorsErr != nil && req.ScenarioMajors != "" {
			why = majorsErr.Error()
		}
		add(CritCutWitnessIDs, Blocked, why)
	} else {
		ids, err := v2RequirementIDs(majors, req.ScenariosDir)
		if err != nil {
			add(CritCutWitnessIDs, Blocked, err.Error())
		} else {
			have := map[string]bool{}
			fileRow := map[string]bundle.Row{}
			for _, r := range rows {
				have[r.ID] = true
				if r.Scenario != "" {
					fileRow[r.Scenario] = r
				}
			}
			var missing []string
			for id, file := range ids {
				fr, ok := fileRow[file]
				excused := ok && (fr.Result == bundle.Inapplicable || fr.Result == bundle.Blocked) && verify.TrimJS(fr.DetailText()) != ""
				if !have[id] && !excused {
					missing = append(missing, id)
				}
			}
			sort.Strings(missing)
			if len(missing) == 0 {
				add(CritCutWitnessIDs, Pass, fmt.Sprintf("%d v2 requirement ids each carry ≥1 row", len(ids)))
			} else {
				add(CritCutWitnessIDs, Fail, fmt.Sprintf("%d/%d v2 requirement ids have no row and no excusing file row: %s", len(missing), len(ids), firstN(missing, 5)))
			}
		}
	}
	var unexplained []string
	for _, r := range rows {
		if r.Result != bundle.ExecutedPass && r.Result != bundle.Inapplicable && r.DetailText() == "" {
			unexplained = append(unexplained, r.ID)
		}
	}
	if len(unexplained) == 0 {
		add(CritCutWitnessReasons, Pass, "every non-pass row states a reason")
	} else {
		add(CritCutWitnessReasons, Fail, fmt.Sprintf("%d non-pass row(s) state no reason: %s", len(unexplained), firstN(unexplained, 3)))
	}

	// Coexistence.
	for _, prefix := range CoexistencePrefixes {
		counts := map[string]int{}
		n, pass := 0, true
		for _, r := range rows {
			if rfc.Covers(prefix, r.ID) {
				n++
				counts[r.Result]++
				pass = pass && r.Result == bundle.ExecutedPass
			}
		}
		title := "every leg of " + prefix + " executed-pass"
		switch {
		case n == 0:
			addTitled(CritCutCoexistence, title, Fail, "no row — the scenario did not run")
		default:
			var parts []string
			for _, res := range bundle.Results {
				if counts[res] > 0 {
					parts = append(parts, fmt.Sprintf("%s=%d", res, counts[res]))
				}
			}
			st := Pass
			if !pass {
				st = Fail
			}
			addTitled(CritCutCoexistence, title, st, fmt.Sprintf("%d leg(s): %s", n, strings.Join(parts, " ")))
		}
	}

	// Front door.
	major := b.Suite.TargetMajor
	switch {
	case major != 1 && major != 2:
		add(CritCutApplicable, Fail, fmt.Sprintf("suite.targetMajor is %d; without 1 or 2 the applicable set is undefined", major))
	case majorsErr != nil:
		why := "give --scenario-majors (conformance/scenario-majors.json) to derive the applicable scenario files"
		if req.ScenarioMajors != "" {
			why = majorsErr.Error()
		}
		add(CritCutApplicable, Blocked, why)
	default:
		witnessed := map[string]bool{}
		re := regexp.MustCompile(`^openwop\.(?:scenario|floor)\.(.+)$`)
		for _, r := range rows {
			if m := re.FindStringSubmatch(r.ID); m != nil {
				witnessed[m[1]+".test.ts"] = true
			}
		}
		var applicable, missing []string
		for f, ms := range majors {
			for _, m := range ms {
				if m == major {
					applicable = append(applicable, f)
					if !witnessed[f] {
						missing = append(missing, f)
					}
				}
			}
		}
		sort.Strings(missing)
		if len(missing) == 0 {
			add(CritCutApplicable, Pass, fmt.Sprintf("suite %s witnessed all %d scenario file(s) applicable at major %d (suite.targetMajor, unsigned: the verify criterion below holds the bundle to it)", b.Suite.Version, len(applicable), major))
		} else {
			add(CritCutApplicable, Fail, fmt.Sprintf("%d of %d scenario file(s) applicable at major %d have no row (suite %s): %s; re-certify", len(missing), len(applicable), major, b.Suite.Version, firstN(missing, 6)))
		}
	}
	t := bundle.CountRows(rows)
	st := Pass
	if t.ExecutedFail != 0 {
		st = Fail
	}
	add(CritCutExecutedFail, st, fmt.Sprintf("executedFail=%d executedPass=%d blocked=%d (recounted from rows)", t.ExecutedFail, t.ExecutedPass, t.Blocked))
	name, named := hostNameFor(e)
	switch {
	case req.InteropMatrix == "":
		add(CritCutInteropMatrix, Blocked, "give --interop-matrix INTEROP-MATRIX.md")
	case name == "":
		add(CritCutInteropMatrix, Fail, "the bundle names no host (implementation.name, host.name)")
	default:
		if data, err := limitedfile.Read(req.InteropMatrix, limitedfile.MaxPolicy); err != nil {
			add(CritCutInteropMatrix, Blocked, err.Error())
		} else if line := matrixRow(string(data), name); line > 0 {
			add(CritCutInteropMatrix, Pass, fmt.Sprintf("%s line %d names %s (%s)", req.InteropMatrix, line, name, named))
		} else {
			add(CritCutInteropMatrix, Fail, fmt.Sprintf("no row of %s has a cell that is exactly %s (%s)", req.InteropMatrix, name, named))
		}
	}
	sst, sreason := signatureOutcome(e, req)
	add(CritCutAttributable, sst, sreason)
	v := e.Verdict
	switch v.Outcome {
	case verify.Rejected:
		add(CritCutFrontDoorVerify, Fail, fmt.Sprintf("REJECTED — %s", firstN(rejectionLines(v), 3)))
	case verify.Verified:
		add(CritCutFrontDoorVerify, Pass, "zero rejections, VERIFIED")
	default:
		// COHERENT proves nothing about what was not checked: derivability at an
		// unsigned suite.targetMajor, a key nobody trusts. A cut passes on a bundle
		// verified in full, never on one that is merely consistent.
		add(CritCutFrontDoorVerify, Blocked, "zero rejections, but COHERENT, not VERIFIED: "+strings.Join(v.Unverified, "; "))
	}
	rep.finish()
	return rep
}

// hostNameFor returns the host's name as the bundle's signed discovery document
// states it (implementation.name, once discovery.sha256 checked out), else
// host.name, which no signature covers; the second result says which.
func hostNameFor(e *Entry) (name, source string) {
	b, v := e.Bundle, e.Verdict
	if doc := b.Discovery.Document; doc != nil && v != nil && v.DiscoveryRecomputed != "" && v.DiscoveryRecomputed == b.Discovery.Sha256 {
		if n := bundle.ImplementationName(*doc); n != "" {
			return n, "implementation.name of the signed discovery document"
		}
	}
	return b.Host.Name, "host.name, unsigned"
}

// matrixRow returns the 1-based line of the first Markdown table row with a cell
// that is exactly name (trimmed, backticks removed), or 0: a substring such as "|"
// or a longer host's name is not a listing.
func matrixRow(text, name string) int {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		for _, cell := range strings.Split(strings.Trim(line, "|"), "|") {
			if strings.Trim(strings.TrimSpace(cell), "`") == name {
				return i + 1
			}
		}
	}
	return 0
}

// signatureOutcome keeps the four attribution outcomes apart (spec §4.2).
func signatureOutcome(e *Entry, req CutRequest) (Status, string) {
	v, b := e.Verdict, e.Bundle
	if b.Signature == nil || b.Signature.Sig == "" || b.Signature.KeyID == "" {
		return Fail, "unsigned — an unsigned v3 bundle does not exist"
	}
	keyID := b.Signature.KeyID
	switch {
	case v.SignatureVerified:
		return Pass, fmt.Sprintf("attestation verifies under %s %s from %s", keyID, v.HostKey.Fingerprint, strings.TrimSpace(v.HostKey.Source+" "+v.HostKey.Origin))
	case v.RevokedKey != nil:
		return Fail, fmt.Sprintf("key %s is revoked in keyring %s (%s)", keyID, v.RevokedKey.Keyring, v.RevokedKey.Reason)
	case v.HostKey != nil:
		return Fail, fmt.Sprintf("the attestation does NOT verify under %s from %s — altered after signing, or signed by another key", keyID, v.HostKey.Source)
	case req.HostDiscoveryDoc != nil:
		published, _ := keys.SigningKeys(*req.HostDiscoveryDoc)
		if len(published) == 0 {
			return Fail, fmt.Sprintf("signed by %s, and %s publishes NO signingKeys[]: nothing binds the key to the host", keyID, req.HostDiscovery)
		}
		var ids []string
		for _, p := range published {
			ids = append(ids, p.KeyID)
		}
		return Fail, fmt.Sprintf("signed by %s, which is not among the %d key(s) %s publishes (%s)", keyID, len(published), req.HostDiscovery, strings.Join(ids, ", "))
	}
	return Blocked, fmt.Sprintf("signed by %s, but no discovery document, keyring or host key was given to resolve it: the signature attests INTEGRITY only", keyID)
}

func readMajors(path string) (map[string][]int, error) {
	if path == "" {
		return nil, fmt.Errorf("no scenario-majors file")
	}
	data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
	if err != nil {
		return nil, err
	}
	var m struct {
		Schema  string           `json:"$schema,omitempty"`
		Comment string           `json:"$comment,omitempty"`
		Majors  map[string][]int `json:"majors"`
	}
	if err := bundle.DecodeStrict(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Majors == nil {
		return nil, fmt.Errorf("%s has no \"majors\" object", path)
	}
	return m.Majors, nil
}

// v2RequirementIDs harvests req('openwop.requirement…') call sites of the scenario
// files assigned to major 2. The file names come from repository data, so each must
// stay inside dir (no absolute path, no "..", no symbolic link out); a name that
// leaves it, or a listed file that cannot be read, is an error: a file the gate
// cannot read would silently drop its ids from the Witness check.
func v2RequirementIDs(majors map[string][]int, dir string) (map[string]string, error) {
	ids := map[string]string{}
	files := make([]string, 0, len(majors))
	for file := range majors {
		files = append(files, file)
	}
	sort.Strings(files)
	for _, file := range files {
		if !containsInt(majors[file], 2) {
			continue
		}
		data, err := limitedfile.ReadIn(dir, file, limitedfile.MaxPolicy)
		if err != nil {
			return nil, fmt.Errorf("scenario file %q from the scenario-majors list: %w", file, err)
		}
		for _, m := range reqCallRE().FindAllStringSubmatch(string(data), -1) {
			ids[m[1]] = file
		}
	}
	return ids, nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
