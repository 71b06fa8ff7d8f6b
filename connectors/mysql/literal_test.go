package mysql

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// decodeIn with a page arena returns what decode returns on its own.
func TestDecodeInArenaMatches(t *testing.T) {
	samples := map[colKind][]string{
		kindText:      {"", "héllo", "tab\there"},
		kindInt:       {"0", "-42", "9223372036854775807", "12x"},
		kindUint:      {"18446744073709551615", "7"},
		kindFloat:     {"1.5", "-1e300", "nan?"},
		kindDecimal:   {"1234567890123456789012345678.0123456789"},
		kindDateTime:  {"2024-05-01 10:00:00.123456", "0000-00-00 00:00:00", "2024-05-01"},
		kindTimestamp: {"2024-05-01 10:00:00.5", "2024-05-01", "2024-05-01T10:00:00"},
		kindJSON:      {`{"z":1,"a":[1,{"b":null}],"s":"q\"uote"}`, `[1,2]`, `not json`},
		kindBinary:    {"\x00\xff"},
		kindBit:       {"\x01\x02"},
	}
	var a sqlutil.Arena
	for kind, ss := range samples {
		for _, s := range ss {
			buf := []byte(s)
			got := decodeIn(&a, buf, kind)
			copy(buf, strings.Repeat("#", len(buf))) // the driver reuses its buffer
			if want := decode([]byte(s), kind); !got.Equal(want) || got.Kind() != want.Kind() || got.String() != want.String() {
				t.Errorf("kind %d %q: arena %s (%s), plain %s (%s)", kind, s, got, got.Kind(), want, want.Kind())
			}
		}
		if got := decodeIn(&a, nil, kind); !got.IsNull() {
			t.Errorf("kind %d: NULL decoded as %s", kind, got)
		}
	}
}

// tricky is a page whose values exercise every inline literal: quotes,
// backslashes (which stay bound), control bytes, JSON with escapes, base64
// for a binary column, RFC 3339 with an offset for DATETIME, exact and
// float numbers, booleans, nested values into text.
func tricky() []connector.Record {
	big, _ := connector.ParseJSON([]byte("18446744073709551615"))
	nested, _ := connector.ParseJSON([]byte(`{"a":"b\\c","q":"it's"}`))
	return []connector.Record{
		rec("id", 1, "t", "it's \"quoted\"", "j", map[string]any{"k": "v'"}, "b", "AP8nXA==", "dt", "2024-05-01T10:00:00.123456+02:00",
			"d", "12.50", "f", 1.5, "flag", true, "big", "1"),
		rec("id", 2, "t", `back\slash and 'quote'`, "j", nested, "b", "not base64", "dt", "2024-05-01T10:00:00Z", "d", 3, "f", -1e-7, "flag", false),
		rec("id", 3, "t", "nul\x00 nl\n cr\r ctrlz\x1a tab\t ?? -- # /* */ `x`", "j", []any{1, "x"}, "dt", "2024-02-29T23:59:59.9999999-01:00", "f", 1e300),
		rec("id", 4, "t", nested, "j", "a JSON string", "f", math.MaxInt64),
		rec("id", 5, "t", "é🎉", "d", big),
	}
}

const literalDDL = `(id INT PRIMARY KEY, t TEXT, j JSON, b VARBINARY(16), dt DATETIME(6), d DECIMAL(30,2), f DOUBLE, flag TINYINT(1), big VARCHAR(40))
	DEFAULT CHARSET=utf8mb4`

