package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/gate"
	"github.com/certcut/certcut/gate/rfc"
)

// withCreated adds a Created row to a flipRFC text, as every real RFC has.
func withCreated(text []byte) []byte {
	return []byte(strings.Replace(string(text), "| **Updated** |", "| **Created** | 2026-09-01 |\n| **Updated** |", 1))
}

// A change that moves an RFC below 0167 — git mv with the header still naming
// its number, the header edited too, or the number edited in place — and sets
// it Accepted is BLOCKED with both numbers named, never "numbered below 0167,
// not gated".
func TestFlipsRenumberedRFC(t *testing.T) {
	for name, tc := range map[string]struct {
		head   map[string][]byte
		rename bool // git mv 0236 → 0136 before writing head
		file   string
		want   []string
	}{
		"renamed below 0167, header unchanged": {
			rename: true, file: "0136-host-events.md",
			head: map[string][]byte{"RFCS/0136-host-events.md": withCreated(flipRFC("0236", statusRow("Accepted")))},
			want: []string{"file name says RFC 0136", "header states RFC 0236"},
		},
		"renamed below 0167, header edited": {
			rename: true, file: "0136-host-events.md",
			head: map[string][]byte{"RFCS/0136-host-events.md": withCreated(flipRFC("0136", statusRow("Accepted")))},
			want: []string{"deletes RFC 0236", "as RFC 0136"},
		},
		"header renumbered in place": {
			file: "0236-host-events.md",
			head: map[string][]byte{"RFCS/0236-host-events.md": withCreated(flipRFC("0136", statusRow("Accepted")))},
			want: []string{"file name says RFC 0236", "header states RFC 0136"},
		},
		"renamed below 0167, header edited, no Created row": {
			rename: true, file: "0136-host-events.md",
			head: map[string][]byte{"RFCS/0136-host-events.md": flipRFC("0136", statusRow("Accepted"))},
			want: []string{"adds RFC 0136 already Accepted", "also deletes RFC 0236"},
		},
		"added Accepted below 0167": {
			file: "0136-new.md",
			head: map[string][]byte{"RFCS/0136-new.md": []byte(strings.Replace(string(flipRFC("0136", statusRow("Accepted"))), "a sample", "another sample", 1))},
			want: []string{"adds RFC 0136 already Accepted", "below 0167"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFlipsRepo(t, map[string][]byte{"0236-host-events.md": withCreated(flipRFC("0236", statusRow("Active")))})
			if tc.rename {
				f.git("mv", "RFCS/0236-host-events.md", "RFCS/0136-host-events.md")
			}
			f.commit(tc.head)
			rep := f.flips(t, f.opts)
			c, ok := criterion(rep.Changes, gate.CritFlipsNumber)
			if rep.Status != gate.Blocked || !ok || c.Status != gate.Blocked || c.Location == nil || filepath.Base(c.Location.File) != tc.file {
				t.Fatalf("status %s: %+v %+v", rep.Status, rep.Transitions, rep.Changes.Criteria)
			}
			for _, w := range tc.want {
				if !strings.Contains(c.Reason, w) {
					t.Errorf("reason %q does not say %q", c.Reason, w)
				}
			}
			if x := transitions(rep)[tc.file]; x.Gated || !strings.Contains(x.Why, "number cannot be decided") {
				t.Errorf("transition: %+v", x)
			}
			if len(rep.Reports) != 0 {
				t.Errorf("gated anyway: %d reports", len(rep.Reports))
			}
		})
	}
}

// A Status that reads as "not Accepted" only because it is respelled —
// lower case, upper case, a Cyrillic А, a date inside the code span, a decoy
// row in an HTML comment above the real one — is unreadable: BLOCKED, never
// "only a flip to Accepted is gated".
func TestFlipsStatusRespelled(t *testing.T) {
	for name, row := range map[string]string{
		"lower case":          "| **Status** | `accepted` |",
		"upper case":          "| **Status** | ACCEPTED |",
		"Cyrillic A":          "| **Status** | `\u0410ccepted` |",
		"date in the span":    "| **Status** | `Accepted (2026-11-01)` |",
		"decoy in a comment":  "<!--\n| **Status** | `Active` |\n-->\n" + statusRow("Accepted"),
		"one-line comment":    "<!-- | **Status** | `Active` | -->\n" + statusRow("Accepted"),
		"unknown state":       "| **Status** | `Final` |",
		"second row, no bold": statusRow("Accepted") + "\n| Status | Draft |",
	} {
		t.Run(name, func(t *testing.T) {
			f := newFlipsRepo(t, map[string][]byte{"0901-sample.md": flipRFC("0901", statusRow("Draft"))})
			f.commit(map[string][]byte{"RFCS/0901-sample.md": flipRFC("0901", row)})
			rep := f.flips(t, f.opts)
			c, ok := criterion(rep.Changes, gate.CritStatusUnreadable)
			if rep.Status != gate.Blocked || !ok || c.Status != gate.Blocked || !strings.Contains(c.Reason, "| **Status** | `Accepted` |") {
				t.Fatalf("status %s: %+v %+v", rep.Status, rep.Transitions, rep.Changes.Criteria)
			}
		})
	}
}

