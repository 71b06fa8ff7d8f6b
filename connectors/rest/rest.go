package rest

import "github.com/faucet-hq/faucet/connector"

func init() {
	connector.RegisterSource(connector.SourceSpec{
		Name:    "rest",
		Summary: "Read a paginated JSON API (link header, cursor, next link, page number or offset paging; bearer, basic, api key or oauth2 auth); optional incremental replication_key.",
		Config:  &SourceConfig{},
		New:     newSource,
	})
}
