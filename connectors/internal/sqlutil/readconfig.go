package sqlutil

// ReadConfig is the part of a SQL source's `config:` that the postgres,
// mysql and sqlite sources share. Each embeds it next to its connection
// and query options (connector.Config.Decode takes embedded fields as the
// source's own keys).
type ReadConfig struct {
	Table          string       `json:"table" doc:"Table to read (all columns, or columns). Exclusive with query."`
	Columns        []string     `json:"columns" doc:"Columns to read from table (default all)."`
	Params         []any        `json:"params" doc:"Positional bind parameters of query."`
	BatchSize      int          `json:"batch_size" default:"1000" doc:"Rows per page."`
	ReplicationKey string       `json:"replication_key" doc:"Column ordering rows for incremental reads: rows are read in its order and only those above the saved bookmark (the last key read) are emitted."`
	MaxConnections int          `json:"max_connections" doc:"Accepted for compatibility with faucet-cli 1.x; the source uses one connection."`
	Shard          *ShardConfig `json:"shard" doc:"Make the source shardable in cluster mode: {key: integer column}; each shard reads one range of the key."`
}

// Check validates these options together with the source's query (see
// CheckRead).
func (c *ReadConfig) Check(query string) error {
	return CheckRead(query, c.Table, c.Columns, c.BatchSize, c.Params, c.Shard)
}
