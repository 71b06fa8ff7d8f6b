package csv

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// refParse is a plain byte-at-a-time reading of the dialect the decoder
// implements (see scan.go), used as the oracle in FuzzCSVDecode. It returns
// the non-blank rows and whether the input ends inside a quoted field (that
// last row is not in rows).
func refParse(data []byte, delim, quote byte) (rows [][]string, unterminated bool) {
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	i := 0
	for i < len(data) {
		var row []string
		quotedAny := false
		for {
			var f []byte
			if i < len(data) && data[i] == quote {
				quotedAny = true
				i++
				closed := false
				for i < len(data) {
					if data[i] == quote {
						if i+1 < len(data) && data[i+1] == quote {
							f = append(f, quote)
							i += 2
							continue
						}
						i++
						closed = true
						break
					}
					f = append(f, data[i])
					i++
				}
				if !closed {
					return rows, true
				}
			}
			lit := len(f)
			for i < len(data) && data[i] != delim && data[i] != '\n' {
				f = append(f, data[i])
				i++
			}
			atEnd := i >= len(data) || data[i] == '\n'
			if atEnd && len(f) > lit && f[len(f)-1] == '\r' {
				f = f[:len(f)-1]
			}
			row = append(row, string(f))
			if i < len(data) && data[i] == delim {
				i++
				continue
			}
			i++ // the newline (or past the end)
			break
		}
		if len(row) == 1 && row[0] == "" && !quotedAny {
			continue
		}
		rows = append(rows, row)
	}
	return rows, false
}

func FuzzCSVDecode(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n",
		"\"x\ny\",\"q\"\"q\"\r\n,\n\n",
		"\"open\nrest",
		"5'10\",\"ab\"cd,\"\"\r\n\xEF\xBB\xBF",
		"\xEF\xBB\xBFa;b\n",
		"a,\"b\"\r",
	} {
		f.Add([]byte(s), uint8(3))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, knob uint8) {
		delim := byte(',')
		if knob&1 == 1 {
			delim = ';'
		}
		path := filepath.Join(dir, "fuzz.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, unterminated := refParse(data, delim, '"')
		defer setReadSize(1 + int(knob>>1)%64)()

		// Flexible: every row is a record with exactly the oracle's fields.
		res := readAllNoFatal(t, config(t, "path", path, "has_headers", false, "columns", []any{"c"},
			"flexible", true, "delimiter", string(delim), "batch_size", 1+int(knob%5)))
		if len(res.records) != len(want) {
			t.Fatalf("%d records, oracle has %d rows (%q)", len(res.records), len(want), want)
		}
		for i, rec := range res.records {
			if len(rec.Fields) != len(want[i]) {
				t.Fatalf("row %d: %d fields, oracle %d", i, len(rec.Fields), len(want[i]))
			}
			for j, fld := range rec.Fields {
				if fld.Value.AsString() != want[i][j] {
					t.Fatalf("row %d field %d: %q, oracle %q", i, j, fld.Value.AsString(), want[i][j])
				}
			}
		}
		wantFailed := 0
		if unterminated {
			wantFailed = 1
		}
		if len(res.failed) != wantFailed {
			t.Fatalf("%d failures, want %d: %v", len(res.failed), wantFailed, res.errors())
		}

		// Strict: records and failures together account for every row.
		strict := readAllNoFatal(t, config(t, "path", path, "has_headers", false, "columns", []any{"c1", "c2"},
			"delimiter", string(delim)))
		if got := len(strict.records) + len(strict.failed); got != len(want)+wantFailed {
			t.Fatalf("strict: %d records + %d failures, want %d rows", len(strict.records), len(strict.failed), len(want)+wantFailed)
		}
		for _, fe := range strict.failed {
			if !strings.HasPrefix(fe.Location, path+":") || fe.Err == nil {
				t.Fatalf("bad failure %+v", fe)
			}
		}
	})
}

func readAllNoFatal(t *testing.T, cfg connector.Config) result {
	t.Helper()
	s, err := openSource(t, cfg, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	var res result
	for {
		p, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return res
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		p.Materialize()
		res.records = append(res.records, p.Records...)
		res.failed = append(res.failed, p.Failed...)
	}
}

// naiveCloseQuote is closeQuote one byte at a time.
func naiveCloseQuote(b []byte, quote byte) (int, bool) {
	esc := false
	for i := 0; i < len(b); i++ {
		if b[i] == quote {
			if i+1 < len(b) && b[i+1] == quote {
				esc = true
				i++
				continue
			}
			return i, esc
		}
	}
	return -1, esc
}

func TestCloseQuote(t *testing.T) {
	for _, s := range []string{`abc"`, `a""b"`, `""""x"`, `0123456"`, `0123456""89"`, `01234567""`, `0123456"""`, `no close`, `""`, `"`, ``, `x"`, `0123456789abcde"`, strings.Repeat("x", 20) + `""` + strings.Repeat("y", 9) + `"z`} {
		want, wantEsc := naiveCloseQuote([]byte(s), '"')
		if got, esc := closeQuote([]byte(s), 0, '"'); got != want || esc != wantEsc {
			t.Errorf("closeQuote(%q) = %d,%v want %d,%v", s, got, esc, want, wantEsc)
		}
	}
}

func FuzzCloseQuote(f *testing.F) {
	f.Add([]byte(`0123456""89"`), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, off uint8) {
		i := int(off) % (len(b) + 1)
		want, wantEsc := naiveCloseQuote(b[i:], '"')
		if want >= 0 {
			want += i
		}
		if got, esc := closeQuote(b, i, '"'); got != want || esc != wantEsc {
			t.Fatalf("closeQuote(%q, %d) = %d,%v want %d,%v", b, i, got, esc, want, wantEsc)
		}
	})
}
