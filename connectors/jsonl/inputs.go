package jsonl

import (
	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// NewSourceFrom is a jsonl source that reads the inputs in (the objects of
// a bucket, see connectors/s3) instead of local files; c configures the
// parsing as for a file, its path only labels the input.
func NewSourceFrom(c connector.Config, in *fileio.Inputs) (connector.Source, error) {
	src, err := newSource(c)
	if err != nil {
		return nil, err
	}
	src.(*Source).In = in
	return src, nil
}
