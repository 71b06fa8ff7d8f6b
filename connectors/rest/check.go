package rest

import (
	"context"

	"github.com/faucet-hq/faucet/connector"
)

// Check probes without keeping anything: "auth" fetches an oauth2 token
// (only for that auth type), "request" reads the first page and checks
// that it is JSON.
func (s *Source) Check(ctx context.Context) []connector.CheckResult {
	var out []connector.CheckResult
	if s.client.Auth.Refreshable() {
		if err := s.client.Auth.Prepare(ctx); err != nil {
			return append(out, connector.Failed("auth", err, "check token_url, client_id and client_secret"),
				connector.SkippedCheck("request", "no token"))
		}
		out = append(out, connector.Passed("auth"))
	}
	probe := &Source{cfg: s.cfg, base: s.base, body: s.body, start: s.start, records: s.records, client: s.client}
	if err := probe.Open(ctx, connector.SourceOptions{}); err != nil {
		return append(out, connector.Failed("request", err, "check base_url, path, the credentials and that the API is up"))
	}
	defer probe.Close()
	if _, err := probe.parse(probe.first); err != nil {
		return append(out, connector.Failed("request", err, "check base_url and path: the API must answer JSON"))
	}
	return append(out, connector.Passed("request"))
}
