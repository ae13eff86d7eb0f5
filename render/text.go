package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/certcut/certcut/bundle"
	"github.com/certcut/certcut/verify"
)

// TextOptions shape the text summary.
type TextOptions struct {
	// Color adds ANSI colours (for a terminal); without it the text is plain and
	// every mark is still told apart by its glyph.
	Color bool
	// BarWidth is the width of the totals bar in cells (default 50).
	BarWidth int
}

// Mark is how a result is drawn: its glyph in the text bar, its ANSI colour and
// its CSS class in the HTML report.
type Mark struct {
	Result string
	Glyph  string
	ANSI   string
	Class  string
	Label  string
	Abbrev string
}

// Marks lists the five results in the order bars stack them.
var Marks = []Mark{
	{bundle.ExecutedPass, "█", "32", "pass", "executed-pass", "P"},
	{bundle.ExecutedFail, "▓", "31", "fail", "executed-fail", "F"},
	{bundle.Blocked, "▒", "35", "blocked", "blocked", "B"},
	{bundle.Skipped, "░", "33", "skipped", "skipped", "S"},
	{bundle.Inapplicable, "·", "90", "inapplicable", "inapplicable", "I"},
}

// MarkOf returns the mark of a result; an unknown result gets "?".
func MarkOf(result string) Mark {
	for _, m := range Marks {
		if m.Result == result {
			return m
		}
	}
	return Mark{Result: result, Glyph: "?", ANSI: "31", Class: "unknown", Label: result, Abbrev: "?"}
}

// Segment is one result's share of a bar.
type Segment struct {
	Mark  Mark
	Count int
	Cells int
}

// Bar divides width cells among the five totals in proportion (largest remainder),
// giving every non-zero count at least one cell so that no result disappears. The
// segments come in Marks order; zero counts get zero cells.
func Bar(t bundle.Totals, width int) []Segment {
	segs := make([]Segment, len(Marks))
	total := 0
	for i, m := range Marks {
		segs[i] = Segment{Mark: m, Count: t.Get(m.Result)}
		total += segs[i].Count
	}
	if total == 0 || width <= 0 {
		return segs
	}
	nonZero := 0
	for _, s := range segs {
		if s.Count > 0 {
			nonZero++
		}
	}
	width = max(width, nonZero)
	used := 0
	rem := make([]int, len(segs))
	for i := range segs {
		exact := segs[i].Count * width
		segs[i].Cells = exact / total
		rem[i] = exact % total
		used += segs[i].Cells
	}
	for ; used < width; used++ { // hand out the rest by largest remainder
		best := -1
		for i := range segs {
			if segs[i].Count > 0 && (best < 0 || rem[i] > rem[best]) {
				best = i
			}
		}
		segs[best].Cells++
		rem[best] = -1
	}
	for i := range segs { // a non-zero count is never invisible
		if segs[i].Count > 0 && segs[i].Cells == 0 {
			big := 0
			for j := range segs {
				if segs[j].Cells > segs[big].Cells {
					big = j
				}
			}
			segs[big].Cells--
			segs[i].Cells = 1
		}
	}
	return segs
}

// painter colours text for a terminal, and marks unsigned values.
type painter struct {
	color bool
	// marked records that an unsigned mark was written (so the legend is due).
	marked bool
}

// UnsignedMark follows, in text output, a value that nothing binds
// (bundle.IsUnsigned): the minter's claim.
const UnsignedMark = "(unsigned)"

// UnsignedLegend explains UnsignedMark to a reader.
const UnsignedLegend = UnsignedMark + " marks the minter's claims: outside the signature and not re-derived, so anyone can edit them without breaking a check"

// unsigned returns " (unsigned)" when every member named is unsigned, " (unsigned:
// a, b)" when only some are, and "" when none is. bundle.Bindings decides.
func (p *painter) unsigned(members ...string) string {
	un := bundle.UnsignedOf(members...)
	if len(un) == 0 {
		return ""
	}
	p.marked = true
	if len(un) == len(members) {
		return " " + p.paint("33", UnsignedMark)
	}
	return " " + p.paint("33", "(unsigned: "+strings.Join(un, ", ")+")")
}

// parts joins the parts of a line, each Inline, with the unsigned mark after a
// part taken from an unsigned member.
func (p *painter) parts(ps []Part) string {
	var b strings.Builder
	for _, x := range ps {
		b.WriteString(Inline(x.Text))
		if x.Member != "" {
			b.WriteString(p.unsigned(x.Member))
		}
	}
	return b.String()
}

func (p *painter) paint(code, s string) string {
	if !p.color || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p *painter) bold(s string) string { return p.paint("1", s) }

