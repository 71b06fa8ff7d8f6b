package cli

// The components this binary links: every connector package and the
// built-in transforms register themselves from init.
import (
	_ "github.com/faucet-hq/faucet/connectors/all"
	_ "github.com/faucet-hq/faucet/transforms"
)
