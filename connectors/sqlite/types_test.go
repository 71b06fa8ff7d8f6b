package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// A DATE column is read as a date, as the postgres and mysql sources read
// theirs; the driver hands it over as a time at midnight UTC. A DATE that
// holds a time of day keeps it.
func TestSourceDateStaysADate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dates.db")
	db := rawDB(t, path)
	mustExec(t, db, `CREATE TABLE d (id INTEGER, day DATE, at TIMESTAMP)`)
	mustExec(t, db, `INSERT INTO d VALUES (1, '2024-02-29', '2024-02-29'), (2, '0001-01-01', NULL), (3, '2024-03-10 01:30:00-08:00', NULL)`)
	res := collect(t, connectortest.Cfg(t, "path", path, "query", "SELECT * FROM d ORDER BY id"), nil)
	want := []string{
		`{"id":1,"day":"2024-02-29","at":"2024-02-29T00:00:00Z"}`,
		`{"id":2,"day":"0001-01-01","at":null}`,
		`{"id":3,"day":"2024-03-10T09:30:00Z","at":null}`,
	}
	if len(res.Records) != len(want) {
		t.Fatalf("got %d records", len(res.Records))
	}
	for i, r := range res.Records {
		if got := connector.Object(r).String(); got != want[i] {
			t.Errorf("record %d\n got %s\nwant %s", i+1, got, want[i])
		}
	}
}

// Binary values travel as base64 text (the sources' spelling); a BLOB
// column gets the bytes back, as bytea and BLOB columns do in the postgres
// and mysql sinks. Text that is not base64 is stored as it is.
func TestSinkDecodesBase64IntoBlob(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blob.db")
	db := rawDB(t, path)
	mustExec(t, db, `CREATE TABLE dst (id INTEGER, payload BLOB, note TEXT)`)
	write(t, sinkCfg(path, "column_mapping", "auto_map"), []connector.Record{
		rec("id", 1, "payload", "AP8KDQk=", "note", "AP8="),
		rec("id", 2, "payload", "", "note", ""),
		rec("id", 3, "payload", "not base64!", "note", nil),
		rec("id", 4, "payload", nil, "note", nil),
	})
	rows, err := db.Query(`SELECT id, typeof(payload), hex(payload), note FROM dst ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := []string{"1 blob 00FF0A0D09 AP8=", "2 blob  ", "3 text 6E6F742062617365363421 <nil>", "4 null  <nil>"}
	i := 0
	for ; rows.Next(); i++ {
		var id int
		var typ, hex string
		var note *string
		if err := rows.Scan(&id, &typ, &hex, &note); err != nil {
			t.Fatal(err)
		}
		n := "<nil>"
		if note != nil {
			n = *note
		}
		got := fmt.Sprintf("%d %s %s %s", id, typ, hex, n)
		if i >= len(want) || got != want[i] {
			t.Errorf("row %d: got %q", i+1, got)
		}
	}
	if i != len(want) {
		t.Errorf("got %d rows, want %d", i, len(want))
	}
}
