// Package all links every connector into the binary: importing it for its
// side effects registers each source and sink kind with connector.Default.
// A new connector package is added here with a blank import.
package all

import (
	// File and console connectors.
	_ "github.com/faucet-hq/faucet/connectors/csv"
	_ "github.com/faucet-hq/faucet/connectors/json"
	_ "github.com/faucet-hq/faucet/connectors/jsonl"
	_ "github.com/faucet-hq/faucet/connectors/parquet"
	_ "github.com/faucet-hq/faucet/connectors/stdout"

	// Databases.
	_ "github.com/faucet-hq/faucet/connectors/mysql"
	_ "github.com/faucet-hq/faucet/connectors/postgres"
	_ "github.com/faucet-hq/faucet/connectors/redis"
	_ "github.com/faucet-hq/faucet/connectors/sqlite"

	// Message brokers.
	_ "github.com/faucet-hq/faucet/connectors/kafka"
	_ "github.com/faucet-hq/faucet/connectors/nats"

	// Web APIs.
	_ "github.com/faucet-hq/faucet/connectors/http"
	_ "github.com/faucet-hq/faucet/connectors/rest"

	// Object stores.
	_ "github.com/faucet-hq/faucet/connectors/s3"
)
