package json

import (
	"context"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// Check probes that the input file(s) exist and can be read.
func (s *Source) Check(context.Context) []connector.CheckResult {
	return []connector.CheckResult{fileio.CheckReadable(s.cfg.Path, s.cfg.Compression)}
}