// WriteText writes the reviewer's summary of one bundle.
func WriteText(w io.Writer, r *Review, opts TextOptions) error {
	if opts.BarWidth <= 0 {
		opts.BarWidth = 50
	}
	p := &painter{color: opts.Color}
	v, s := r.Verdict, r.Verdict.Summary
	var b strings.Builder
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "  %-12s%s\n", label, fmt.Sprintf(format, args...))
	}
	more := func(format string, args ...any) {
		fmt.Fprintf(&b, "  %-12s%s\n", "", fmt.Sprintf(format, args...))
	}

	title := Inline(orUnnamed(s.Host))
	if s.HostVersion != "" {
		title += " " + Inline(s.HostVersion)
	}
	if s.Vendor != "" {
		title += " · " + Inline(s.Vendor)
	}
	b.WriteString(p.bold(title) + p.unsigned("host.name", "host.version", "host.vendor") + "\n")
	line("verdict", "%s", p.paint(outcomeColor(v.Outcome), string(v.Outcome))+" — "+VerdictMeaning(v))
	line("file", "%s", Inline(r.File))
	line("build", "%s %s%s", Inline(orDash(s.Build.Kind)), Inline(orDash(s.Build.ID)), p.unsigned("host.build"))
	line("suite", "%s %s%s · target major %d%s · generated %s%s",
		Inline(orDash(r.SuiteName)), Inline(orDash(s.Suite)), p.unsigned("suite.version"),
		s.TargetMajor, p.unsigned("suite.targetMajor"),
		Inline(orDash(s.GeneratedAt)), p.unsigned("generatedAt"))
	line("discovery", "%s%s%s", Inline(orDash(s.DiscoveryURL)), p.unsigned("discovery.url"), documentNote(s))
	switch {
	case r.Tier != nil:
		tier := Inline(r.Tier.String())
		if r.Tier.Listed {
			tier = p.bold(tier)
		} else {
			tier = p.paint("33", tier)
		}
		line("origin", "%s%s · %s", Inline(r.Tier.Origin), p.unsigned("discovery.url"), tier)
	case r.TierError != "":
		line("origin", "%s", p.paint("33", "no origin: "+Inline(r.TierError)))
	}
	line("key", "%s", p.parts(KeyParts(v)))
	line("signed at", "%s", Inline(TimeLine(v.SigningTime)))
	if vt := v.VerifierSigningTime; vt != nil {
		more("verifier signature: %s", Inline(TimeLine(*vt)))
	}

	t := s.Totals
	line("totals", "%d rows · %d assertions", s.Rows, s.AssertionCount)
	var bar, legend strings.Builder
	for _, seg := range Bar(t, opts.BarWidth) {
		bar.WriteString(p.paint(seg.Mark.ANSI, strings.Repeat(seg.Mark.Glyph, seg.Cells)))
		if legend.Len() > 0 {
			legend.WriteString("  ")
		}
		legend.WriteString(p.paint(seg.Mark.ANSI, seg.Mark.Glyph) + " " + seg.Mark.Label + " " + fmt.Sprint(seg.Count))
	}
	if bar.Len() == 0 {
		more("(no rows)")
	} else {
		more("%s", bar.String())
	}
	more("%s", legend.String())

	if len(r.Profiles) == 0 {
		line("profiles", "none claimed")
	}
	idWidth := 0
	for _, pr := range r.Profiles {
		idWidth = max(idWidth, len(pr.ID))
	}
	for i, pr := range r.Profiles {
		label := ""
		if i == 0 {
			label = "profiles"
		}
		mark, state := p.paint("32", "✓"), "certified"
		switch {
		case pr.Claimed && !pr.Certified:
			mark, state = p.paint("31", "✗"), Inline(Withdrawn(pr))
		case !pr.Claimed:
			mark, state = p.paint("90", "–"), "claimed, not certified by the bundle"
		}
		witnesses := "witnesses"
		if pr.WitnessCount == 1 {
			witnesses = "witness"
		}
		fmt.Fprintf(&b, "  %-12s%s %-*s  %s · %d %s%s · %s\n", label, mark, idWidth, Inline(pr.ID), Inline(pr.EvidenceTier), pr.WitnessCount, witnesses,
			p.unsigned("claimedProfiles[].evidenceTier", "claimedProfiles[].witnessCount"), state)
	}
	if len(r.Relaxations) == 0 {
		line("relaxations", "none declared")
	}
	for i, rl := range r.Relaxations {
		label := ""
		if i == 0 {
			label = "relaxations"
		}
		fmt.Fprintf(&b, "  %-12s%s (%s): %s\n", label, Inline(rl.Obligation), Inline(rl.Durability), Inline(rl.Reason))
	}
	line("rung", "%s", p.parts(RungParts(r.Rung)))
	if len(v.OptedOut) > 0 {
		line("opted out", "%s", Inline(strings.Join(v.OptedOut, ", ")))
	}
	for _, n := range v.Notes {
		line("note", "%s", Inline(n))
	}
	if p.marked {
		line("unsigned", "%s", UnsignedLegend)
	}

	switch v.Outcome {
	case verify.Rejected:
		fmt.Fprintf(&b, "\n%s\n", p.paint(outcomeColor(v.Outcome), VerdictLine(v)))
		for _, rj := range v.Rejections {
			fmt.Fprintf(&b, "  %s\n", RejectionLine(rj))
		}
	case verify.Coherent:
		fmt.Fprintf(&b, "\n%s\n", p.paint(outcomeColor(v.Outcome), VerdictLine(v)))
		for _, u := range v.Unverified {
			fmt.Fprintf(&b, "  · %s\n", Inline(u))
		}
	}

	for _, g := range r.NonPass {
		m := MarkOf(g.Result)
		fmt.Fprintf(&b, "\n%s\n", p.paint(m.ANSI, fmt.Sprintf("%s %s (%d)", m.Glyph, Inline(g.Result), len(g.Rows))))
		for _, row := range g.Rows {
			fmt.Fprintf(&b, "  %s  %s\n", Inline(row.ID), p.paint("90", Inline(row.Scenario)))
			if TrimReason(row.Reason) == "" {
				if g.Result != bundle.ExecutedPass { // a pass needs no reason
					fmt.Fprintf(&b, "      %s\n", p.paint("31", "(no reason given)"))
				}
				continue
			}
			for _, l := range Lines(row.Reason) {
				fmt.Fprintf(&b, "      %s\n", l)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Withdrawn says why a profile the bundle marks certified is not: "withdrawn by
// relaxed-profile-certified", or "withdrawn by a bundle-wide rejection".
func Withdrawn(p Profile) string {
	why := make([]string, len(p.WithdrawnBy))
	for i, k := range p.WithdrawnBy {
		why[i] = k
		if k == "bundle-wide" {
			why[i] = "a bundle-wide rejection"
		}
	}
	return "withdrawn by " + strings.Join(why, ", ")
}

// VerdictMeaning is the short account of an outcome.
func VerdictMeaning(v *verify.Verdict) string {
	switch v.Outcome {
	case verify.Verified:
		return "zero rejections, host signature checked, certified list re-derived"
	case verify.Coherent:
		return fmt.Sprintf("zero rejections, but not independently verified (%d reason(s))", len(v.Unverified))
	case verify.Rejected:
		return fmt.Sprintf("%d problem(s)", v.ProblemCount())
	}
	return string(v.Outcome)
}

// A Part is a piece of a line: text certcut wrote (Member ""), or a value taken
// from the bundle member Member (a bundle.Bindings path). Renderers escape,
// isolate and mark each part by where it came from.
type Part struct {
	Text   string
	Member string
}

// JoinParts is the plain text of a line's parts.
func JoinParts(ps []Part) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text)
	}
	return b.String()
}

