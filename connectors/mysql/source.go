package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// SourceConfig is the `config:` of a mysql source.
type SourceConfig struct {
	ConnectionURL connector.Secret `json:"connection_url" doc:"mysql://user:password@host:port/db (or a go-sql-driver DSN user:password@tcp(host:port)/db)."`
	URL           connector.Secret `json:"url" doc:"Alias of connection_url."`
	Query         string           `json:"query" doc:"SQL query to read; ? for params. Exclusive with table."`
	sqlutil.ReadConfig
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	raw, key, err := pickURL(c.ConnectionURL, c.URL)
	if err != nil {
		return err
	}
	if err := checkURL(key, raw); err != nil {
		return err
	}
	return c.Check(c.Query)
}

// Source streams the rows of one query (the driver reads rows off the
// socket as they are taken, so memory holds about one page).
type Source struct {
	cfg   SourceConfig
	url   string
	db    *sql.DB
	rows  *sql.Rows
	cols  []string
	kinds []colKind
	read  sqlutil.Read
	keyAt int
	row   int64
	done  bool
	re    reread // to read on after a dropped connection (connlost.go)
	bufs  sqlutil.PageBufs
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{keyAt: -1}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.url, _, _ = pickURL(s.cfg.ConnectionURL, s.cfg.URL)
	args, _ := sqlutil.ParamArgs(s.cfg.Params)
	s.read = sqlutil.Read{Dialect: sqlutil.MySQL, Query: s.cfg.Query, Table: s.cfg.Table,
		Columns: s.cfg.Columns, Args: args, ReplicationKey: s.cfg.ReplicationKey}
	if s.cfg.Shard != nil {
		s.read.ShardKey = s.cfg.Shard.Key
		return sharded(s), nil
	}
	return s, nil
}

// DatasetURI names what the source reads, without credentials.
func (s *Source) DatasetURI() string {
	if s.cfg.Table != "" {
		return sqlutil.RedactURL(s.url) + "?table=" + s.cfg.Table
	}
	return sqlutil.RedactURL(s.url) + "?query=" + s.cfg.Query
}

func (s *Source) what() string {
	w := fmt.Sprintf("query %q", s.cfg.Query)
	if s.cfg.Table != "" {
		w = "table " + quote(s.cfg.Table)
	}
	if s.read.Shard != nil {
		w += " (" + s.read.Shard.String() + ")"
	}
	return w
}

func (s *Source) statement(start *connector.Value) (string, []any) {
	return s.read.Statement(start, bookmarkArg)
}

// bookmarkArg binds a saved key; RFC 3339 text goes back to MySQL's
// DATETIME spelling so that it compares as a time.
func bookmarkArg(v connector.Value) any {
	if v.Kind() == connector.KindString {
		s := v.AsString()
		if len(s) > 10 && s[10] == 'T' {
			return strings.TrimSuffix(strings.Replace(s, "T", " ", 1), "Z")
		}
		return s
	}
	return sqlutil.Arg(v, false)
}

// Open connects and runs the query, so a wrong password, an unknown
// table or a bad query fails before anything is written.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	db, err := open(s.url)
	if err != nil {
		return err
	}
	s.db = db
	if err := db.PingContext(ctx); err != nil {
		s.Close()
		return fmt.Errorf("mysql: connect to %s: %s", sqlutil.RedactURL(s.url), redactErr(s.url, err))
	}
	var start *connector.Value
	if s.cfg.ReplicationKey != "" {
		start = opts.StartBookmark
	}
	s.re.start = start
	var isJSON map[string]bool
	if s.cfg.Table != "" { // before the query: the one connection is busy afterwards
		isJSON = mariaJSONColumns(ctx, db, s.cfg.Table)
	}
	q, args := s.statement(start)
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		s.Close()
		return fmt.Errorf("mysql: %s: %s: %s", sqlutil.RedactURL(s.url), s.what(), redactErr(s.url, err))
	}
	s.rows = rows
	cts, err := rows.ColumnTypes()
	if err != nil {
		s.Close()
		return fmt.Errorf("mysql: %s: %w", s.what(), err)
	}
	s.cols = make([]string, len(cts))
	s.kinds = make([]colKind, len(cts))
	for i, ct := range cts {
		s.cols[i] = ct.Name()
		s.kinds[i] = kindOf(ct.DatabaseTypeName())
		if isJSON[ct.Name()] {
			s.kinds[i] = kindJSON
		}
		if ct.Name() == s.cfg.ReplicationKey {
			s.keyAt = i
		}
	}
	if s.cfg.ReplicationKey != "" && s.keyAt < 0 {
		s.Close()
		return connector.ConfigErrorf("replication_key", "%q is not a column of %s (columns: %s)", s.cfg.ReplicationKey, s.what(), strings.Join(s.cols, ", "))
	}
	return nil
}

// Next reads up to batch_size rows into a page.
func (s *Source) Next(ctx context.Context) (*connector.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.re.lost {
		if err := s.reopen(ctx); err != nil {
			return nil, err
		}
	}
	if s.done || s.rows == nil {
		return nil, io.EOF
	}
	n := len(s.cols)
	raw := make([]sql.RawBytes, n)
	ptrs := make([]any, n)
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if s.bufs == nil {
		s.bufs = sqlutil.NewPageBufs()
	}
	pb := s.bufs.Get(min(s.cfg.BatchSize, 4096), n) // reused once the engine released its page
	recs, fields, arena := pb.Recs, pb.Fields, &pb.Arena
	for len(recs) < s.cfg.BatchSize {
		if !s.rows.Next() {
			if err := s.rows.Err(); err != nil {
				return nil, s.readFailed(ctx, err)
			}
			s.done = true
			break
		}
		s.row++
		if err := s.rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("mysql: %s: row %d: %w", s.what(), s.row, err)
		}
		if len(fields)+n > cap(fields) {
			fields = make([]connector.Field, 0, n*max(cap(recs), 1))
		}
		start := len(fields)
		for i, b := range raw {
			fields = append(fields, connector.Field{Key: s.cols[i], Value: decodeIn(arena, b, s.kinds[i])})
		}
		recs = append(recs, connector.Record{Fields: fields[start:len(fields):len(fields)]})
	}
	if len(recs) == 0 {
		s.bufs.Put(pb)
		return nil, io.EOF
	}
	pb.Recs, pb.Fields = recs, fields
	p := &connector.Page{Records: recs, Release: func() { s.bufs.Put(pb) }}
	if s.keyAt >= 0 {
		b := recs[len(recs)-1].Fields[s.keyAt].Value
		p.Bookmark = &b
		s.emitted(b)
	}
	return p, nil
}

// Close ends the query and the connection.
func (s *Source) Close() error {
	var err error
	if s.rows != nil {
		err = s.rows.Close()
		s.rows = nil
	}
	if s.db != nil {
		if cerr := s.db.Close(); err == nil {
			err = cerr
		}
		s.db = nil
	}
	return err
}

// Page bookmarks are cumulative (rows come in key order), so the source
// does not implement connector.BookmarkMerger.
var _ connector.Source = (*Source)(nil)
