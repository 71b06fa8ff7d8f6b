package postgres

import (
	"context"
	"io"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/jackc/pgx/v5"
)

// BenchmarkRead compares three ways to stream 100k rows out of Postgres:
// the source as shipped (one streaming query; pgx reads rows off the
// socket as they are taken), a server-side cursor fetched 1000 rows at a
// time with the same decoding, and COPY (...) TO STDOUT with no decoding
// at all (a lower bound for the COPY route, which would still have to
// parse text per type). Run: go test -run NONE -bench Read ./connectors/postgres/
func BenchmarkRead(b *testing.B) {
	url, conn, schema := testDB(b)
	ctx := context.Background()
	mustExec(b, conn, "CREATE TABLE "+schema+".bench (id bigint, name text, score double precision, at timestamptz, amount numeric(12,2))")
	mustExec(b, conn, "INSERT INTO "+schema+".bench SELECT g, 'name ' || g, g * 0.5, now(), g / 7.0 FROM generate_series(1, 100000) g")
	q := "SELECT * FROM " + schema + ".bench"
	const rows = 100000

	b.Run("query", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			src, err := newSource(cfg("connection_url", url, "query", q, "batch_size", 1000))
			if err != nil {
				b.Fatal(err)
			}
			if err := src.Open(ctx, connector.SourceOptions{}); err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				p, err := src.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n += len(p.Records)
			}
			src.Close()
			if n != rows {
				b.Fatal(n)
			}
		}
	})
	b.Run("cursor", func(b *testing.B) {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(ctx)
		for i := 0; i < b.N; i++ {
			tx, _ := c.Begin(ctx)
			if _, err := tx.Exec(ctx, "DECLARE cur NO SCROLL CURSOR FOR "+q); err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				r, err := tx.Query(ctx, "FETCH 1000 FROM cur", pgx.QueryResultFormatsByOID(resultFormats))
				if err != nil {
					b.Fatal(err)
				}
				got := 0
				fds := r.FieldDescriptions()
				recs := make([]connector.Record, 0, 1000)
				for r.Next() {
					raw := r.RawValues()
					rec := connector.NewRecord(len(fds))
					for j, fd := range fds {
						v, _ := decodeValue(c.TypeMap(), fd.DataTypeOID, fd.Format, raw[j])
						rec.Fields = append(rec.Fields, connector.Field{Key: fd.Name, Value: v})
					}
					recs = append(recs, rec)
					got++
				}
				r.Close()
				n += got
				if got == 0 {
					break
				}
			}
			tx.Rollback(ctx)
			if n != rows {
				b.Fatal(n)
			}
		}
	})
	b.Run("copy-raw", func(b *testing.B) {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(ctx)
		for i := 0; i < b.N; i++ {
			if _, err := c.PgConn().CopyTo(ctx, io.Discard, "COPY ("+q+") TO STDOUT"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
