package nats

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// reconnectWait is the pause between two reconnect attempts.
const reconnectWait = 250 * time.Millisecond

// connectTimeout bounds the first connection to each server.
const connectTimeout = 5 * time.Second

// serverList is c's servers (or the default) joined for nats.Connect.
func (c conn) serverList() []string {
	if len(c.servers) == 0 {
		return []string{DefaultServer}
	}
	out := make([]string, len(c.servers))
	for i, s := range c.servers {
		out[i] = strings.TrimSpace(s)
	}
	return out
}

// where names the servers for messages, without credentials.
func (c conn) where() string {
	list := c.serverList()
	for i, s := range list {
		list[i] = redactURL(s)
	}
	return strings.Join(list, ",")
}

// connect dials the servers. A lost connection is retried every
// reconnectWait for c.reconnect, then closed for good; the source and sink
// see that as natsgo.ErrConnectionClosed.
func (c conn) connect(log *slog.Logger) (*natsgo.Conn, error) {
	name := c.name
	if name == "" {
		name = "faucet"
	}
	opts := []natsgo.Option{
		natsgo.Name(name),
		natsgo.Timeout(connectTimeout),
		natsgo.ReconnectWait(reconnectWait),
		natsgo.ReconnectJitter(50*time.Millisecond, 50*time.Millisecond),
		natsgo.MaxReconnects(max(1, int(c.reconnect/reconnectWait))),
		natsgo.DisconnectErrHandler(func(nc *natsgo.Conn, err error) {
			if err != nil && log != nil {
				log.Warn("nats: disconnected, reconnecting", "server", redactURL(nc.ConnectedUrl()), "error", err)
			}
		}),
		natsgo.ReconnectHandler(func(nc *natsgo.Conn) {
			if log != nil {
				log.Info("nats: reconnected", "server", redactURL(nc.ConnectedUrl()))
			}
		}),
	}
	if c.tls {
		opts = append(opts, natsgo.Secure())
	}
	auth, err := c.authOption()
	if err != nil {
		return nil, err
	}
	if auth != nil {
		opts = append(opts, auth)
	}
	nc, err := natsgo.Connect(strings.Join(c.serverList(), ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("nats: connect to %s: %w", c.where(), err)
	}
	return nc, nil
}

func (c conn) authOption() (natsgo.Option, error) {
	a := c.auth.Config
	switch c.auth.Type {
	case "token":
		return natsgo.Token(a.Token.Reveal()), nil
	case "user_password":
		return natsgo.UserInfo(a.Username, a.Password.Reveal()), nil
	case "creds_file":
		return natsgo.UserCredentials(a.Path), nil
	case "nkey":
		kp, err := nkeys.FromSeed([]byte(a.NKey.Reveal()))
		if err != nil {
			return nil, fmt.Errorf("nats: auth.config.nkey is not a valid nkey seed: %w", err)
		}
		pub, err := kp.PublicKey()
		if err != nil {
			return nil, fmt.Errorf("nats: auth.config.nkey: %w", err)
		}
		return natsgo.Nkey(pub, kp.Sign), nil
	}
	return nil, nil
}

// transient reports errors that go away when the server is back: a
// connection being re-established, a JetStream API not answering yet.
func transient(err error) bool {
	return errors.Is(err, natsgo.ErrConnectionReconnecting) ||
		errors.Is(err, natsgo.ErrNoResponders) ||
		errors.Is(err, natsgo.ErrTimeout) ||
		errors.Is(err, natsgo.ErrDisconnected) ||
		errors.Is(err, natsgo.ErrReconnectBufExceeded)
}

// closedError explains a connection that was given up.
func closedError(c conn, nc *natsgo.Conn) error {
	why := ""
	if err := nc.LastError(); err != nil {
		why = ": " + err.Error()
	}
	return fmt.Errorf("nats: connection to %s lost and not re-established within reconnect_timeout_secs (%s)%s",
		c.where(), c.reconnect, why)
}
