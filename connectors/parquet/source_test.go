package parquet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// writeStructs writes rows with parquet-go's own generic writer, so the
// source is tested against files it did not produce.
func writeStructs[T any](t testing.TB, path string, rows []T, opts ...pq.WriterOption) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readLines reads a source config and returns each record as JSON.
func readLines(t testing.TB, c connector.Config) ([]string, int) {
	t.Helper()
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := connectortest.Collect(context.Background(), src, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res.Records))
	for i, r := range res.Records {
		out[i] = string(connector.AppendRecordJSON(nil, r))
	}
	return out, res.Pages
}

func sameLines(t testing.TB, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

type point struct {
	X int32  `parquet:"x"`
	Y *int32 `parquet:"y,optional"`
}

type typed struct {
	I32     int32             `parquet:"i32"`
	I64     int64             `parquet:"i64"`
	U64     uint64            `parquet:"u64"`
	F32     float32           `parquet:"f32"`
	F64     float64           `parquet:"f64"`
	B       bool              `parquet:"b"`
	S       string            `parquet:"s"`
	Enum    string            `parquet:"enum,enum"`
	Raw     []byte            `parquet:"raw"`
	TS      time.Time         `parquet:"ts,timestamp(microsecond)"`
	TSNano  int64             `parquet:"ts_nano,timestamp(nanosecond)"`
	Local   int64             `parquet:"local,timestamp(millisecond:local)"`
	Date    int32             `parquet:"date,date"`
	TimeOf  int64             `parquet:"time_of,time(microsecond)"`
	Dec     int64             `parquet:"dec,decimal(2:18)"`
	DecBig  [13]byte          `parquet:"dec_big,decimal(3:30)"`
	UUID    [16]byte          `parquet:"uuid,uuid"`
	JSON    string            `parquet:"json,json"`
	Opt     *string           `parquet:"opt,optional"`
	Tags    []string          `parquet:"tags,list"`
	Reps    []int64           `parquet:"reps"`
	Point   point             `parquet:"point"`
	OptPt   *point            `parquet:"opt_pt,optional"`
	Points  []point           `parquet:"points,list"`
	Matrix  [][]int32         `parquet:"matrix,list"`
	Counts  map[string]int64  `parquet:"counts"`
	OptList []*string         `parquet:"opt_list,list"`
	Nested  map[string]string `parquet:"nested"`
	Legacy  deprecated.Int96  `parquet:"legacy"`
}

func TestSourceTypes(t *testing.T) {
	s := "set"
	y := int32(7)
	ts := time.Date(2024, 2, 29, 12, 30, 45, 123456000, time.UTC)
	big := [13]byte{}
	big[12] = 0x39                                                                                // 57 with scale 3 -> 0.057
	neg := [13]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x85} // -123
	rows := []typed{
		{
			I32: -5, I64: 1 << 40, U64: 1<<64 - 1, F32: 0.1, F64: 2.5, B: true, S: "héllo ✓", Enum: "RED",
			Raw: []byte{0, 1, 0xff}, TS: ts, TSNano: ts.UnixNano() + 789, Local: ts.UnixMilli(),
			Date: int32(ts.Unix() / 86400), TimeOf: (12*3600+30*60+45)*1e6 + 5, Dec: -12345, DecBig: big,
			UUID: [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8},
			JSON: `{"k":[1,"two",null]}`, Opt: &s, Tags: []string{"a", "b"}, Reps: []int64{3, 4},
			Point: point{X: 1, Y: &y}, OptPt: &point{X: 2}, Points: []point{{X: 3}, {X: 4, Y: &y}},
			Matrix: [][]int32{{1, 2}, {}, {3}}, Counts: map[string]int64{"a": 1}, OptList: []*string{&s, nil},
			Legacy: int96(ts),
		},
		{
			U64: 42, F32: -1.5, S: "", DecBig: neg, Date: -1, JSON: `not json`,
			Tags: []string{}, Matrix: nil,
		},
	}
	path := writeStructs(t, filepath.Join(t.TempDir(), "typed.parquet"), rows)
	got, _ := readLines(t, connectortest.Cfg(t, "path", path))
	sameLines(t, got, []string{
		`{"i32":-5,"i64":1099511627776,"u64":18446744073709551615,"f32":0.1,"f64":2.5,"b":true,"s":"héllo ✓","enum":"RED",` +
			`"raw":"AAH/","ts":"2024-02-29T12:30:45.123456Z","ts_nano":"2024-02-29T12:30:45.123456789Z","local":"2024-02-29T12:30:45.123",` +
			`"date":"2024-02-29","time_of":"12:30:45.000005","dec":"-123.45","dec_big":"0.057","uuid":"12345678-9abc-def0-0102-030405060708",` +
			`"json":{"k":[1,"two",null]},"opt":"set","tags":["a","b"],"reps":[3,4],"point":{"x":1,"y":7},"opt_pt":{"x":2,"y":null},` +
			`"points":[{"x":3,"y":null},{"x":4,"y":7}],"matrix":[[1,2],[],[3]],"counts":{"a":1},"opt_list":["set",null],"nested":{},"legacy":"2024-02-29T12:30:45.123456Z"}`,
		`{"i32":0,"i64":0,"u64":42,"f32":-1.5,"f64":0.0,"b":false,"s":"","enum":"",` +
			`"raw":"","ts":"0001-01-01T00:00:00Z","ts_nano":"1970-01-01T00:00:00Z","local":"1970-01-01T00:00:00",` +
			`"date":"1969-12-31","time_of":"00:00:00","dec":"0.00","dec_big":"-0.123","uuid":"00000000-0000-0000-0000-000000000000",` +
			`"json":"not json","opt":null,"tags":[],"reps":[],"point":{"x":0,"y":null},"opt_pt":null,` +
			`"points":[],"matrix":[],"counts":{},"opt_list":[],"nested":{},"legacy":"-4713-11-24T00:00:00Z"}`,
	})
}

