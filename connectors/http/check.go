package http

import (
	"context"
	"fmt"
	"net"

	"github.com/faucet-hq/faucet/connector"
)

// Check probes without sending a record: "auth" fetches an oauth2 token
// (only for that auth type), "connect" opens a TCP connection to the
// endpoint's host.
func (s *Sink) Check(ctx context.Context) []connector.CheckResult {
	var out []connector.CheckResult
	if s.client.Auth.Refreshable() {
		if err := s.client.Auth.Prepare(ctx); err != nil {
			out = append(out, connector.Failed("auth", fmt.Errorf("http: %w", err), "check token_url, client_id and client_secret"))
		} else {
			out = append(out, connector.Passed("auth"))
		}
	}
	port := s.url.Port()
	if port == "" {
		port = "80"
		if s.url.Scheme == "https" {
			port = "443"
		}
	}
	addr := net.JoinHostPort(s.url.Hostname(), port)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return append(out, connector.Failed("connect", fmt.Errorf("http: connect to %s: %w", addr, err), "check url and that the endpoint is up"))
	}
	conn.Close()
	return append(out, connector.Passed("connect"))
}

var _ connector.Checker = (*Sink)(nil)
