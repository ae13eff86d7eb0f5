package bundle

// Indent returns v as JSON.stringify(v, null, 2) writes it, followed by a newline:
// members in the order they are held, two spaces per level, ": " after names,
// empty arrays and objects as [] and {}. Scalars are written as in canonical JSON.
// This is the layout of bundle files on disk.
func Indent(v Value) ([]byte, error) {
	w := indentWriter{out: make([]byte, 0, indentSize(v, 0)+1)}
	if err := w.value(v, 0); err != nil {
		return nil, err
	}
	return append(w.out, '\n'), nil
}

type indentWriter struct{ out []byte }

// indentSize is about what Indent writes for v at depth (escapes and long numbers
// aside), so that the output is allocated once rather than grown by doubling.
func indentSize(v Value, depth int) int {
	switch v.Kind() {
	case Null, Bool:
		return 5
	case Number:
		return 24
	case String:
		return int(v.n) + 2
	case Array:
		items := v.Items()
		if len(items) == 0 {
			return 2
		}
		n := 2 + 2*depth + 1
		for _, item := range items {
			n += 2 + 2*(depth+1) + indentSize(item, depth+1)
		}
		return n
	case Object:
		members := v.Members()
		if len(members) == 0 {
			return 2
		}
		n := 2 + 2*depth + 1
		for _, m := range members {
			n += 2 + 2*(depth+1) + len(m.Name) + 4 + indentSize(m.Value, depth+1)
		}
		return n
	}
	return 0
}

func (w *indentWriter) newline(depth int) {
	w.out = append(w.out, '\n')
	for range depth {
		w.out = append(w.out, ' ', ' ')
	}
}

func (w *indentWriter) value(v Value, depth int) error {
	var err error
	switch v.kind {
	case Array:
		items := v.Items()
		if len(items) == 0 {
			w.out = append(w.out, '[', ']')
			return nil
		}
		w.out = append(w.out, '[')
		for i := range items {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.newline(depth + 1)
			if err = w.value(items[i], depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.out = append(w.out, ']')
	case Object:
		members := v.Members()
		if len(members) == 0 {
			w.out = append(w.out, '{', '}')
			return nil
		}
		w.out = append(w.out, '{')
		var seen map[string]struct{} // only for large objects: small ones are scanned
		if len(members) > 16 {
			seen = make(map[string]struct{}, len(members))
		}
		for i, m := range members {
			dup := false
			if seen != nil {
				_, dup = seen[m.Name]
				seen[m.Name] = struct{}{}
			} else {
				for _, earlier := range members[:i] {
					dup = dup || earlier.Name == m.Name
				}
			}
			if dup {
				return &WriteError{Kind: RefuseDuplicateName, Msg: "duplicate member name " + m.Name}
			}
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.newline(depth + 1)
			if w.out, err = AppendString(w.out, m.Name); err != nil {
				return err
			}
			w.out = append(w.out, ':', ' ')
			if err = w.value(m.Value, depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.out = append(w.out, '}')
	default:
		w.out, err = AppendCanonical(w.out, v)
	}
	return err
}
