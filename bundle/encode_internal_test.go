package bundle

import (
	"math/rand"
	"slices"
	"testing"
)

// writtenAs, which compares a stored row with the typed one where it stands,
// agrees with building the typed row's members and comparing them (identical),
// on rows with every combination of optional members and stored rows that are
// the row itself, another row, or the row changed in one place.
func TestRowWrittenAs(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	pick := func(ss ...string) string { return ss[r.Intn(len(ss))] }
	randomRow := func() Row {
		row := Row{ID: pick("a", "b", "openwop.x"), Scenario: pick("s", "t"), Result: pick(ExecutedPass, Skipped)}
		if r.Intn(2) == 0 {
			n := int64(r.Intn(3) - 1)
			row.Assertions = &n
		}
		if r.Intn(2) == 0 {
			d := pick("", "why", "because")
			row.Detail = &d
		}
		switch r.Intn(3) {
		case 1:
			row.Evidence = &Evidence{}
		case 2:
			row.Evidence = &Evidence{Recovery: &Recovery{Class: pick("c", "d"), BoundMs: int64(r.Intn(2)), ObservedMs: 5}}
		}
		return row
	}
	changed := func(v Value) Value {
		m := slices.Clone(v.Members())
		i := r.Intn(len(m))
		switch r.Intn(6) {
		case 0:
			m = slices.Delete(m, i, i+1)
		case 1:
			m = append(m, Member{pick("x", "detail", "id"), StringValue("x")})
		case 2:
			j := r.Intn(len(m))
			m[i], m[j] = m[j], m[i]
		case 3:
			m[i].Value = StringValue(pick("a", "s", "why", "0"))
		case 4:
			m[i].Value = NumberValue(float64(r.Intn(3) - 1))
		case 5:
			m[i].Name = pick("id", "scenario", "result", "assertions", "detail", "evidence", "ID")
		}
		return ObjectValue(m...)
	}
	agree, differ := 0, 0
	for range 200000 {
		row := randomRow()
		var v Value
		switch r.Intn(4) {
		case 0:
			v = row.Value()
		case 1:
			other := randomRow()
			v = other.Value()
		case 2:
			v = changed(row.Value())
		case 3:
			v = pick2(r, NullValue(), StringValue("row"), ArrayValue(row.Value()), ObjectValue())
		}
		want := identicalMembers(row.appendMembers(nil), v)
		if got := row.writtenAs(v); got != want {
			text, _ := Canonical(v)
			rowText, _ := Canonical(row.Value())
			t.Fatalf("row %s, stored %s: writtenAs %v, identical %v", rowText, text, got, want)
		}
		if want {
			agree++
		} else {
			differ++
		}
	}
	if agree < 1000 || differ < 1000 {
		t.Fatalf("too few cases of each: %d identical, %d not", agree, differ)
	}
}

// The same for a detail.nonPass item.
func TestNonPassWrittenAs(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	pick := func(ss ...string) string { return ss[r.Intn(len(ss))] }
	for range 100000 {
		np := NonPass{ID: pick("a", "b"), Result: pick("a", Skipped), Reason: pick("", "a", "why")}
		other := NonPass{ID: pick("a", "b"), Result: pick("a", Skipped), Reason: pick("", "a", "why")}
		m := other.appendMembers(nil, nil)
		switch r.Intn(4) {
		case 1:
			i, j := r.Intn(3), r.Intn(3)
			m[i], m[j] = m[j], m[i]
		case 2:
			m = m[:r.Intn(3)]
		case 3:
			m[r.Intn(3)].Value = NumberValue(1)
		}
		v := ObjectValue(m...)
		if got, want := np.writtenAs(v), identicalMembers(np.appendMembers(nil, nil), v); got != want {
			text, _ := Canonical(v)
			t.Fatalf("%+v, stored %s: writtenAs %v, identical %v", np, text, got, want)
		}
	}
}

func pick2(r *rand.Rand, vs ...Value) Value { return vs[r.Intn(len(vs))] }