// int96 encodes t the way Impala and old Spark wrote timestamps:
// nanoseconds of the day, then the Julian day.
func int96(t time.Time) deprecated.Int96 {
	days := t.Unix()/86400 + 2440588
	nanos := uint64(t.Sub(time.Unix(t.Unix()/86400*86400, 0)))
	return deprecated.Int96{uint32(nanos), uint32(nanos >> 32), uint32(days)}
}

type flat struct {
	ID   int64   `parquet:"id"`
	Name string  `parquet:"name"`
	Note *string `parquet:"note,optional"`
}

func flatRows(from, n int) []flat {
	rows := make([]flat, n)
	for i := range rows {
		rows[i] = flat{ID: int64(from + i), Name: "n" + string(rune('a'+i%26))}
	}
	return rows
}

func TestSourcePagesProjectionAndGlob(t *testing.T) {
	dir := t.TempDir()
	writeStructs(t, filepath.Join(dir, "b.parquet"), flatRows(6, 4))
	writeStructs(t, filepath.Join(dir, "a.parquet"), flatRows(1, 5), pq.MaxRowsPerRowGroup(2))

	got, pages := readLines(t, connectortest.Cfg(t, "path", filepath.Join(dir, "*.parquet"), "columns", []any{"note", "id"}, "batch_size", 3))
	want := []string{}
	for i := 1; i <= 9; i++ {
		want = append(want, `{"id":`+itoa(i)+`,"note":null}`)
	}
	sameLines(t, got, want)
	// a.parquet: row groups of 2, 2, 1 rows; b.parquet: one of 4, cut at 3.
	if pages != 5 {
		t.Errorf("pages = %d, want 5 (a page never spans row groups)", pages)
	}
	_, pages = readLines(t, connectortest.Cfg(t, "source", map[string]any{"type": "glob", "pattern": filepath.Join(dir, "*.parquet")}, "batch_size", 0))
	if pages != 4 {
		t.Errorf("batch_size 0: pages = %d, want one per row group (4)", pages)
	}
}

// TestSourceProjectionAcrossLayouts reads a glob whose files hold the
// projected columns at different positions among other columns.
func TestSourceProjectionAcrossLayouts(t *testing.T) {
	dir := t.TempDir()
	type wider struct {
		A    string `parquet:"a"`
		ID   int64  `parquet:"id"`
		Name string `parquet:"name"`
	}
	type narrow struct {
		ID   int64  `parquet:"id"`
		Name string `parquet:"name"`
	}
	writeStructs(t, filepath.Join(dir, "1.parquet"), []narrow{{ID: 1, Name: "one"}})
	writeStructs(t, filepath.Join(dir, "2.parquet"), []wider{{A: "x", ID: 2, Name: "two"}})
	got, _ := readLines(t, connectortest.Cfg(t, "path", filepath.Join(dir, "*.parquet"), "columns", []any{"name", "id"}))
	sameLines(t, got, []string{`{"id":1,"name":"one"}`, `{"id":2,"name":"two"}`})
}

