package connector

import (
	"context"
	"encoding/json"
)

// ShardSpec names one part of a source's data set (cluster mode B). ID is
// unique among the shards of one enumeration and contains no ':' (it
// becomes a state-key suffix "::<id>"); Descriptor is the source's own
// description of the part, opaque to everyone else and stored as JSON in
// the run history; SizeEstimate, when known, lets claimers take the
// largest shards first. The whole data set is the shard with ID "0" and a
// null Descriptor.
type ShardSpec struct {
	ID           string          `json:"id"`
	Descriptor   json.RawMessage `json:"descriptor"`
	SizeEstimate *int64          `json:"size_estimate,omitempty"`
}

// Sharder is implemented by sources whose data set can be split into
// disjoint parts that together hold every record exactly once.
//
// EnumerateShards is called on a configured but unopened source and
// returns at most target shards (fewer when the data set is smaller, and
// the single whole-data-set shard when it cannot be split). ApplyShard is
// called on a fresh source before Open and restricts it to one part; a
// descriptor it did not produce is an error.
type Sharder interface {
	EnumerateShards(ctx context.Context, target int) ([]ShardSpec, error)
	ApplyShard(spec ShardSpec) error
}

// WholeShard is the shard that stands for the whole data set.
func WholeShard() ShardSpec { return ShardSpec{ID: "0", Descriptor: json.RawMessage("null")} }
