package mysql

import "github.com/faucet-hq/faucet/connector"

// CheckReplay: with a replication_key the source reads in key order from
// its bookmark, so a replay from a committed page's bookmark emits what
// followed it (delivery: exactly_once).
func (s *Source) CheckReplay() error {
	if s.cfg.ReplicationKey == "" {
		return connector.ErrNoReplicationKey
	}
	return nil
}