func itoa(i int) string { return strings.TrimSpace(connector.Int(int64(i)).Text()) }

func TestSourceErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeStructs(t, filepath.Join(dir, "good.parquet"), flatRows(1, 3))
	other := writeStructs(t, filepath.Join(dir, "mix", "x.parquet"), []point{{X: 1}})
	writeStructs(t, filepath.Join(dir, "mix", "y.parquet"), flatRows(1, 1))
	type flatText struct {
		ID   string  `parquet:"id"`
		Name string  `parquet:"name"`
		Note *string `parquet:"note,optional"`
	}
	textID := writeStructs(t, filepath.Join(dir, "retyped", "b.parquet"), []flatText{{ID: "1"}})
	writeStructs(t, filepath.Join(dir, "retyped", "a.parquet"), flatRows(1, 1))
	garbage := filepath.Join(dir, "garbage.parquet")
	os.WriteFile(garbage, []byte("this is not parquet at all, just text"), 0o644)
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.parquet")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	// Damage the column data but keep the footer: the error comes while
	// streaming and still names the file.
	damaged := filepath.Join(dir, "damaged.parquet")
	bad := append([]byte(nil), data...)
	for i := 4; i < 60 && i < len(bad)-8; i++ {
		bad[i] = 0xff
	}
	os.WriteFile(damaged, bad, 0o644)

	tests := []struct {
		name string
		cfg  connector.Config
		want string
	}{
		{"missing file", connectortest.Cfg(t, "path", filepath.Join(dir, "none.parquet")), "no such file"},
		{"garbage", connectortest.Cfg(t, "path", garbage), garbage + " is not a readable Parquet file"},
		{"truncated", connectortest.Cfg(t, "path", truncated), truncated + " is not a readable Parquet file"},
		{"damaged pages", connectortest.Cfg(t, "path", damaged), damaged},
		{"unknown column", connectortest.Cfg(t, "path", good, "columns", []any{"id", "nope"}), `column "nope" is not in the file (columns: id, name, note)`},
		{"schemas differ", connectortest.Cfg(t, "path", filepath.Join(dir, "mix", "*.parquet")), other + " and "},
		{"column retyped", connectortest.Cfg(t, "path", filepath.Join(dir, "retyped", "*.parquet")), textID + ` have different schemas: column "id" is`},
		{"projection skips the retyped column", connectortest.Cfg(t, "path", filepath.Join(dir, "retyped", "*.parquet"), "columns", []any{"name"}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := newSource(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = connectortest.Collect(context.Background(), src, nil)
			if tt.want == "" {
				if err != nil {
					t.Errorf("error = %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSourceConfigErrors(t *testing.T) {
	for _, c := range []connector.Config{
		connectortest.Cfg(t),
		connectortest.Cfg(t, "path", "x.parquet", "source", map[string]any{"type": "local_path", "path": "y"}),
		connectortest.Cfg(t, "source", map[string]any{"type": "s3", "bucket": "b"}),
		connectortest.Cfg(t, "path", "x.parquet", "columns", []any{"a", "a"}),
		connectortest.Cfg(t, "path", "x.parquet", "concurrency", 0),
	} {
		if _, err := newSource(c); err == nil {
			t.Errorf("config %s: want an error", c.Value)
		}
	}
}

// TestSourceDamagedBytes damages the bytes of a small file one at a time
// (every third byte of the footer, where the schema and offsets are, and
// every eleventh before it, to keep the run short): the source must never
// panic, and every error must name the file.
func TestSourceDamagedBytes(t *testing.T) {
	dir := t.TempDir()
	s := "x"
	good := writeStructs(t, filepath.Join(dir, "good.parquet"), []typed{{S: "abc", Opt: &s, Tags: []string{"a"}, Points: []point{{X: 1}}}}, pq.Compression(&snappy.Codec{}))
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "damaged.parquet")
	footer := len(data) - 1500
	for i := 0; i < len(data); i++ {
		if i < footer && i%11 != 0 || i >= footer && i%3 != 0 {
			continue
		}
		bad := append([]byte(nil), data...)
		bad[i] ^= 0xa5
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := newSource(connectortest.Cfg(t, "path", path))
		if err != nil {
			t.Fatal(err)
		}
		_, err = connectortest.Collect(context.Background(), src, nil)
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("byte %d damaged: error %q does not name the file", i, err)
		}
	}
}
