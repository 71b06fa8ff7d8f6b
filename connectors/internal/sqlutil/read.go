package sqlutil

import (
	"context"
	"fmt"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Read is the statement a SQL source runs, built from the options the
// sources share. The layers nest from the inside out:
//
//	base:        the query, or SELECT columns FROM table
//	shard:       SELECT * FROM (base) AS _faucet_shard WHERE <key range>
//	incremental: SELECT * FROM (...) AS _faucet_src WHERE rk > ? ORDER BY rk
//
// so a shard is read in replication-key order from its own bookmark, and
// bind arguments are numbered in that order.
type Read struct {
	Dialect        Dialect
	Query          string // a SELECT; exclusive with Table
	Schema         string // of Table (postgres); may be empty
	Table          string
	Columns        []string // of Table; empty means *
	Args           []any    // bind arguments of Query (see ParamArgs)
	ReplicationKey string
	ShardKey       string      // shard.key; empty when the source is not sharded
	Shard          *ShardRange // the applied shard; nil reads every row
}

// CheckRead validates the read options the SQL sources share, without
// I/O: exactly one of query and table, columns only with a table, the
// page size, the bind parameters and the shard option.
func CheckRead(query, table string, columns []string, batchSize int, params []any, shard *ShardConfig) error {
	if (strings.TrimSpace(query) == "") == (strings.TrimSpace(table) == "") {
		return connector.ConfigErrorf("query", "give exactly one of query and table")
	}
	if len(columns) > 0 && table == "" {
		return connector.ConfigErrorf("columns", "only applies with table")
	}
	if batchSize < 1 || batchSize > connector.MaxPageSize {
		return connector.ConfigErrorf("batch_size", "must be between 1 and %d, got %d", connector.MaxPageSize, batchSize)
	}
	if err := shard.Check(); err != nil {
		return err
	}
	_, err := ParamArgs(params)
	return err
}

// Base is the query, or the table's SELECT, with a copy of its arguments.
func (r *Read) Base() (string, []any) {
	args := append([]any(nil), r.Args...)
	if r.Table == "" {
		return strings.TrimRight(strings.TrimSpace(r.Query), ";"), args
	}
	cols := "*"
	if len(r.Columns) > 0 {
		qc := make([]string, len(r.Columns))
		for i, c := range r.Columns {
			qc[i] = r.Dialect.Ident(c)
		}
		cols = strings.Join(qc, ", ")
	}
	return "SELECT " + cols + " FROM " + QuoteQualified(r.Schema, r.Table, r.Dialect.Quote), args
}

// Statement is Base restricted to the applied shard and, with a
// replication key, to the rows above start (unless it is nil or null,
// bound as arg(*start)) in key order.
func (r *Read) Statement(start *connector.Value, arg func(connector.Value) any) (string, []any) {
	q, args := r.Base()
	q, args = r.Shard.Restrict(r.Dialect, q, args)
	if r.ReplicationKey == "" {
		return q, args
	}
	key := r.Dialect.Ident(r.ReplicationKey)
	q = "SELECT * FROM (" + q + ") AS _faucet_src"
	if start != nil && !start.IsNull() {
		args = append(args, arg(*start))
		q += " WHERE " + key + " > " + r.Dialect.Param(len(args))
	}
	return q + " ORDER BY " + key, args
}

// EnumerateShards plans at most target shards of the rows of Base from
// one bounds probe (see the package function EnumerateShards).
func (r *Read) EnumerateShards(ctx context.Context, target int, probe BoundsFunc) ([]connector.ShardSpec, error) {
	if r.ShardKey == "" {
		return nil, fmt.Errorf("not sharded: set shard.key")
	}
	q, args := r.Base()
	return EnumerateShards(ctx, r.Dialect, q, args, r.ShardKey, target, probe)
}

// ApplyShard restricts the read to the shard spec describes; a
// descriptor that EnumerateShards did not make for ShardKey is an error.
func (r *Read) ApplyShard(spec connector.ShardSpec) error {
	if r.ShardKey == "" {
		return fmt.Errorf("not sharded: set shard.key")
	}
	s, err := ParseShard(spec, r.ShardKey)
	if err != nil {
		return err
	}
	r.Shard = s
	return nil
}

// Sharding implements connector.Sharder for a SQL source's Read. A
// package embeds it, next to its source, in the type newSource returns
// when shard.key is set.
type Sharding struct {
	Read *Read
	// Connect opens a connection for the bounds probe and returns the
	// probe and the function that closes the connection.
	Connect func(ctx context.Context) (BoundsFunc, func(), error)
	// Where prefixes errors with the connector and what it reads.
	Where func() string
}

// EnumerateShards probes the key's range over the rows the source reads
// and cuts it into at most target shards.
func (s Sharding) EnumerateShards(ctx context.Context, target int) ([]connector.ShardSpec, error) {
	probe, done, err := s.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	specs, err := s.Read.EnumerateShards(ctx, target, probe)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Where(), err)
	}
	return specs, nil
}

// ApplyShard restricts the source to one shard; it is called before Open.
func (s Sharding) ApplyShard(spec connector.ShardSpec) error {
	if err := s.Read.ApplyShard(spec); err != nil {
		return fmt.Errorf("%s: %w", s.Where(), err)
	}
	return nil
}

var _ connector.Sharder = Sharding{}
