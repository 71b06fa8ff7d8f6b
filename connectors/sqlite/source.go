package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// SourceConfig is the `config:` of a sqlite source.
type SourceConfig struct {
	Path        string `json:"path" doc:"SQLite database file (sqlite:// and file: prefixes are accepted)."`
	DatabaseURL string `json:"database_url" doc:"faucet-cli 1.x spelling of path (sqlite://PATH)."`
	Query       string `json:"query" doc:"SQL query to read; use ? for params. Exclusive with table."`
	sqlutil.ReadConfig
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if _, err := pickPath(c.Path, c.DatabaseURL); err != nil {
		return err
	}
	return c.Check(c.Query)
}

// Source streams the rows of one query.
type Source struct {
	cfg   SourceConfig
	path  string
	db    *sql.DB
	rows  *sql.Rows
	cols  []string
	kinds []colKind
	read  sqlutil.Read
	keyAt int // index of the replication key column, or -1
	rawAt int // index of the key's stored value (rawKeyColumn), or -1
	row   int64
	done  bool
	// lastKey is the stored value of the last row's replication key.
	lastKey connector.Value
}

// rawKeyColumn carries the replication key as stored. The driver turns
// DATE, DATETIME and TIMESTAMP text into times, which come out as RFC 3339;
// compared with the stored text ("2024-01-01 12:00:00") such a bookmark
// would skip later rows of its day, so the bookmark is the stored value
// (text, integer or real) and compares as the ORDER BY does.
const rawKeyColumn = "_faucet_rk"

// withRawKey adds rawKeyColumn to an incremental statement: the unary +
// makes it an expression, which the driver returns untouched.
func withRawKey(q, key string) string {
	k := sqlutil.QuoteIdent(key, '"')
	return "SELECT *, +" + k + " AS " + rawKeyColumn + " FROM (" + q + ") AS _faucet_keyed ORDER BY " + k
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{keyAt: -1, rawAt: -1}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.path, _ = pickPath(s.cfg.Path, s.cfg.DatabaseURL)
	args, _ := sqlutil.ParamArgs(s.cfg.Params)
	s.read = sqlutil.Read{Dialect: sqlutil.SQLite, Query: s.cfg.Query, Table: s.cfg.Table,
		Columns: s.cfg.Columns, Args: args, ReplicationKey: s.cfg.ReplicationKey}
	if s.cfg.Shard != nil {
		s.read.ShardKey = s.cfg.Shard.Key
		return sharded(s), nil
	}
	return s, nil
}

// DatasetURI names what the source reads (sqlite://PATH?query=... or ?table=...).
func (s *Source) DatasetURI() string {
	if s.cfg.Table != "" {
		return "sqlite://" + s.path + "?table=" + s.cfg.Table
	}
	return "sqlite://" + s.path + "?query=" + s.cfg.Query
}

// statement builds the SQL and arguments, adding the incremental filter.
func (s *Source) statement(start *connector.Value) (string, []any) {
	return s.read.Statement(start, func(v connector.Value) any { return sqlutil.Arg(v, false) })
}

// Open runs the query, so an unreachable file, an unknown table or a bad
// query fails before anything is written.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	db, err := openDB(s.path)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	s.db = db
	var start *connector.Value
	if s.cfg.ReplicationKey != "" {
		start = opts.StartBookmark
	}
	q, args := s.statement(start)
	if s.cfg.ReplicationKey != "" {
		q = withRawKey(q, s.cfg.ReplicationKey)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		db.Close()
		s.db = nil
		return fmt.Errorf("sqlite: %s: query %s: %w", s.path, s.what(), err)
	}
	s.rows = rows
	if err := s.describe(); err != nil {
		s.Close()
		return err
	}
	return nil
}

func (s *Source) what() string {
	w := fmt.Sprintf("%q", s.cfg.Query)
	if s.cfg.Table != "" {
		w = "table " + sqlutil.QuoteIdent(s.cfg.Table, '"')
	}
	if s.read.Shard != nil {
		w += " (" + s.read.Shard.String() + ")"
	}
	return w
}

func (s *Source) describe() error {
	cts, err := s.rows.ColumnTypes()
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", s.path, err)
	}
	s.cols = make([]string, len(cts))
	s.kinds = make([]colKind, len(cts))
	for i, ct := range cts {
		s.cols[i] = ct.Name()
		s.kinds[i] = kindOf(ct.DatabaseTypeName())
		if ct.Name() == s.cfg.ReplicationKey && s.keyAt < 0 {
			s.keyAt = i
		}
	}
	if s.cfg.ReplicationKey != "" && len(cts) > 0 && s.cols[len(cts)-1] == rawKeyColumn {
		s.rawAt = len(cts) - 1
		s.cols, s.kinds = s.cols[:s.rawAt], s.kinds[:s.rawAt]
	}
	if s.cfg.ReplicationKey != "" && s.keyAt < 0 {
		return connector.ConfigErrorf("replication_key", "%q is not a column of %s (columns: %s)", s.cfg.ReplicationKey, s.what(), strings.Join(s.cols, ", "))
	}
	return nil
}

// Next reads up to batch_size rows into a page.
func (s *Source) Next(ctx context.Context) (*connector.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.done || s.rows == nil {
		return nil, io.EOF
	}
	n := len(s.cols)
	if s.rawAt >= 0 {
		n++ // the stored key, scanned but not a field
	}
	raw := make([]any, n)
	ptrs := make([]any, n)
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	p := &connector.Page{Records: make([]connector.Record, 0, min(s.cfg.BatchSize, 4096))}
	fields := make([]connector.Field, 0, n*cap(p.Records))
	for len(p.Records) < s.cfg.BatchSize {
		if !s.rows.Next() {
			s.done = true
			if err := s.rows.Err(); err != nil {
				return nil, fmt.Errorf("sqlite: %s: read %s after row %d: %w", s.path, s.what(), s.row, err)
			}
			break
		}
		s.row++
		if err := s.rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("sqlite: %s: row %d: %w", s.path, s.row, err)
		}
		if len(fields)+n > cap(fields) {
			fields = make([]connector.Field, 0, n*cap(p.Records))
		}
		start := len(fields)
		for i, x := range raw[:len(s.cols)] {
			fields = append(fields, connector.Field{Key: s.cols[i], Value: decode(x, s.kinds[i])})
		}
		if s.rawAt >= 0 {
			s.lastKey = decode(raw[s.rawAt], kindPlain)
		}
		p.Records = append(p.Records, connector.Record{Fields: fields[start:len(fields):len(fields)]})
	}
	if len(p.Records) == 0 {
		return nil, io.EOF
	}
	if s.rawAt >= 0 {
		b := s.lastKey
		p.Bookmark = &b
	} else if s.keyAt >= 0 {
		b := p.Records[len(p.Records)-1].Fields[s.keyAt].Value
		p.Bookmark = &b
	}
	return p, nil
}

// Close ends the query and closes the database.
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

// Page bookmarks are cumulative: rows come in replication-key order, so
// the last key of a page is the highest read so far. The source therefore
// does not implement connector.BookmarkMerger (comparing the keys' faucet
// values could misorder timestamps with and without fractional seconds).
var _ connector.Source = (*Source)(nil)
