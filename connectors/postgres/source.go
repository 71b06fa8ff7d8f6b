package postgres

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5"
)

// SourceConfig is the `config:` of a postgres source.
type SourceConfig struct {
	ConnectionURL connector.Secret `json:"connection_url" doc:"postgres://user:password@host:port/db?sslmode=..."`
	URL           connector.Secret `json:"url" doc:"Alias of connection_url."`
	Query         string           `json:"query" doc:"SQL query to read; $1, $2... bind params. Exclusive with table."`
	Schema        string           `json:"schema" doc:"Schema of table (default: the search_path)."`
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
	if err := c.Check(c.Query); err != nil {
		return err
	}
	if c.Schema != "" && c.Table == "" {
		return connector.ConfigErrorf("schema", "only applies with table")
	}
	return nil
}

// Source streams the rows of one query. pgx reads result rows from the
// socket as Next asks for them, so memory holds about one page whatever
// the result size (see bench_test.go for why this beats a cursor or COPY).
type Source struct {
	cfg   SourceConfig
	url   string
	read  sqlutil.Read
	conn  *pgx.Conn
	rows  pgx.Rows
	keys  []string
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
	s.read = sqlutil.Read{Dialect: sqlutil.Postgres, Query: s.cfg.Query, Schema: s.cfg.Schema, Table: s.cfg.Table,
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
		return sqlutil.RedactURL(s.url) + "?table=" + qualified(s.cfg.Schema, s.cfg.Table)
	}
	return sqlutil.RedactURL(s.url) + "?query=" + s.cfg.Query
}

func qualified(schema, table string) string {
	if schema == "" {
		return table
	}
	return schema + "." + table
}

func (s *Source) what() string {
	w := fmt.Sprintf("query %q", s.cfg.Query)
	if s.cfg.Table != "" {
		w = "table " + sqlutil.QuoteQualified(s.cfg.Schema, s.cfg.Table, '"')
	}
	if s.read.Shard != nil {
		w += " (" + s.read.Shard.String() + ")"
	}
	return w
}

// statement builds the SQL and arguments: the query or table, restricted
// to the applied shard, then the incremental filter and order.
func (s *Source) statement(start *connector.Value) (string, []any) {
	return s.read.Statement(start, func(v connector.Value) any { return v.Text() })
}

// Open connects and starts the query, so a wrong password, an unknown
// table or a bad query fails before anything is written.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	conn, err := connect(ctx, s.url)
	if err != nil {
		return err
	}
	s.conn = conn
	var start *connector.Value
	if s.cfg.ReplicationKey != "" {
		start = opts.StartBookmark
	}
	s.re.start = start
	q, args := s.statement(start)
	all := append([]any{pgx.QueryResultFormatsByOID(resultFormats)}, args...)
	rows, err := conn.Query(ctx, q, all...)
	if err == nil {
		// Errors of the statement itself arrive with the first row.
		if !rows.Next() {
			err = rows.Err()
			rows.Close()
			s.done = true
		} else {
			s.row = -1 // the first row is read but not yet taken
		}
	}
	if err != nil {
		s.Close()
		return fmt.Errorf("postgres: %s: %s", s.what(), redactErr(s.url, err))
	}
	s.rows = rows
	fds := rows.FieldDescriptions()
	s.keys = make([]string, len(fds))
	for i, fd := range fds {
		s.keys[i] = fd.Name
		if fd.Name == s.cfg.ReplicationKey {
			s.keyAt = i
		}
	}
	if s.cfg.ReplicationKey != "" && s.keyAt < 0 && len(fds) > 0 {
		s.Close()
		return connector.ConfigErrorf("replication_key", "%q is not a column of %s (columns: %s)", s.cfg.ReplicationKey, s.what(), strings.Join(s.keys, ", "))
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
	fds := s.rows.FieldDescriptions()
	n := len(fds)
	m := s.conn.TypeMap()
	if s.bufs == nil {
		s.bufs = sqlutil.NewPageBufs()
	}
	pb := s.bufs.Get(min(s.cfg.BatchSize, 4096), n) // reused once the engine released its page
	recs, fields, arena := pb.Recs, pb.Fields, &pb.Arena
	for len(recs) < s.cfg.BatchSize {
		if s.row >= 0 && !s.rows.Next() {
			if err := s.rows.Err(); err != nil {
				return nil, s.readFailed(ctx, err)
			}
			s.done = true
			break
		}
		if s.row < 0 {
			s.row = 0
		}
		s.row++
		raw := s.rows.RawValues()
		if len(fields)+n > cap(fields) {
			fields = make([]connector.Field, 0, n*max(cap(recs), 1))
		}
		start := len(fields)
		for i, fd := range fds {
			v, err := decodeIn(arena, m, fd.DataTypeOID, fd.Format, raw[i])
			if err != nil {
				return nil, fmt.Errorf("postgres: %s: row %d, column %q: %w", s.what(), s.row, fd.Name, err)
			}
			fields = append(fields, connector.Field{Key: s.keys[i], Value: v})
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
	if s.rows != nil {
		s.rows.Close()
		s.rows = nil
	}
	if s.conn != nil {
		err := s.conn.Close(context.Background())
		s.conn = nil
		return err
	}
	return nil
}

// Page bookmarks are cumulative: rows come in replication-key order, so
// the last key of a page is the highest read so far. The source therefore
// does not implement connector.BookmarkMerger (comparing the keys' faucet
// values could misorder timestamps with and without fractional seconds).
var _ connector.Source = (*Source)(nil)
