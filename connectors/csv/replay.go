package csv

import "github.com/faucet-hq/faucet/connector"

// CheckReplay: with a replication_key the source emits, in file order, the
// rows above its bookmark, and each page's bookmark is the highest key read
// so far. A replay from a committed page's bookmark therefore emits what
// followed that page as long as keys grow in file order (an append-only
// log), which is the contract of incremental reads from files anyway.
func (s *Source) CheckReplay() error {
	if s.cfg.ReplicationKey == "" {
		return connector.ErrNoReplicationKey
	}
	return nil
}