// KeyLine says which key the host signature was checked under and where it came
// from, or, without a trusted key, what the bundle's own document says.
func KeyLine(v *verify.Verdict) string { return JoinParts(KeyParts(v)) }

// KeyParts is KeyLine in parts: the key id is the bundle's signature.keyId. Without
// a trusted key it says why none was chosen (Verdict.NoTrustedKey) or that the
// keyring revokes it, never a generic "give --host-key" when one was given.
func KeyParts(v *verify.Verdict) []Part {
	signedBy := Part{Text: "-"}
	if id := v.Summary.SignatureKeyID; id != "" {
		signedBy = Part{Text: id, Member: "signature.keyId"}
	}
	if k := v.HostKey; k != nil {
		where := k.Source
		if k.Origin != "" {
			where += " " + k.Origin
		}
		state := "signature verifies"
		if !v.SignatureVerified {
			state = "signature does NOT verify"
		}
		text := fmt.Sprintf(" · %s from %s · %s", k.Fingerprint, where, state)
		if k.Match == verify.MatchLoneKey {
			text += " (the only --host-key given)"
		}
		return []Part{signedBy, {Text: text}}
	}
	trusted := "none trusted: " + orDash(v.NoTrustedKey)
	if r := v.RevokedKey; r != nil {
		trusted = fmt.Sprintf("%s revoked in keyring %s since %s, not used", r.Fingerprint, r.Keyring, r.RevokedAt)
	}
	return []Part{signedBy, {Text: " · " + trusted + " · self-published, not trusted: " + orDash(string(v.SelfPublished.Outcome))}}
}

// RungParts words the durability rung claim and what the rows support, in parts:
// the claimed rung is the bundle's
// durability.rung.
func RungParts(r Rung) []Part {
	claimed := Part{Text: r.Claimed, Member: "durability.rung"}
	switch {
	case r.Claimed != "" && r.Rejected:
		return []Part{claimed, {Text: " claimed · NOT derivable from the signed rows (rung-not-derivable)"}}
	case r.Claimed != "":
		return []Part{claimed, {Text: " · re-derived from the signed rows"}}
	case r.Derivable != "":
		return []Part{{Text: "none claimed (the signed rows would support " + r.Derivable + ")"}}
	}
	return []Part{{Text: "none claimed"}}
}

// TrimReason trims a reason as the verifier's reason-missing rule does.
func TrimReason(s string) string { return verify.TrimJS(s) }

func documentNote(s verify.Summary) string {
	if !s.HasDiscoveryDoc {
		return " (no document embedded)"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orUnnamed(s string) string {
	if s == "" {
		return "(unnamed host)"
	}
	return s
}
