package fileio

import (
	"fmt"
	"os"

	"github.com/faucet-hq/faucet/connectors/internal/keyshard"
)

// ShardItems lists the inputs pattern names with their sizes (0 when an
// input is not a local file), for keyshard.Enumerate.
func (in *Inputs) ShardItems(pattern string) ([]keyshard.Item, error) {
	names, err := in.Expand(pattern)
	if err != nil {
		return nil, err
	}
	items := make([]keyshard.Item, len(names))
	for i, n := range names {
		items[i].Name = n
		if in == nil {
			if st, err := os.Stat(n); err == nil {
				items[i].Size = st.Size()
			}
		}
	}
	return items, nil
}

// InShard keeps, in order, the inputs of shard d (all when d is nil). A
// shard left without input (its files were removed since the shards were
// enumerated) is an error naming it.
func InShard(d *keyshard.Shard, names []string) ([]string, error) {
	out := keyshard.Filter(d, names, func(n string) string { return n })
	if len(out) == 0 && d != nil {
		return nil, fmt.Errorf("shard %d of %d: none of the %d input(s) belongs to it any more", d.Index, d.Shards, len(names))
	}
	return out, nil
}
