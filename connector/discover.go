package connector

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Dataset discovery (`faucet discover`): a source kind that can list the
// tables behind its connection registers a DiscoverSpec. The CLI turns the
// datasets into a pipeline file with one matrix row per dataset, each row
// deep-merging the dataset's Patch over the connection config.

// Dataset is one table found behind a source's connection.
type Dataset struct {
	// Name identifies the dataset for people and for the --include and
	// --exclude patterns: schema-qualified where the system has schemas
	// ("public.orders"), the bare table name otherwise.
	Name string
	// Kind is what the dataset is ("table"). Views are not listed.
	Kind    string
	Columns []Column
	// PrimaryKey lists the primary key's columns in key order (empty when
	// the table has none).
	PrimaryKey []string
	// EstimatedRows is the catalog's row estimate, nil when it has none.
	// It never comes from a scan.
	EstimatedRows *int64
	// ReplicationKey is the suggested incremental key
	// (SuggestReplicationKey), "" when the table has no obvious one.
	ReplicationKey string
	// Patch is the part of the source config that reads exactly this
	// dataset (query or table, and replication_key when suggested). It is
	// merged over the connection config and never holds credentials.
	Patch Record
}

// Column is one column of a dataset.
type Column struct {
	Name string
	// DBType is the type as the database declares it ("numeric(10,2)",
	// "timestamp with time zone", "VARCHAR(20)").
	DBType string
	// Type is the kind of value the source emits for the column.
	Type     ColumnType
	Nullable bool
}

// ColumnType is the kind of faucet value a source emits for a column.
type ColumnType string

// The column types.
const (
	ColumnInteger   ColumnType = "integer"
	ColumnNumber    ColumnType = "number"  // floating point
	ColumnDecimal   ColumnType = "decimal" // exact numbers, emitted as text
	ColumnBoolean   ColumnType = "boolean"
	ColumnString    ColumnType = "string"
	ColumnTimestamp ColumnType = "timestamp" // date and time, emitted as RFC 3339 text
	ColumnDate      ColumnType = "date"      // a calendar date without time of day
	ColumnJSON      ColumnType = "json"      // emitted as nested values
	ColumnArray     ColumnType = "array"
	ColumnBinary    ColumnType = "binary" // emitted as base64 text
)

// DiscoverOptions narrow a discovery.
type DiscoverOptions struct {
	// Schemas, when not empty, restricts discovery to these schemas.
	// Sources without schemas reject it.
	Schemas []string
}

// DiscoverSpec describes how to discover the datasets of a source kind.
type DiscoverSpec struct {
	// Source is the source kind ("postgres").
	Source string
	// ConnectionKey is the config key that holds the connection (a URL or
	// a file path): `faucet discover TYPE --url U` builds the config
	// {ConnectionKey: U}.
	ConnectionKey string
	// Discover connects with the connection keys of cfg (a source config
	// block; query, table and the like are not required) and lists the
	// datasets in a stable order. It reads catalog metadata only, never
	// table data, and leaves out faucet's own bookkeeping tables (commit
	// tokens, overwrite staging tables). Errors never show a password.
	Discover func(ctx context.Context, cfg Config, opts DiscoverOptions) ([]Dataset, error)
}

// Discoverers maps source kinds to their DiscoverSpec. Connectors add
// theirs to DefaultDiscoverers from init; tests may build their own.
type Discoverers struct {
	mu    sync.RWMutex
	specs map[string]DiscoverSpec
}

// NewDiscoverers returns an empty set.
func NewDiscoverers() *Discoverers { return &Discoverers{specs: map[string]DiscoverSpec{}} }

// DefaultDiscoverers is the set the binary uses.
var DefaultDiscoverers = NewDiscoverers()

// RegisterDiscover adds s to DefaultDiscoverers.
func RegisterDiscover(s DiscoverSpec) { DefaultDiscoverers.Add(s) }

// Add registers s; a duplicate or invalid name panics (a programming error).
func (d *Discoverers) Add(s DiscoverSpec) {
	checkName("discover", s.Source)
	if s.Discover == nil || s.ConnectionKey == "" {
		panic("connector: discover spec " + s.Source + " needs Discover and ConnectionKey")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, dup := d.specs[s.Source]; dup {
		panic("connector: duplicate discover spec " + s.Source)
	}
	d.specs[s.Source] = s
}

// Lookup returns the spec of source kind name, or an error naming the
// kinds that support discovery.
func (d *Discoverers) Lookup(name string) (DiscoverSpec, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	s, ok := d.specs[name]
	if !ok {
		return s, fmt.Errorf("source type %q does not support dataset discovery (supported: %s)", name, strings.Join(keys(d.specs), ", "))
	}
	return s, nil
}

// Names lists the source kinds that support discovery, sorted.
func (d *Discoverers) Names() []string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return keys(d.specs)
}

// updatedNames are the column names (lower case, without '_', '-' and
// spaces) that SuggestReplicationKey takes for "last changed at".
var updatedNames = map[string]bool{
	"updatedat": true, "modifiedat": true, "lastmodified": true, "lastmodifiedat": true,
	"lastupdated": true, "lastupdatedat": true, "updatedon": true, "modifiedon": true,
	"updatetime": true, "updatedtime": true, "modifytime": true, "modificationtime": true,
	"datemodified": true, "dateupdated": true, "modifieddate": true, "updateddate": true,
	"updated": true, "modified": true,
}

// SuggestReplicationKey picks the column an incremental read should
// follow, or "" when there is no obvious one. The rule, in order:
//
//  1. the first NOT NULL timestamp column named like "last changed at"
//     (updated_at, modified_at, last_modified, last_updated, updated_on,
//     update_time, date_modified, ... in any case, with or without '_'),
//     since it also picks up rows changed after they were first read;
//  2. else the primary key, when it is a single NOT NULL integer column
//     (new rows only).
//
// Nullable columns are never suggested: rows whose key is NULL would never
// be read again after the first run.
func SuggestReplicationKey(cols []Column, primaryKey []string) string {
	for _, c := range cols {
		if c.Type != ColumnTimestamp || c.Nullable {
			continue
		}
		norm := strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == ' ' {
				return -1
			}
			return r
		}, strings.ToLower(c.Name))
		if updatedNames[norm] {
			return c.Name
		}
	}
	if len(primaryKey) == 1 {
		for _, c := range cols {
			if c.Name == primaryKey[0] && c.Type == ColumnInteger && !c.Nullable {
				return c.Name
			}
		}
	}
	return ""
}
