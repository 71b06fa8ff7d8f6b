package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/jackc/pgx/v5/stdlib"
)

// shardData is the input of the sharded phase: the generated rows as a set
// of CSV files and as a Postgres table, and their checksum.
type shardData struct {
	glob   string  // the CSV set, path pattern of the csv source
	url    string  // database holding the source table and the sink tables
	db     *sql.DB // connection to url
	source string  // the source table (the same rows as the CSV set)
	want   sums
}

// sums is what a sink table must match: row count, sum(id), sum(amount).
type sums struct {
	n, ids int64
	amount string // numeric, compared as text
}

// benchColumns is the shared bench's CSV header typed for Postgres.
const benchColumns = "(id BIGINT, first_name TEXT, country TEXT, amount NUMERIC(12,2), created_at TIMESTAMPTZ, active BOOLEAN, attributes JSONB)"

// prepareShardData generates -sharded-rows rows with bench/gen (seed 42),
// splits them into -sharded-files CSV files of contiguous id ranges, creates
// a data database and COPYs the same rows into its source table.
func prepareShardData(dir string, p *pg) shardData {
	gen := filepath.Join(dir, "gen")
	build := exec.Command("go", "build", "-o", gen, "github.com/faucet-hq/faucet/bench/gen")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	check(build.Run())
	all := filepath.Join(dir, "rows.csv")
	g := exec.Command(gen, "--rows", fmt.Sprint(*shardedRows), "--out", all)
	g.Stderr = os.Stderr
	check(g.Run())

	setDir := filepath.Join(dir, "csvset")
	check(os.MkdirAll(setDir, 0o755))
	splitCSV(all, setDir, *shardedRows, *shardedFiles)

	d := shardData{glob: filepath.Join(setDir, "*.csv"), url: p.fresh(), source: "bench_src"}
	var err error
	d.db, err = sql.Open("pgx", d.url)
	check(err)
	atExit(func() { d.db.Close() })
	_, err = d.db.Exec("CREATE TABLE " + d.source + " " + benchColumns)
	check(err)
	f, err := os.Open(all)
	check(err)
	defer f.Close()
	conn, err := d.db.Conn(context.Background())
	check(err)
	defer conn.Close()
	check(conn.Raw(func(c any) error {
		_, err := c.(*stdlib.Conn).Conn().PgConn().CopyFrom(context.Background(), bufio.NewReaderSize(f, 1<<20),
			"COPY "+d.source+" FROM STDIN (FORMAT csv, HEADER true)")
		return err
	}))
	_, err = d.db.Exec("ALTER TABLE " + d.source + " ADD PRIMARY KEY (id)")
	check(err)
	_, err = d.db.Exec("ANALYZE " + d.source)
	check(err)
	d.want = d.sumsOf(d.source)
	n := int64(*shardedRows)
	must(d.want.n == n && d.want.ids == n*(n+1)/2,
		fmt.Sprintf("source table holds %d rows with sum(id) %d, want %d and %d", d.want.n, d.want.ids, n, n*(n+1)/2))
	return d
}

// sumsOf reads the checksum of table.
func (d shardData) sumsOf(table string) sums {
	var s sums
	check(d.db.QueryRow("SELECT COUNT(*), COALESCE(SUM(id), 0), COALESCE(SUM(amount), 0)::text FROM "+table).
		Scan(&s.n, &s.ids, &s.amount))
	return s
}

// splitCSV writes the data lines of src (one record a line: the generator
// quotes but never breaks a line) into files part-0.csv … of contiguous
// ranges, each with the header.
func splitCSV(src, dstDir string, rows, files int) {
	in, err := os.Open(src)
	check(err)
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	must(sc.Scan(), "generated CSV has no header")
	header := append([]byte(nil), sc.Bytes()...)
	per := (rows + files - 1) / files
	var out *os.File
	var bw *bufio.Writer
	closeOut := func() {
		if out != nil {
			check(bw.Flush())
			check(out.Close())
		}
	}
	for i := 0; sc.Scan(); i++ {
		if i%per == 0 {
			closeOut()
			out, err = os.Create(filepath.Join(dstDir, fmt.Sprintf("part-%d.csv", i/per)))
			check(err)
			bw = bufio.NewWriterSize(out, 1<<20)
			_, err = bw.Write(header)
			check(err)
			check(bw.WriteByte('\n'))
		}
		_, err = bw.Write(sc.Bytes())
		check(err)
		check(bw.WriteByte('\n'))
	}
	check(sc.Err())
	closeOut()
}
