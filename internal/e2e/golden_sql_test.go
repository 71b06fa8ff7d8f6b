package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// sqlStep runs a script of statements in one of the case's databases.
type sqlStep struct {
	DB   string `yaml:"db"`   // postgres, mysql or sqlite
	Path string `yaml:"path"` // sqlite: the database file, relative to the case copy
	File string `yaml:"file"` // the script, relative to the case copy
}

// queryStep runs one query and compares its rows with a golden file.
type queryStep struct {
	DB   string `yaml:"db"`
	Path string `yaml:"path"`
	SQL  string `yaml:"sql"`
	Want string `yaml:"want"` // relative to the case directory
}

func (s sqlStep) where() string   { return where(s.DB, s.Path) }
func (q queryStep) where() string { return where(q.DB, q.Path) }

func where(db, path string) string {
	if db == "sqlite" {
		return "sqlite " + path
	}
	return db
}

// runSQL executes the script (every statement, in one session).
func runSQL(t *testing.T, step int, dbs caseDBs, work string, st sqlStep) {
	t.Helper()
	if st.File == "" {
		t.Fatalf("step %d: sql: file is missing", step)
	}
	script, err := os.ReadFile(filepath.Join(work, st.File))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	switch st.DB {
	case pgService:
		conn, err := openPG(ctx, dbs.url(t, st.DB))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		// No arguments: the simple protocol, which runs every statement.
		_, err = conn.Exec(ctx, string(script))
		checkScript(t, step, st, err)
	case mysqlService, "sqlite":
		db := openSQLDB(t, dbs, work, st.DB, st.Path)
		defer db.Close()
		_, err = db.ExecContext(ctx, string(script))
		checkScript(t, step, st, err)
	default:
		t.Fatalf("step %d: sql: unknown db %q (postgres, mysql or sqlite)", step, st.DB)
	}
}

func checkScript(t *testing.T, step int, st sqlStep, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("step %d: sql: %s in %s: %v", step, st.File, st.where(), err)
	}
}

// openSQLDB opens the case's MariaDB database or a SQLite file of the
// case copy with database/sql.
func openSQLDB(t *testing.T, dbs caseDBs, work, db, path string) *sql.DB {
	t.Helper()
	if db == mysqlService {
		d, err := openMySQL(dbs.url(t, db))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if path == "" {
		t.Fatalf("db sqlite needs path: the database file in the case copy")
	}
	d, err := sql.Open("sqlite", "file:"+filepath.Join(work, path)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	return d
}

// runQuery renders the query's rows and compares them with q.Want.
func runQuery(t *testing.T, step int, dbs caseDBs, work, src string, q queryStep) {
	t.Helper()
	if q.SQL == "" || q.Want == "" {
		t.Fatalf("step %d: query: sql and want are required", step)
	}
	var (
		cols []string
		rows [][][]byte
		err  error
	)
	switch q.DB {
	case pgService:
		cols, rows, err = queryPG(dbs.url(t, q.DB), q.SQL)
	case mysqlService, "sqlite":
		db := openSQLDB(t, dbs, work, q.DB, q.Path)
		defer db.Close()
		cols, rows, err = queryDB(db, q.SQL)
	default:
		t.Fatalf("step %d: query: unknown db %q (postgres, mysql or sqlite)", step, q.DB)
	}
	if err != nil {
		t.Fatalf("step %d: query in %s: %s\n%v", step, q.where(), q.SQL, err)
	}
	if len(rows) > 1 && !strings.Contains(strings.ToUpper(q.SQL), "ORDER BY") {
		t.Fatalf("step %d: query in %s returned %d rows without ORDER BY (golden rows need a fixed order): %s", step, q.where(), len(rows), q.SQL)
	}
	ctx := func() string { return "step " + strconv.Itoa(step) + ": query in " + q.where() + ": " + q.SQL + "\n" }
	compareFile(t, ctx, filepath.Join(src, q.Want), renderRows(cols, rows))
}

// queryPG runs q with the simple protocol, so every value comes back in
// Postgres' own text form (a NULL as nil).
func queryPG(url, q string) ([]string, [][][]byte, error) {
	ctx := context.Background()
	conn, err := openPG(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close(ctx)
	rs, err := conn.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	var cols []string
	for _, fd := range rs.FieldDescriptions() {
		cols = append(cols, fd.Name)
	}
	var out [][][]byte
	for rs.Next() {
		row := make([][]byte, len(cols))
		for i, v := range rs.RawValues() {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		out = append(out, row)
	}
	return cols, out, rs.Err()
}

// queryDB runs q through database/sql and renders each value as text:
// bytes as they come, numbers the driver parsed in Go's spelling, times as
// RFC 3339 UTC.
func queryDB(db *sql.DB, q string) ([]string, [][][]byte, error) {
	rs, err := db.QueryContext(context.Background(), q)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][][]byte
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([][]byte, len(cols))
		for i, v := range vals {
			row[i] = cellText(v)
		}
		out = append(out, row)
	}
	return cols, out, rs.Err()
}

// cellText is a driver value as text; nil stays nil (NULL).
func cellText(v any) []byte {
	switch t := v.(type) {
	case nil:
		return nil
	case []byte:
		return append([]byte{}, t...)
	case string:
		return []byte(t)
	case int64:
		return strconv.AppendInt([]byte{}, t, 10)
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return []byte(strconv.FormatFloat(t, 'g', -1, 64))
		}
		return strconv.AppendFloat([]byte{}, t, 'g', -1, 64)
	case bool:
		return strconv.AppendBool([]byte{}, t)
	case time.Time:
		return []byte(t.UTC().Format(time.RFC3339Nano))
	}
	return fmt.Appendf(nil, "%v", v)
}

// renderRows is a header line of column names, then one line per row:
// values separated by tabs, NULL as \N, and backslash, tab, newline,
// carriage return and bytes that are not UTF-8 escaped (\\ \t \n \r \xNN).
func renderRows(cols []string, rows [][][]byte) []byte {
	var b bytes.Buffer
	for i, c := range cols {
		if i > 0 {
			b.WriteByte('\t')
		}
		writeCell(&b, []byte(c))
	}
	b.WriteByte('\n')
	for _, row := range rows {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString(`\N`)
				continue
			}
			writeCell(&b, v)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeCell(b *bytes.Buffer, v []byte) {
	for len(v) > 0 {
		r, n := utf8.DecodeRune(v)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, v[0])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		default:
			b.Write(v[:n])
		}
		v = v[n:]
	}
}
