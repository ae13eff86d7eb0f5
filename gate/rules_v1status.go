package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/certcut/certcut/gate/rfc"
	"github.com/certcut/certcut/internal/lazyre"
	"github.com/certcut/certcut/internal/limitedfile"
)

// CritV1Status restates the status-coherence script's rules on spec/v1 (4, 4b,
// 4c and 5; RFC 0174 §D): what a v1 page says of an RFC's Status is the RFC's
// Status.
const (
	CritV1Status RuleID = "spec.v1-status"
	v1SpecPath          = "spec/v1"
)

func init() {
	declare(func() {
		register(Rule{ID: CritV1Status, Title: "spec/v1 Status banners, inline status markers and deferrals agree with each RFC's Status",
			Source: "RFC 0174 §D.1, §D.2; " + coherenceScript + " rules 4, 4b, 4c and 5 (stricter: an absent spec/v1 is BLOCKED, naming it, where the script crashes; an RFC whose Status cannot be told is BLOCKED)",
			Gates:  []string{"audit"}, Anchor: coherenceAnchor})
	})
}

const statusWords = "Draft|Active|Accepted|Withdrawn|Superseded|Rejected"

var (
	v1BannerRE      = lazyre.New(`\*\*Status:`)
	v1BannerStateRE = lazyre.New("RFC (\\d{4}) `(" + statusWords + ")`")
	v1DraftRE       = lazyre.New(`Status:\s*Draft`)
	v1GraduatesRE   = lazyre.New("graduates?[^.]*when RFC (\\d{4}) reaches `?Accepted`?")
	v1CitedRE       = lazyre.New(`RFC[ -](\d{4})((?:\s*(?:,|–|-|and)\s*\d{4})*)`)
	v1CitedNextRE   = lazyre.New(`\s*(,|–|-|and)\s*(\d{4})`)
	v1PredicateRE   = lazyre.New(`Draft pending\b|stays Draft until\b`)
	v1MarkerRE      = lazyre.New("RFC[ -](\\d{4})(?:\\]\\([^)\\s]*\\))?,? \\(?`(" + statusWords + ")`")
	v1DeferralRE    = lazyre.New("(?i)(?:deferred to|lands? at|land in[^|]*at) `Active → Accepted`[^|]*RFC (\\d{4})")
)

