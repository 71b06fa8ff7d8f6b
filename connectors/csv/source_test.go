package csv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestSourceParsing(t *testing.T) {
	tests := []struct {
		name    string
		content string
		opts    []any
		rows    []string
		errs    []string // relative to the file path placeholder P
	}{
		{
			name:    "basic",
			content: "id,name\n1,ann\n2,bob\n",
			rows:    []string{"id=1|name=ann", "id=2|name=bob"},
		},
		{
			name:    "no trailing newline",
			content: "id,name\n1,ann\n2,bob",
			rows:    []string{"id=1|name=ann", "id=2|name=bob"},
		},
		{
			name:    "quoted newline quote delimiter",
			content: "a,b,c\n\"x,y\",\"say \"\"hi\"\"\",\"line1\nline2\"\n",
			rows:    []string{"a=x,y|b=say \"hi\"|c=line1\nline2"},
		},
		{
			name:    "CRLF",
			content: "a,b\r\n1,2\r\n\"q\",\"r\"\r\n3,\r\n",
			rows:    []string{"a=1|b=2", "a=q|b=r", "a=3|b="},
		},
		{
			name:    "CR inside quotes is data",
			content: "a\n\"x\r\ny\"\n",
			rows:    []string{"a=x\r\ny"},
		},
		{
			name:    "BOM stripped",
			content: "\xEF\xBB\xBFid,v\n1,2\n",
			rows:    []string{"id=1|v=2"},
		},
		{
			name:    "empty file",
			content: "",
		},
		{
			name:    "header only",
			content: "a,b,c\n",
		},
		{
			name:    "blank lines skipped",
			content: "\na,b\n\n1,2\r\n\r\n3,4\n\n",
			rows:    []string{"a=1|b=2", "a=3|b=4"},
		},
		{
			name:    "empty quoted field is a row",
			content: "a\n\"\"\n",
			rows:    []string{"a="},
		},
		{
			name:    "lenient quotes like the original",
			content: "a,b\n5'10\",x\n\"ab\"cd,y\n",
			rows:    []string{"a=5'10\"|b=x", "a=abcd|b=y"},
		},
		{
			name:    "empty fields",
			content: "a,b,c\n,,\n",
			rows:    []string{"a=|b=|c="},
		},
		{
			name:    "ragged rows are errors",
			content: "a,b,c,d\n1,2,3,4\n1,2,3\n1,2,3,4,5\n5,6,7,8\n",
			rows:    []string{"a=1|b=2|c=3|d=4", "a=5|b=6|c=7|d=8"},
			errs:    []string{"P:3: csv: row has 3 fields, header has 4", "P:4: csv: row has 5 fields, header has 4"},
		},
		{
			name:    "line numbers after multi-line fields",
			content: "a,b\n\"x\ny\nz\",1\n2\n\"p\n\",3\n4,5,6\n",
			rows:    []string{"a=x\ny\nz|b=1", "a=p\n|b=3"},
			errs:    []string{"P:5: csv: row has 1 fields, header has 2", "P:8: csv: row has 3 fields, header has 2"},
		},
		{
			name:    "unterminated quote",
			content: "a,b\n1,2\n3,\"open\nmore\n",
			rows:    []string{"a=1|b=2"},
			errs:    []string{"P:3: csv: unterminated quoted field"},
		},
		{
			name:    "flexible",
			content: "a,b\n1\n1,2,3\n",
			opts:    []any{"flexible", true},
			rows:    []string{"a=1", "a=1|b=2|column_3=3"},
		},
		{
			name:    "no headers",
			content: "1,2\n3,4\n",
			opts:    []any{"has_headers", false},
			rows:    []string{"column_1=1|column_2=2", "column_1=3|column_2=4"},
		},
		{
			name:    "no headers ragged",
			content: "1,2\n3\n",
			opts:    []any{"has_headers", false},
			rows:    []string{"column_1=1|column_2=2"},
			errs:    []string{"P:2: csv: row has 1 fields, first row has 2"},
		},
		{
			name:    "no headers with columns",
			content: "1,2\n3,4\n",
			opts:    []any{"has_headers", false, "columns", []any{"x", "y"}},
			rows:    []string{"x=1|y=2", "x=3|y=4"},
		},
		{
			name:    "columns replace header",
			content: "a,b\n1,2\n",
			opts:    []any{"columns", []any{"x", "y"}},
			rows:    []string{"x=1|y=2"},
		},
		{
			name:    "columns replace a duplicated header",
			content: "a,a\n1,2\n",
			opts:    []any{"columns", []any{"x", "y"}},
			rows:    []string{"x=1|y=2"},
		},
		{
			name:    "semicolon delimiter, single quote",
			content: "a;b\n'x;y';'it''s'\n",
			opts:    []any{"delimiter", ";", "quote", "'"},
			rows:    []string{"a=x;y|b=it's"},
		},
		{
			name:    "tab delimiter as byte number",
			content: "a\tb\n1\t2\n",
			opts:    []any{"delimiter", 9},
			rows:    []string{"a=1|b=2"},
		},
		{
			name:    "quoted header",
			content: "\"a,1\",\"b\"\"\"\nx,y\n",
			rows:    []string{"a,1=x|b\"=y"},
		},
	}
	for _, tt := range tests {
		for _, small := range []bool{false, true} {
			name := tt.name
			if small {
				name += "/tiny reads"
			}
			t.Run(name, func(t *testing.T) {
				if small {
					defer setReadSize(3)()
				}
				path := writeFile(t, t.TempDir(), "in.csv", tt.content)
				res := readAll(t, config(t, append([]any{"path", path, "batch_size", 2}, tt.opts...)...), nil)
				equalStrings(t, "rows", res.rows(), tt.rows)
				var want []string
				for _, e := range tt.errs {
					want = append(want, strings.ReplaceAll(e, "P", path))
				}
				equalStrings(t, "errors", res.errors(), want)
				for _, f := range res.failed {
					if f.Stage != connector.StageSource || f.Component != "csv" || f.Raw == "" {
						t.Errorf("bad RecordError %+v", f)
					}
				}
			})
		}
	}
}

