package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
)

// SinkConfig is the `config:` of a sqlite sink.
type SinkConfig struct {
	Path           string                `json:"path" doc:"SQLite database file; created if missing (sqlite:// and file: prefixes are accepted)."`
	DatabaseURL    string                `json:"database_url" doc:"faucet-cli 1.x spelling of path (sqlite://PATH)."`
	TableName      string                `json:"table_name" required:"true" doc:"Table to write."`
	ColumnMapping  any                   `json:"column_mapping" doc:"auto_map (default): each field to the column of the same name; or {json: {column: NAME}}: each record as JSON text in one column."`
	CreateTable    bool                  `json:"create_table" default:"false" doc:"Create the table from the first page's inferred column types when it does not exist (with a primary key on key)."`
	WriteMode      string                `json:"write_mode" default:"append" enum:"append,upsert,delete,overwrite" doc:"append inserts; upsert inserts or updates by key; delete removes by key; overwrite replaces the table's contents in one transaction at the end of a successful run."`
	Key            []string              `json:"key" doc:"Key columns for upsert and delete (a primary key or unique index on them must exist)."`
	DeleteMarker   *sqlutil.DeleteMarker `json:"delete_marker" doc:"upsert only: records whose field has one of values delete their key instead."`
	EvolveSchema   bool                  `json:"evolve_schema" default:"false" doc:"Add a nullable column for a field the table does not have (otherwise such a field is an error naming it)."`
	BatchSize      int                   `json:"batch_size" default:"1000" doc:"Rows per INSERT statement (also split under SQLite's 32766 bind variables)."`
	MaxConnections int                   `json:"max_connections" doc:"Accepted for compatibility with faucet-cli 1.x; has no effect."`
}

// Validate checks the rules the struct tags cannot express.
func (c *SinkConfig) Validate() error {
	if _, err := pickPath(c.Path, c.DatabaseURL); err != nil {
		return err
	}
	if strings.TrimSpace(c.TableName) == "" {
		return connector.ConfigErrorf("table_name", "must not be empty")
	}
	if c.BatchSize < 1 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 1 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	jsonCol, err := sqlutil.ParseMapping(c.ColumnMapping, "json")
	if err != nil {
		return err
	}
	if jsonCol != "" && (c.WriteMode == sqlutil.Upsert || c.WriteMode == sqlutil.Delete) {
		return connector.ConfigErrorf("column_mapping", "write_mode %s needs column_mapping: auto_map", c.WriteMode)
	}
	return sqlutil.CheckWriteSpec(c.WriteMode, c.Key, c.DeleteMarker)
}

// Sink writes pages into a table, one transaction per page.
type Sink struct {
	cfg     SinkConfig
	path    string
	jsonCol string // non-empty in json mapping mode
	log     *slog.Logger
	db      *sql.DB

	table   string // the table written to (the staging table under overwrite)
	cols    []tableCol
	colAt   map[string]int
	exists  bool
	staging bool // overwrite staging table created
}

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.path, _ = pickPath(s.cfg.Path, s.cfg.DatabaseURL)
	s.jsonCol, _ = sqlutil.ParseMapping(s.cfg.ColumnMapping, "json")
	return s, nil
}

// DatasetURI names the destination (sqlite://PATH?table=NAME).
func (s *Sink) DatasetURI() string { return "sqlite://" + s.path + "?table=" + s.cfg.TableName }

func (s *Sink) target() string { return sqlutil.QuoteIdent(s.cfg.TableName, '"') }

// Open opens (or creates) the database and reads the table's columns. A
// missing table is an error unless create_table is set; under overwrite
// the staging table is created now.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	if dir := filepath.Dir(s.path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("sqlite: create the directory of %s: %w", s.path, err)
		}
	}
	db, err := openWriter(ctx, s.path)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	s.db = db
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: open %s: %w", s.path, err)
	}
	s.table = s.cfg.TableName
	if err := s.loadColumns(ctx); err != nil {
		return err
	}
	if !s.exists && !s.cfg.CreateTable {
		return fmt.Errorf("sqlite: %s: table %s does not exist (set create_table: true to create it from the first page)", s.path, s.target())
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
	return s.write(ctx, p, nil)
}

// write runs the page's statements, then also (when non-nil) in the same
// transaction.
func (s *Sink) write(ctx context.Context, p *connector.Page, also func(*sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !s.exists && len(p.Records) > 0 {
		if err := s.createTable(ctx, p.Records); err != nil {
			return err
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: %s: begin: %w", s.path, err)
	}
	defer tx.Rollback()
	if len(p.Records) > 0 {
		if err := s.writePage(ctx, tx, p.Records); err != nil {
			_ = tx.Rollback()
			_ = s.loadColumns(ctx) // columns added in the rolled-back transaction are gone
			return err
		}
	}
	if also != nil {
		if err := also(tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: %s: commit into %s: %w", s.path, s.target(), err)
	}
	return nil
}

func (s *Sink) writePage(ctx context.Context, tx *sql.Tx, recs []connector.Record) error {
	if s.jsonCol != "" {
		return s.insertJSON(ctx, tx, recs)
	}
	switch s.cfg.WriteMode {
	case sqlutil.Upsert, sqlutil.Delete:
		plan, err := sqlutil.PlanWrites(recs, s.cfg.WriteMode, s.cfg.Key, s.cfg.DeleteMarker)
		if err != nil {
			return fmt.Errorf("sqlite: table %s: %w", s.target(), err)
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

// Close closes the database. An overwrite that was not committed with
// CommitOverwrite is abandoned: its staging table is dropped and the
// target keeps its old contents.
func (s *Sink) Close() error {
	if s.db == nil {
		return nil
	}
	var err error
	if s.staging {
		s.log.Warn("sqlite sink: overwrite not committed; the table keeps its previous contents", "table", s.cfg.TableName)
		err = s.AbortOverwrite(context.Background())
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	s.db = nil
	return err
}

var _ connector.Sink = (*Sink)(nil)
