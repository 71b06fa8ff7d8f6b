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
	Path           string   `json:"path" doc:"SQLite database file (sqlite:// and file: prefixes are accepted)."`
	DatabaseURL    string   `json:"database_url" doc:"faucet-cli 1.x spelling of path (sqlite://PATH)."`
	Query          string   `json:"query" doc:"SQL query to read; use ? for params. Exclusive with table."`
	Table          string   `json:"table" doc:"Table to read (all columns, or columns). Exclusive with query."`
	Columns        []string `json:"columns" doc:"Columns to read from table (default all)."`
	Params         []any    `json:"params" doc:"Positional bind parameters of query."`
	BatchSize      int      `json:"batch_size" default:"1000" doc:"Rows per page."`
	ReplicationKey string   `json:"replication_key" doc:"Column ordering rows for incremental reads: rows are read in its order and only those above the saved bookmark (the last key read) are emitted."`
	MaxConnections int      `json:"max_connections" doc:"Accepted for compatibility with faucet-cli 1.x; has no effect."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SourceConfig) Validate() error {
	if _, err := pickPath(c.Path, c.DatabaseURL); err != nil {
		return err
	}
	if (strings.TrimSpace(c.Query) == "") == (strings.TrimSpace(c.Table) == "") {
		return connector.ConfigErrorf("query", "give exactly one of query and table")
	}
	if len(c.Columns) > 0 && c.Table == "" {
		return connector.ConfigErrorf("columns", "only applies with table")
	}
	if c.BatchSize < 1 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 1 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	if _, err := sqlutil.ParamArgs(c.Params); err != nil {
		return err
	}
	return nil
}

// Source streams the rows of one query.
type Source struct {
	cfg   SourceConfig
	path  string
	db    *sql.DB
	rows  *sql.Rows
	cols  []string
	kinds []colKind
	keyAt int // index of the replication key column, or -1
	row   int64
	done  bool
}

func newSource(c connector.Config) (connector.Source, error) {
	s := &Source{keyAt: -1}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.path, _ = pickPath(s.cfg.Path, s.cfg.DatabaseURL)
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
	args, _ := sqlutil.ParamArgs(s.cfg.Params)
	var q string
	if s.cfg.Table != "" {
		cols := "*"
		if len(s.cfg.Columns) > 0 {
			qc := make([]string, len(s.cfg.Columns))
			for i, c := range s.cfg.Columns {
				qc[i] = sqlutil.QuoteIdent(c, '"')
			}
			cols = strings.Join(qc, ", ")
		}
		q = "SELECT " + cols + " FROM " + sqlutil.QuoteIdent(s.cfg.Table, '"')
	} else {
		q = strings.TrimRight(strings.TrimSpace(s.cfg.Query), ";")
	}
	rk := s.cfg.ReplicationKey
	if rk == "" {
		return q, args
	}
	key := sqlutil.QuoteIdent(rk, '"')
	q = "SELECT * FROM (" + q + ") AS _faucet_src"
	if start != nil && !start.IsNull() {
		q += " WHERE " + key + " > ?"
		args = append(args, sqlutil.Arg(*start, false))
	}
	return q + " ORDER BY " + key, args
}

// Open runs the query, so an unreachable file, an unknown table or a bad
// query fails before anything is written.
func (s *Source) Open(ctx context.Context, opts connector.SourceOptions) error {
	db, err := openDB(s.path, false)
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
	if s.cfg.Table != "" {
		return "table " + sqlutil.QuoteIdent(s.cfg.Table, '"')
	}
	return fmt.Sprintf("%q", s.cfg.Query)
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
		if ct.Name() == s.cfg.ReplicationKey {
			s.keyAt = i
		}
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
		for i, x := range raw {
			fields = append(fields, connector.Field{Key: s.cols[i], Value: decode(x, s.kinds[i])})
		}
		p.Records = append(p.Records, connector.Record{Fields: fields[start:len(fields):len(fields)]})
	}
	if len(p.Records) == 0 {
		return nil, io.EOF
	}
	if s.keyAt >= 0 {
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