func setReadSize(n int) func() {
	old := readSize
	readSize = n
	return func() { readSize = old }
}

func TestSourceRawRow(t *testing.T) {
	path := writeFile(t, t.TempDir(), "in.csv", "a,b\n\"x\"\"y\",2,3\r\n")
	res := readAll(t, config(t, "path", path), nil)
	if len(res.failed) != 1 || res.failed[0].Raw != `"x""y",2,3` {
		t.Fatalf("failed = %+v", res.failed)
	}
}

func TestSourceBatchSize(t *testing.T) {
	var b strings.Builder
	b.WriteString("n\n")
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	path := writeFile(t, t.TempDir(), "in.csv", b.String())
	res := readAll(t, config(t, "path", path), nil)
	if len(res.records) != 2500 || res.pages != 3 {
		t.Fatalf("%d records in %d pages, want 2500 in 3", len(res.records), res.pages)
	}
	res = readAll(t, config(t, "path", path, "batch_size", 1000000), nil)
	if len(res.records) != 2500 || res.pages != 1 {
		t.Fatalf("%d records in %d pages, want 2500 in 1", len(res.records), res.pages)
	}
	for i, r := range res.records {
		if got := r.Fields[0].Value.AsString(); got != fmt.Sprint(i+1) {
			t.Fatalf("record %d = %s", i, got)
		}
		if cap(r.Fields) != len(r.Fields) {
			t.Fatalf("record %d: capacity not clipped", i)
		}
	}
}

func TestSourceGzipAndGlob(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b.csv.gz", "id\n3\n4\n")
	writeFile(t, dir, "a.csv", "id\n1\n2\n")
	writeFile(t, dir, "c.txt", "id\n99\n")
	res := readAll(t, config(t, "path", filepath.Join(dir, "*.csv*")), nil)
	equalStrings(t, "rows", res.rows(), []string{"id=1", "id=2", "id=3", "id=4"})

	// compression: gzip forces it without the suffix; none reads raw bytes.
	gz := writeFile(t, dir, "x.gz", "id\n7\n")
	if err := renameTo(gz, filepath.Join(dir, "plain.dat")); err != nil {
		t.Fatal(err)
	}
	res = readAll(t, config(t, "path", filepath.Join(dir, "plain.dat"), "compression", "gzip"), nil)
	equalStrings(t, "rows", res.rows(), []string{"id=7"})
	_, err := openSource(t, config(t, "path", filepath.Join(dir, "a.csv"), "compression", "gzip"), nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "a.csv")) {
		t.Errorf("gzip on a plain file: %v", err)
	}
}

func TestSourceOpenErrors(t *testing.T) {
	dir := t.TempDir()
	dup := writeFile(t, dir, "dup.csv", "id,name,id\n1,2,3\n")
	tests := []struct {
		name string
		cfg  connector.Config
		want string
	}{
		{"missing file", config(t, "path", filepath.Join(dir, "nope.csv")), "csv: stat " + filepath.Join(dir, "nope.csv") + ": no such file or directory"},
		{"glob matches nothing", config(t, "path", filepath.Join(dir, "*.tsv")), `csv: no file matches "` + filepath.Join(dir, "*.tsv") + `"`},
		{"duplicate header", config(t, "path", dup), "pipeline.source.config: " + dup + ": the header repeats column \"id\" (columns 1 and 3); name the columns with `columns`"},
		{"columns count", config(t, "path", dup, "columns", []any{"a"}), "pipeline.source.config.columns: lists 1 names but the header of " + dup + " has 3 columns"},
		{"replication key not a column", config(t, "path", dup, "columns", []any{"a", "b", "c"}, "replication_key", "a"), ""},
		{"replication key missing", config(t, "path", writeFile(t, dir, "ok.csv", "a,b\n"), "replication_key", "z"), `pipeline.source.config.replication_key: "z" is not a column of ` + filepath.Join(dir, "ok.csv") + " (columns: a, b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := openSource(t, tt.cfg, nil)
			if s != nil {
				defer s.Close()
			}
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant %s", err, tt.want)
			}
		})
	}
	var ce *connector.ConfigError
	_, err := openSource(t, config(t, "path", dup), nil)
	if !errors.As(err, &ce) {
		t.Errorf("duplicate header: %T is not a *ConfigError", err)
	}
}

func TestSourceConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  connector.Config
		want string
	}{
		{"path required", config(t), "pipeline.source.config.path: required key is missing"},
		{"batch too big", config(t, "path", "x", "batch_size", 2000000), "pipeline.source.config.batch_size: must be between 0 and 1000000, got 2000000"},
		{"same delimiter and quote", config(t, "path", "x", "delimiter", "\"", "quote", "\""), "pipeline.source.config.quote: must differ from delimiter"},
		{"bad compression", config(t, "path", "x", "compression", "zip"), `pipeline.source.config.compression: must be one of auto, none, gzip, got "zip"`},
		{"duplicate columns", config(t, "path", "x", "columns", []any{"a", "a"}), `pipeline.source.config.columns[1]: duplicate column "a" (also columns[0])`},
		{"unknown key", config(t, "path", "x", "delimeter", ","), `pipeline.source.config.delimeter: unknown key "delimeter"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newSource(tt.cfg)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestSourceReplicationKey(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "in.csv", "id,v\n8,a\n9,b\n10,c\n11,d\n2,e\n100,f\n")
	cfg := config(t, "path", path, "replication_key", "id", "batch_size", 2)

	res := readAll(t, cfg, nil)
	if len(res.records) != 6 {
		t.Fatalf("first run: %d records", len(res.records))
	}
	var got []string
	for _, b := range res.bookmarks {
		if b == nil {
			got = append(got, "nil")
		} else {
			got = append(got, b.AsString())
		}
	}
	// Pages: (8,9) (10,11) (2,100): the highest key of each, numerically.
	equalStrings(t, "page bookmarks", got, []string{"9", "11", "100"})

	s, _ := openSource(t, cfg, nil)
	s.Close()
	merged := connector.Null()
	for _, b := range res.bookmarks {
		merged = s.MergeBookmark(merged, *b)
	}
	if merged.AsString() != "100" {
		t.Errorf("merged bookmark %v, want 100", merged)
	}

	start := connector.String("9")
	res = readAll(t, cfg, &start)
	equalStrings(t, "rows after 9", res.rows(), []string{"id=10|v=c", "id=11|v=d", "id=100|v=f"})
	if res.bookmarks[0] != nil {
		t.Errorf("page without newer rows has bookmark %v", res.bookmarks[0])
	}

	start = connector.String("100")
	res = readAll(t, cfg, &start)
	if len(res.records) != 0 {
		t.Errorf("nothing is newer than 100, got %q", res.rows())
	}
}

func TestSourceReplicationKeyMissingInRow(t *testing.T) {
	path := writeFile(t, t.TempDir(), "in.csv", "a,b\n1,2\n3\n")
	res := readAll(t, config(t, "path", path, "replication_key", "b", "flexible", true), nil)
	equalStrings(t, "rows", res.rows(), []string{"a=1|b=2"})
	equalStrings(t, "errors", res.errors(), []string{path + `:3: csv: row has no value for replication_key "b"`})
}

func renameTo(from, to string) error { return os.Rename(from, to) }

// TestSourceRowIDs: a failed row carries its 1-based position among the
// data rows of the whole input (header and blank lines not counted, files
// of a glob counted one after the other), which the DLQ reports.
func TestSourceRowIDs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "1.csv", "a,b\n\n1,2\n\"x\ny\",2\n3\n\r\n4,5\n")
	writeFile(t, dir, "2.csv", "a,b\n6\n7,8\n9,\"open\n")
	for _, small := range []bool{false, true} {
		if small {
			defer setReadSize(2)()
		}
		res := readAll(t, config(t, "path", filepath.Join(dir, "*.csv"), "batch_size", 2), nil)
		var got []string
		for _, f := range res.failed {
			got = append(got, fmt.Sprintf("%s row %d", f.Location, f.RowID))
		}
		equalStrings(t, "failures", got, []string{
			filepath.Join(dir, "1.csv") + ":6 row 3",
			filepath.Join(dir, "2.csv") + ":2 row 5",
			filepath.Join(dir, "2.csv") + ":4 row 7",
		})
		if len(res.records) != 4 {
			t.Errorf("%d records", len(res.records))
		}
	}
}

// TestSourceLocate: Page.Locate names each decoded record's file:line and
// its position among the data rows (failed rows counted too).
func TestSourceLocate(t *testing.T) {
	path := writeFile(t, t.TempDir(), "in.csv", "a,b\n1,2\n\"x\ny\",3\n4\n\n5,6\n")
	s, err := openSource(t, config(t, "path", path, "batch_size", 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for {
		p, err := s.Next(context.Background())
		if err != nil {
			break
		}
		p.Materialize()
		for i := range p.Records {
			loc, row := p.Locate(i)
			got = append(got, fmt.Sprintf("%s#%d", strings.TrimPrefix(loc, path), row))
		}
	}
	equalStrings(t, "locations", got, []string{":2#1", ":3#2", ":7#4"})
}
