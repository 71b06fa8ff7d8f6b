package parquet

import (
	"context"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// Check probes that the input names at least one file and that the first
// one is a Parquet file whose footer reads and holds the configured
// columns. Nothing is streamed.
func (s *Source) Check(context.Context) []connector.CheckResult {
	files, err := fileio.Expand(s.cfg.Path)
	if err != nil {
		return []connector.CheckResult{connector.Failed("read", err, "check the path (relative paths are resolved from the working directory)")}
	}
	f, pf, err := openFile(files[0])
	if err != nil {
		return []connector.CheckResult{connector.Failed("read", err, "check that the file is a complete Parquet file")}
	}
	defer f.Close()
	if _, _, err := planFields(pf.Schema(), s.cfg.Columns); err != nil {
		return []connector.CheckResult{connector.Passed("read"), connector.Failed("columns", err, "fix the columns list")}
	}
	return []connector.CheckResult{connector.Passed("read"), connector.Passed("columns")}
}

// Check probes that the output file can be created, without creating it.
func (s *Sink) Check(context.Context) []connector.CheckResult {
	return []connector.CheckResult{fileio.CheckWritable(s.cfg.Path)}
}
