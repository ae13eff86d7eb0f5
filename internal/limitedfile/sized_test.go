package limitedfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// readSized reads a file whose size was taken before it was opened: exactly its
// bytes when the size holds, all of them when it grew (up to the limit), and a
// TooLargeError when it grew past the limit.
func TestReadSized(t *testing.T) {
	text := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name        string
		content     string
		size, limit int64
		tooLarge    bool
	}{
		{"size holds", text, 1000, 2000, false},
		{"grew", text, 10, 2000, false},
		{"shrank", text[:10], 1000, 2000, false},
		{"grew past the limit", text, 10, 500, true},
		{"empty", "", 0, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readSized(strings.NewReader(tc.content), "f", tc.limit, tc.size)
			var tl *TooLargeError
			if tc.tooLarge {
				if !errors.As(err, &tl) || tl.Limit != tc.limit {
					t.Fatalf("err %v, want a TooLargeError with limit %d", err, tc.limit)
				}
				return
			}
			if err != nil || !bytes.Equal(got, []byte(tc.content)) {
				t.Fatalf("%d bytes, %v; want %d bytes", len(got), err, len(tc.content))
			}
		})
	}
}
