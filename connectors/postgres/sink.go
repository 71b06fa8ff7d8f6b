package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5"
)

// SinkConfig is the `config:` of a postgres sink.
type SinkConfig struct {
	ConnectionURL  connector.Secret      `json:"connection_url" doc:"postgres://user:password@host:port/db?sslmode=..."`
	URL            connector.Secret      `json:"url" doc:"Alias of connection_url."`
	Schema         string                `json:"schema" doc:"Schema of the table (default: the search_path)."`
	TableName      string                `json:"table_name" required:"true" doc:"Table to write."`
	ColumnMapping  any                   `json:"column_mapping" doc:"auto_map: each field to the column of the same name; or {jsonb: {column: NAME}}: each record as one jsonb value (the default, as in faucet-cli 1.x, is {jsonb: {column: data}})."`
	WriteMethod    string                `json:"write_method" enum:"copy,insert" doc:"copy (COPY FROM STDIN, the default for append and overwrite) or insert (multi-row INSERT; always used for upsert and delete)."`
	CreateTable    bool                  `json:"create_table" default:"false" doc:"Create the table from the first page's inferred column types when it does not exist (with a primary key on key)."`
	WriteMode      string                `json:"write_mode" default:"append" enum:"append,upsert,delete,overwrite" doc:"append inserts; upsert inserts or updates by key; delete removes by key; overwrite replaces the table's contents in one transaction at the end of a successful run."`
	Key            []string              `json:"key" doc:"Key columns for upsert and delete (a primary key or unique index on them must exist for upsert)."`
	DeleteMarker   *sqlutil.DeleteMarker `json:"delete_marker" doc:"upsert only: records whose field has one of values delete their key instead."`
	EvolveSchema   bool                  `json:"evolve_schema" default:"false" doc:"Add a nullable column for a field the table does not have (otherwise such a field is an error naming it)."`
	BatchSize      int                   `json:"batch_size" default:"1000" doc:"Rows per INSERT statement (also split under 65535 bind parameters); 0 = the whole page."`
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
	if c.BatchSize < 0 || c.BatchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 0 and %d, got %d", connector.MaxPageSize, c.BatchSize)
	}
	jsonCol, err := mapping(c.ColumnMapping)
	if err != nil {
		return err
	}
	keyed := c.WriteMode == sqlutil.Upsert || c.WriteMode == sqlutil.Delete
	if jsonCol != "" && keyed {
		return connector.ConfigErrorf("column_mapping", "write_mode %s needs column_mapping: auto_map", c.WriteMode)
	}
	if c.WriteMethod == "copy" && keyed {
		return connector.ConfigErrorf("write_method", "copy only appends; write_mode %s needs write_method: insert", c.WriteMode)
	}
	return sqlutil.CheckWriteSpec(c.WriteMode, c.Key, c.DeleteMarker)
}

// mapping parses column_mapping; nil means faucet-cli 1.x's default, a
// jsonb column named data.
func mapping(v any) (string, error) {
	if v == nil {
		return "data", nil
	}
	return sqlutil.ParseMapping(v, "jsonb", "json")
}

// colSet is an immutable snapshot of the table's columns (EncodePage runs
// on engine workers while Write may add columns).
type colSet struct {
	cols []pgCol
	at   map[string]int
}

// Sink writes pages into a table.
type Sink struct {
	cfg     SinkConfig
	url     string
	jsonCol string
	useCopy bool
	log     *slog.Logger
	conn    *pgx.Conn

	table   string // unquoted name written to (the staging table under overwrite)
	set     atomic.Pointer[colSet]
	exists  atomic.Bool
	staging bool

	// tx is the transaction pages are written in since the last Flush:
	// one commit per checkpoint instead of one per page.
	tx pgx.Tx
	// COPY rows of consecutive pages with the same columns (pendHdr) are
	// sent as one COPY of up to copyBuffer bytes: one statement per page
	// halves the throughput (measured: 200k rows, 1000-row pages).
	pendHdr, pend []byte
	// uncertain is set when a write failed with the connection: its
	// commit may have happened (see alreadyCommitted in connlost.go).
	uncertain bool
	// copy is the COPY kept open for the pages of the transaction after
	// its first (copystream.go); it owns the connection while open.
	copy *copyStream
}

// copyBuffer is how many bytes of COPY rows are gathered per statement.
const copyBuffer = 4 << 20

func newSink(c connector.Config) (connector.Sink, error) {
	s := &Sink{}
	if err := c.Decode(&s.cfg); err != nil {
		return nil, err
	}
	s.url, _, _ = pickURL(s.cfg.ConnectionURL, s.cfg.URL)
	s.jsonCol, _ = mapping(s.cfg.ColumnMapping)
	keyed := s.cfg.WriteMode == sqlutil.Upsert || s.cfg.WriteMode == sqlutil.Delete
	s.useCopy = s.cfg.WriteMethod == "copy" || (s.cfg.WriteMethod == "" && !keyed)
	return s, nil
}

// DatasetURI names the destination, without credentials.
func (s *Sink) DatasetURI() string {
	return sqlutil.RedactURL(s.url) + "?table=" + qualified(s.cfg.Schema, s.cfg.TableName)
}

func (s *Sink) target() string { return sqlutil.QuoteQualified(s.cfg.Schema, s.cfg.TableName, '"') }
func (s *Sink) dest() string   { return sqlutil.QuoteQualified(s.cfg.Schema, s.table, '"') }