// v1StatusCriterion decides spec.v1-status over spec/v1/*.md: the first
// line saying **Status: (the banner) states each RFC's real Status (rule 4); a
// Draft banner that graduates "when RFC N reaches Accepted" fails once it has
// (4); a Draft banner citing only Accepted RFCs says `Accepted` and names its
// predicate ("Draft pending …", "stays Draft until …") (4b); every inline
// marker “RFC NNNN (`Status`)“ on any line is the RFC's Status (4c); a gap
// row deferring to an RFC's `Active → Accepted` fails once it is Accepted (5).
func v1StatusCriterion(g *governance) Criterion {
	r := rule(CritV1Status)
	dir := filepath.Join(g.root, filepath.FromSlash(v1SpecPath))
	ents, err := os.ReadDir(dir)
	if err != nil {
		why := fmt.Sprintf("%s cannot be read: %v", dir, err)
		if errors.Is(err, fs.ErrNotExist) {
			why = fmt.Sprintf("%s does not exist: what its pages say of RFC statuses cannot be checked", dir)
		}
		return r.Criterion(Result{Status: Blocked, Reason: why})
	}
	names := filesNamed(ents, ".md")
	var t tally
	// known returns the RFC's Status, or nothing (absent: skipped, as the
	// script skips it; undecidable: a BLOCKED finding at loc).
	known := func(n string, loc *Location) (rfc.Status, bool) {
		st, why, ok := g.statusOf(n)
		if why != "" {
			t.blockf(loc, "cites RFC %s, but %s", n, why)
		}
		return st, ok
	}
	for _, n := range names {
		path := filepath.Join(dir, n)
		data, err := limitedfile.Read(path, limitedfile.MaxPolicy)
		if err != nil {
			t.blockf(&Location{File: path, Line: 1}, "%s cannot be read: %v", path, err)
			continue
		}
		lines := strings.Split(string(data), "\n")
		banner, bannerLine := "", 1
		for i, l := range lines {
			if v1BannerRE().MatchString(l) {
				banner, bannerLine = l, i+1
				break
			}
		}
		at := &Location{File: path, Line: bannerLine}
		for _, m := range v1BannerStateRE().FindAllStringSubmatch(banner, -1) {
			if st, ok := known(m[1], at); ok && string(st) != m[2] {
				t.failf(at, "the banner says RFC %s is `%s`; it is `%s` (RFC 0174 §D.1)", m[1], m[2], st)
			}
		}
		if v1DraftRE().MatchString(banner) {
			for _, m := range v1GraduatesRE().FindAllStringSubmatch(banner, -1) {
				if st, ok := known(m[1], at); ok && st == rfc.StatusAccepted {
					t.failf(at, "the banner is Draft \"until RFC %s reaches Accepted\": it has (RFC 0174 §D.1)", m[1])
				}
			}
			var cited []string
			for _, num := range v1Cited(banner) {
				if _, _, ok := g.statusOf(num); ok && !slices.Contains(cited, num) {
					cited = append(cited, num)
				}
			}
			all := len(cited) > 0
			for _, num := range cited {
				if st, _, _ := g.statusOf(num); st != rfc.StatusAccepted {
					all = false
				}
			}
			if all {
				if !strings.Contains(banner, "`Accepted`") {
					t.failf(at, "the banner is `Status: Draft` citing RFC %s, all `Accepted`, without saying so: write \"RFC NNNN `Accepted`; spec status Draft pending <predicate>\" (RFC 0174 §D.1)", strings.Join(cited, ", "))
				}
				if !v1PredicateRE().MatchString(banner) {
					t.failf(at, "the banner is `Status: Draft` over Accepted RFC %s but names no graduation predicate (\"spec status Draft pending …\" or \"stays Draft until …\") (RFC 0174 §D.1)", strings.Join(cited, ", "))
				}
			}
		}
		for i, l := range lines {
			loc := &Location{File: path, Line: i + 1}
			for _, m := range v1MarkerRE().FindAllStringSubmatch(l, -1) {
				if st, ok := known(m[1], loc); ok && string(st) != m[2] {
					t.failf(loc, "says RFC %s is `%s`; it is `%s` (RFC 0174 §D.1)", m[1], m[2], st)
				}
			}
			if !strings.HasPrefix(l, "|") || strings.Contains(l, "**Closed") {
				continue
			}
			for _, m := range v1DeferralRE().FindAllStringSubmatch(l, -1) {
				if st, ok := known(m[1], loc); ok && st == rfc.StatusAccepted {
					t.failf(loc, "defers to RFC %s's Active → Accepted, which has happened (RFC 0174 §D.2)", m[1])
				}
			}
		}
	}
	return r.Criterion(t.result(fmt.Sprintf("%d page(s) of %s agree with the RFCs' Status", len(names), dir)))
}

// v1Cited lists the RFC numbers a banner cites: "RFC 0039, 0040 and 0042",
// with a range "RFC 0039–0041" (en dash or hyphen) expanded.
func v1Cited(banner string) []string {
	var out []string
	for _, m := range v1CitedRE().FindAllStringSubmatch(banner, -1) {
		out = append(out, m[1])
		prev, _ := strconv.Atoi(m[1])
		for _, x := range v1CitedNextRE().FindAllStringSubmatch(m[2], -1) {
			n, _ := strconv.Atoi(x[2])
			if x[1] == "–" || x[1] == "-" {
				for k := prev + 1; k < n; k++ {
					out = append(out, fmt.Sprintf("%04d", k))
				}
			}
			out = append(out, x[2])
			prev = n
		}
	}
	return out
}
