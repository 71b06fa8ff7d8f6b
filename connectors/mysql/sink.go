package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// SinkConfig is the `config:` of a mysql sink.
type SinkConfig struct {
	ConnectionURL  connector.Secret      `json:"connection_url" doc:"mysql://user:password@host:port/db (or a go-sql-driver DSN)."`
	URL            connector.Secret      `json:"url" doc:"Alias of connection_url."`
	TableName      string                `json:"table_name" required:"true" doc:"Table to write (in the connection's database)."`
	ColumnMapping  any                   `json:"column_mapping" doc:"auto_map: each field to the column of the same name; or {json: {column: NAME}}: each record as JSON in one column (the default, as in faucet-cli 1.x, is {json: {column: data}})."`
	CreateTable    bool                  `json:"create_table" default:"false" doc:"Create the table from the first page's inferred column types when it does not exist (with a primary key on key)."`
	WriteMode      string                `json:"write_mode" default:"append" enum:"append,upsert,delete,overwrite" doc:"append inserts; upsert inserts or updates by key (ON DUPLICATE KEY UPDATE); delete removes by key; overwrite swaps in a fully loaded staging table at the end of a successful run."`
	Key            []string              `json:"key" doc:"Key columns for upsert and delete (a primary key or unique index on them must exist for upsert)."`
	DeleteMarker   *sqlutil.DeleteMarker `json:"delete_marker" doc:"upsert only: records whose field has one of values delete their key instead."`
	EvolveSchema   bool                  `json:"evolve_schema" default:"false" doc:"Add a nullable column for a field the table does not have (otherwise such a field is an error naming it)."`
	BatchSize      int                   `json:"batch_size" default:"1000" doc:"Rows per INSERT statement (also split under 65535 placeholders)."`
	MaxConnections int                   `json:"max_connections" doc:"Accepted for compatibility with faucet-cli 1.x; the sink uses one connection."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	raw, key, err := pickURL(c.ConnectionURL, c.URL)
	if err != nil {
		return err
	}
	if err := checkURL(key, raw); err != nil {
		return err
	}
	if strings.TrimSpace(c.TableName) == "" {
		return connector.ConfigErrorf("table_name", "must not be empty")
	}
	if c.BatchSize < 1 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 1 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	jsonCol, err := mapping(c.ColumnMapping)
	if err != nil {
		return err
	}
	if jsonCol != "" && (c.WriteMode == sqlutil.Upsert || c.WriteMode == sqlutil.Delete) {
		return connector.ConfigErrorf("column_mapping", "write_mode %s needs column_mapping: auto_map", c.WriteMode)
	}
	return sqlutil.CheckWriteSpec(c.WriteMode, c.Key, c.DeleteMarker)
}

// mapping parses column_mapping; nil means faucet-cli 1.x's default, a
// JSON column named data.
func mapping(v any) (string, error) {
	if v == nil {
		return "data", nil
	}
	return sqlutil.ParseMapping(v, "json")
}

// Sink writes pages into a table, one transaction per page.
type Sink struct {
	cfg     SinkConfig
	url     string
	jsonCol string
	log     *slog.Logger
	db      *sql.DB

	table   string // the table written to (the staging table under overwrite)
	cols    []myCol
	colAt   map[string]int
	exists  bool
	staging bool
	// uncertain is set when a write failed with the connection: its
	// commit may have happened (see alreadyCommitted in connlost.go).
	uncertain bool
	// stmt and scratch are reused by every INSERT the sink writes (write.go).
	stmt, scratch []byte
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.url, _, _ = pickURL(s.cfg.ConnectionURL, s.cfg.URL)
	s.jsonCol, _ = mapping(s.cfg.ColumnMapping)
	return s, nil
}

// DatasetURI names the destination, without credentials.
func (s *Sink) DatasetURI() string { return sqlutil.RedactURL(s.url) + "?table=" + s.cfg.TableName }

func (s *Sink) target() string { return quote(s.cfg.TableName) }

// Open connects and reads the table's columns. A missing table is an
// error unless create_table is set; under overwrite the staging table is
// created now.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	db, err := open(s.url)
	if err != nil {
		return err
	}
	s.db = db
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("mysql: connect to %s: %s", sqlutil.RedactURL(s.url), redactErr(s.url, err))
	}
	s.table = s.cfg.TableName
	if err := s.loadColumns(ctx); err != nil {
		return err
	}
	if !s.exists && !s.cfg.CreateTable {
		return fmt.Errorf("mysql: table %s does not exist (set create_table: true to create it from the first page)", s.target())
	}
	if s.cfg.WriteMode == sqlutil.Overwrite && s.exists {
		return s.beginOverwrite(ctx)
	}
	return nil
}

// Write writes one page in one transaction.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if len(p.Records) == 0 {
		return nil
	}
	return s.writeFailed(ctx, s.write(ctx, p, nil))
}

// write writes the page; also, when non-nil, runs in the same transaction.
func (s *Sink) write(ctx context.Context, p *connector.Page, also func(*sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !s.exists && len(p.Records) > 0 {
		if err := s.createTable(ctx, p.Records); err != nil {
			return err
		}
	}
	// DDL commits implicitly in MySQL, so new columns are added before the
	// page's transaction begins.
	if s.jsonCol == "" {
		if err := s.ensureColumns(ctx, p.Records); err != nil {
			return err
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mysql: begin: %w", redacted(s.url, err))
	}
	defer tx.Rollback()
	if len(p.Records) > 0 {
		if err := s.writeTx(ctx, tx, p.Records); err != nil {
			return err
		}
	}
	if also != nil {
		if err := also(tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("mysql: commit into %s: %w", quote(s.table), redacted(s.url, err))
	}
	return nil
}

func (s *Sink) writeTx(ctx context.Context, tx *sql.Tx, recs []connector.Record) error {
	if s.jsonCol != "" {
		return s.insertRows(ctx, tx, recs, false)
	}
	switch s.cfg.WriteMode {
	case sqlutil.Upsert, sqlutil.Delete:
		plan, err := sqlutil.PlanWrites(recs, s.cfg.WriteMode, s.cfg.Key, s.cfg.DeleteMarker)
		if err != nil {
			return fmt.Errorf("mysql: table %s: %w", quote(s.table), err)
		}
		if err := s.deleteKeys(ctx, tx, plan.Deletes); err != nil {
			return err
		}
		return s.insertRows(ctx, tx, plan.Upserts, true)
	}
	return s.insertRows(ctx, tx, recs, false)
}

// Flush is a no-op: every page is committed by Write.
func (s *Sink) Flush(ctx context.Context) error { return nil }

// Close closes the connection. An overwrite that was not committed with
// CommitOverwrite is abandoned: the staging table is dropped and the
// target keeps its old contents.
func (s *Sink) Close() error {
	if s.db == nil {
		return nil
	}
	var err error
	if s.staging {
		s.log.Warn("mysql sink: overwrite not committed; the table keeps its previous contents", "table", s.cfg.TableName)
		err = s.AbortOverwrite(context.Background())
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	s.db = nil
	return err
}

var _ connector.Sink = (*Sink)(nil)