// Open connects and reads the table's columns. A missing table is an
// error unless create_table is set; under overwrite the staging table is
// created now.
func (s *Sink) Open(ctx context.Context, opts connector.SinkOptions) error {
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	conn, err := connect(ctx, s.url)
	if err != nil {
		return err
	}
	s.conn = conn
	s.table = s.cfg.TableName
	if err := s.loadColumns(ctx); err != nil {
		return err
	}
	if !s.exists.Load() && !s.cfg.CreateTable {
		return fmt.Errorf("postgres: table %s does not exist (set create_table: true to create it from the first page)", s.target())
	}
	if s.cfg.WriteMode == sqlutil.Overwrite && s.exists.Load() {
		return s.beginOverwrite(ctx)
	}
	return nil
}

// Write writes one page (COPY, or INSERT and DELETE statements) into the
// transaction that the next Flush commits.
func (s *Sink) Write(ctx context.Context, p *connector.Page) error {
	if len(p.Records) == 0 {
		return nil
	}
	if err := s.settle(); err != nil {
		return s.writeFailed(ctx, err, false)
	}
	alone, err := s.ensureConn(ctx)
	if err != nil {
		return err
	}
	return s.writeFailed(ctx, s.write(ctx, p, nil), alone)
}

// write writes the page; when also is non-nil it runs in the same
// transaction (and COPY runs inside it too).
func (s *Sink) write(ctx context.Context, p *connector.Page, also func(pgx.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !s.exists.Load() && len(p.Records) > 0 {
		if err := s.createTable(ctx, p.Records); err != nil {
			return err
		}
	}
	if s.jsonCol == "" {
		if err := s.ensureColumns(ctx, p.Records); err != nil {
			return err
		}
	}
	var data []byte
	if s.useCopy && len(p.Records) > 0 {
		var err error
		if data, err = s.encode(p, nil); err != nil {
			return err
		}
	}
	if also == nil {
		return s.writeOpen(ctx, p.Records, data)
	}
	// Effectively-once: the page and its token commit together, alone.
	if err := s.Flush(ctx); err != nil {
		return err
	}
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: begin: %s", redactErr(s.url, err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	switch {
	case data != nil:
		err = s.copyEncoded(ctx, data) // same connection: inside tx
	case len(p.Records) > 0:
		err = s.writeTx(ctx, tx, p.Records)
	}
	if err != nil {
		return err
	}
	if err := also(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: commit into %s: %s", s.dest(), pgMessage(err))
	}
	return nil
}

// writeOpen writes into the transaction that Flush commits (beginning it
// if needed). On failure the transaction, with every page written since
// the last Flush, is rolled back: the engine then keeps the bookmark of
// the last flush, so those pages are read again on the next run.
func (s *Sink) writeOpen(ctx context.Context, recs []connector.Record, data []byte) error {
	if s.tx == nil {
		tx, err := s.conn.Begin(ctx)
		if err != nil {
			return fmt.Errorf("postgres: begin: %s", redactErr(s.url, err))
		}
		s.tx = tx
	}
	var err error
	if data != nil {
		err = s.queueCopy(ctx, data)
	} else {
		if err = s.sendPending(ctx); err != nil {
			return err
		}
		err = s.writeTx(ctx, s.tx, recs)
	}
	if err != nil {
		s.rollback()
	}
	return err
}

// rollback abandons the open transaction and re-reads the columns (DDL in
// it is undone too).
func (s *Sink) rollback() {
	s.abandon()
	s.pend, s.pendHdr = s.pend[:0], nil
	if s.tx == nil {
		return
	}
	ctx := context.Background()
	_ = s.tx.Rollback(ctx)
	s.tx = nil
	_ = s.loadColumns(ctx)
}

func (s *Sink) writeTx(ctx context.Context, tx pgx.Tx, recs []connector.Record) error {
	if s.jsonCol != "" {
		return s.insertRows(ctx, tx, recs, false)
	}
	switch s.cfg.WriteMode {
	case sqlutil.Upsert, sqlutil.Delete:
		plan, err := sqlutil.PlanWrites(recs, s.cfg.WriteMode, s.cfg.Key, s.cfg.DeleteMarker)
		if err != nil {
			return fmt.Errorf("postgres: table %s: %w", s.dest(), err)
		}
		if err := s.deleteKeys(ctx, tx, plan.Deletes); err != nil {
			return err
		}
		return s.insertRows(ctx, tx, plan.Upserts, true)
	}
	return s.insertRows(ctx, tx, recs, false)
}

// Flush commits the pages written since the last Flush. A connection
// lost before the commit took those pages with it: that is an error
// (never retried), so the engine keeps the previous bookmark.
func (s *Sink) Flush(ctx context.Context) error {
	return s.writeFailed(ctx, s.flush(ctx), false)
}

func (s *Sink) flush(ctx context.Context) error {
	if err := s.sendPending(ctx); err != nil {
		return err
	}
	if s.tx == nil {
		return nil
	}
	err := s.tx.Commit(ctx)
	s.tx = nil
	if err != nil {
		_ = s.loadColumns(context.Background())
		return fmt.Errorf("postgres: commit into %s: %s", s.dest(), pgMessage(err))
	}
	return nil
}

// Close closes the connection. An overwrite that was not committed with
// CommitOverwrite is abandoned: the staging table is dropped and the
// target keeps its old contents.
func (s *Sink) Close() error {
	if s.conn == nil {
		return nil
	}
	s.rollback() // pages not flushed are not durable by contract
	var err error
	if s.staging {
		s.log.Warn("postgres sink: overwrite not committed; the table keeps its previous contents", "table", s.target())
		err = s.AbortOverwrite(context.Background())
	}
	if cerr := s.conn.Close(context.Background()); err == nil {
		err = cerr
	}
	s.conn = nil
	return err
}

var (
	_ connector.Sink        = (*Sink)(nil)
	_ connector.PageEncoder = (*Sink)(nil)
)
