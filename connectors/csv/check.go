package csv

import (
	"context"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// Check probes that the input file(s) exist and can be read.
func (s *Source) Check(context.Context) []connector.CheckResult {
	return []connector.CheckResult{fileio.CheckReadable(s.cfg.Path, s.cfg.Compression)}
}

// Check probes that the output file can be created, without creating it.
func (s *Sink) Check(context.Context) []connector.CheckResult {
	return []connector.CheckResult{fileio.CheckWritable(s.cfg.Path)}
}