// Records written with their values inline read back exactly as records
// written with every value bound (the driver interpolating them), also
// in a session with NO_BACKSLASH_ESCAPES.
func TestSinkInlineValuesMatchBound(t *testing.T) {
	u, db := testDB(t)
	for _, mode := range []string{"", "NO_BACKSLASH_ESCAPES"} {
		url := u
		if mode != "" {
			sep := "?"
			if strings.Contains(url, "?") {
				sep = "&"
			}
			url += sep + "sql_mode=%27" + mode + "%27"
		}
		inline, bound := "inline_"+strings.ToLower(mode), "bound_"+strings.ToLower(mode)
		mustExec(t, db, "CREATE TABLE "+inline+literalDDL)
		mustExec(t, db, "CREATE TABLE "+bound+literalDDL)
		if err := write(t, cfg("connection_url", url, "table_name", inline, "column_mapping", "auto_map"), tricky()); err != nil {
			t.Fatalf("%s inline: %v", mode, err)
		}
		// The same page through insertSQL, every value a bind argument.
		s, err := newSink(cfg("connection_url", url, "table_name", bound, "column_mapping", "auto_map"))
		if err != nil {
			t.Fatal(err)
		}
		snk := s.(*Sink)
		ctx := context.Background()
		if err := snk.Open(ctx, connector.SinkOptions{}); err != nil {
			t.Fatal(err)
		}
		recs := tricky()
		cols, err := snk.columnsOf(recs)
		if err != nil {
			t.Fatal(err)
		}
		_, inlineArgs := snk.insertText(quote(bound), cols, recs, false)
		if len(inlineArgs) != 4 { // the values with a backslash: record 1's bytes, record 2's text and JSON, record 4's text
			t.Errorf("%s: %d values stayed bound, want 4: %v", mode, len(inlineArgs), inlineArgs)
		}
		q, args := snk.insertSQL(quote(bound), cols, recs, false)
		if _, err := snk.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s bound: %v", mode, err)
		}
		snk.Close()
		got, want := dumpTable(t, u, inline), dumpTable(t, u, bound)
		if got != want {
			t.Errorf("%s: inline\n%s\nbound\n%s", mode, got, want)
		}
		if !strings.Contains(got, `back\\slash and 'quote'`) || !strings.Contains(got, `"b":"AP8nXA=="`) {
			t.Errorf("%s: values not stored as written:\n%s", mode, got)
		}
	}
}

// A statement longer than maxInline is bound instead (as before), so that
// the driver can still prepare it.
func TestSinkLongStatementIsBound(t *testing.T) {
	u, db := testDB(t)
	mustExec(t, db, "CREATE TABLE big (id INT PRIMARY KEY, t LONGTEXT)")
	var recs []connector.Record
	for i := 1; i <= 3; i++ {
		recs = append(recs, rec("id", i, "t", strings.Repeat("x", maxInline/2)))
	}
	s, err := newSink(cfg("connection_url", u, "table_name", "big", "column_mapping", "auto_map"))
	if err != nil {
		t.Fatal(err)
	}
	snk := s.(*Sink)
	if err := snk.Open(context.Background(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer snk.Close()
	if q, _ := snk.insertText("`big`", []int{0, 1}, recs, false); q != "" {
		t.Fatalf("a %d-byte statement was inlined", 3*maxInline/2)
	}
	if err := write(t, cfg("connection_url", u, "table_name", "big", "column_mapping", "auto_map"), recs); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT count(*) FROM big WHERE length(t) = "+strconv.Itoa(maxInline/2)); n != 3 {
		t.Fatalf("%d rows written", n)
	}
}

// mayHaveZone never skips text that time.Parse(time.RFC3339Nano) accepts.
func TestMayHaveZone(t *testing.T) {
	for _, s := range []string{
		"2020-01-01T00:00:31Z", "2020-01-01T00:00:31.5+02:00", "2020-01-01T00:00:31-00:30", "2020-01-01t00:00:31z",
		"2020-01-01T00:00:31", "2020-01-01T00:00:31.123456", "2020-01-01 00:00:31", "2020-01-01", "", "Z", "+02:00",
		"2020-01-01T00:00:31+0200", "2020-01-01T00:00:31.999999999Z",
	} {
		if _, err := time.Parse(time.RFC3339Nano, s); err == nil && !mayHaveZone(s) {
			t.Errorf("%q parses but would be skipped", s)
		}
	}
}
