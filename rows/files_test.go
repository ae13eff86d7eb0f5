package rows_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certcut/certcut/rows"
)

func TestReadSources(t *testing.T) {
	dir := t.TempDir()
	native := filepath.Join(dir, "rows.jsonl")
	row := `{"id":"openwop.scenario.v2-era-key","scenario":"v2-era-key.test.ts","result":"executed-pass","assertions":3}` + "\n"
	if err := os.WriteFile(native, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := rows.Read(rows.Sources{Native: []string{native}}, rows.Options{})
	if err != nil || len(got) != 1 || got[0].ID != "openwop.scenario.v2-era-key" {
		t.Fatalf("Read = %v, %v", got, err)
	}
	// "-" reads Stdin, and errors name it.
	got, err = rows.Read(rows.Sources{Native: []string{"-"}, Stdin: strings.NewReader(row)}, rows.Options{})
	if err != nil || len(got) != 1 {
		t.Fatalf("Read(-) = %v, %v", got, err)
	}
	_, err = rows.Read(rows.Sources{Native: []string{"-"}, Stdin: strings.NewReader("{not json\n")}, rows.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "standard input:1: ") {
		t.Errorf("a bad row on standard input: %v", err)
	}
	// The same id from two inputs is an error naming both.
	if _, err = rows.Read(rows.Sources{Native: []string{native, native}}, rows.Options{}); err == nil || !strings.Contains(err.Error(), "recorded twice") {
		t.Errorf("a duplicate id: %v", err)
	}
	var fe *rows.FileError
	_, err = rows.Read(rows.Sources{Vitest: []string{filepath.Join(dir, "absent.json")}}, rows.Options{})
	if !errors.As(err, &fe) || fe.Kind != rows.KindVitest || !strings.HasSuffix(err.Error(), "absent.json: no such file") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err = rows.Read(rows.Sources{}, rows.Options{}); !errors.Is(err, rows.ErrNoRows) {
		t.Errorf("no sources: %v", err)
	}
	if _, err = rows.Read(rows.Sources{LedgerReports: []string{native}}, rows.Options{}); !errors.Is(err, rows.ErrReportWithoutLedger) {
		t.Errorf("a ledger report alone: %v", err)
	}
}