// gate audit and gate accepted BLOCK an RFC whose number or Status cannot be
// read; the number is the header's, so a file renamed below 0167 is not
// skipped as grandfathered.
func TestAuditAndAcceptedHeaderProblems(t *testing.T) {
	dir, opts := fixture(t)
	rfcs := filepath.Join(dir, "RFCS")
	os.MkdirAll(rfcs, 0o755)
	write := func(name string, text []byte) {
		if err := os.WriteFile(filepath.Join(rfcs, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0136-host-events.md", flipRFC("0236", statusRow("Accepted")))
	write("0237-lower.md", flipRFC("0237", "| **Status** | `accepted` |"))
	write("0238-decoy.md", flipRFC("0238", "<!-- | **Status** | `Active` | -->\n"+statusRow("Accepted")))
	write("0148-old.md", flipRFC("0148", statusRow("Accepted")))
	write("0150-old-odd.md", flipRFC("0150", "| **Status** | `accepted` |"))
	repo, err := gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := repo.Audit(context.Background(), rfcs)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]gate.AuditRow{}
	for _, r := range out.Rows {
		rows[filepath.Base(r.File)] = r
	}
	for file, crit := range map[string]string{"0136-host-events.md": gate.CritRFCNumber, "0237-lower.md": gate.CritRFCStatus, "0238-decoy.md": gate.CritRFCStatus} {
		r, ok := rows[file]
		if !ok || r.Status != gate.Blocked {
			t.Errorf("%s: not BLOCKED: %+v", file, r)
			continue
		}
		if c, ok := criterion(r.Report, crit); !ok || c.Status != gate.Blocked {
			t.Errorf("%s: no BLOCKED %s: %+v", file, crit, r.Report.Criteria)
		}
	}
	if r, ok := rows["0136-host-events.md"]; ok && r.Number != "0236" {
		t.Errorf("number %q, want the header's 0236", r.Number)
	}
	if out.Status != gate.Blocked && out.Status != gate.Fail {
		t.Errorf("audit %s", out.Status)
	}
	notGated := map[string]bool{}
	for _, n := range out.NotGated {
		notGated[filepath.Base(n.File)] = true
	}
	if !notGated["0148-old.md"] || !notGated["0150-old-odd.md"] || len(out.Rows) != 3 {
		t.Errorf("not gated %v, %d rows", notGated, len(out.Rows))
	}

	// gate accepted: the same RFC, read as gate accepted --rfc reads it.
	x, err := rfc.Open(filepath.Join(rfcs, "0237-lower.md"))
	if err != nil {
		t.Fatal(err)
	}
	rep := repo.Accepted(context.Background(), gate.AcceptedRequest{RFC: x})
	if c, ok := criterion(rep, gate.CritRFCStatus); rep.Status != gate.Blocked || !ok || c.Location == nil || c.Location.Line != 6 {
		t.Errorf("accepted: %s %+v", rep.Status, rep.Criteria)
	}
}

// A Falsifiability verdict is read by its class (rfc.ParseVerdict), not by
// substring: "witnessable — not gated" and "ungated" are not gated, so a
// reasoned skip does not witness the id; negative-existence is, so it does.
func TestAcceptedVerdictClasses(t *testing.T) {
	dir, opts := fixture(t)
	repo, err := gate.Open(t.Context(), gate.Config{Root: dir, Loader: &gate.Loader{Options: opts}})
	if err != nil {
		t.Fatal(err)
	}
	for verdict, want := range map[string]gate.Status{
		"witnessable — gated (no host today)": gate.Pass,
		"negative-existence":                  gate.Pass,
		"witnessable — not gated":             gate.Fail,
		"ungated":                             gate.Fail,
		"witnessable-gated (no host today)":   gate.Fail,
	} {
		text := "# RFC 0911: verdicts\n\n| **RFC** | 0911 |\n| **Status** | `Accepted` |\n\n## Proposal\n\n### Falsifiability\n\n| Requirement | Observable | Who | Verdict |\n| --- | --- | --- | --- |\n" +
			"| §B — `0911.gated` | x | suite | " + verdict + " |\n"
		x := rfc.Parse(filepath.Join(dir, "RFCS", "0911-verdicts.md"), text)
		rep := repo.Accepted(context.Background(), gate.AcceptedRequest{RFC: x})
		c, ok := criterion(rep, gate.CritRequirement)
		if !ok || c.Status != want {
			t.Errorf("%q: requirement %s, want %s: %s", verdict, c.Status, want, c.Reason)
		}
	}
}
