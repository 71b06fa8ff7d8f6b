package kafka

import (
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

func TestFetchSizes(t *testing.T) {
	near, far := time.Millisecond, 20*time.Millisecond
	for _, c := range []struct {
		name               string
		total, part        int
		rtt                time.Duration
		wantTotal, wantPar int
	}{
		{"near defaults", 0, 0, near, 256 << 10, 128 << 10},
		{"far defaults", 0, 0, far, 1 << 20, 256 << 10},
		{"both set", 4096, 2048, near, 4096, 2048},
		{"total set, partition capped by it", 64 << 10, 0, near, 64 << 10, 64 << 10},
		{"total set far, partition from the round trip", 8 << 20, 0, far, 8 << 20, 256 << 10},
		{"partition set", 0, 512 << 10, far, 1 << 20, 512 << 10},
		{"partition set above the chosen total", 0, 512 << 10, near, 256 << 10, 256 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			total, part := fetchSizes(SourceConfig{FetchMaxBytes: c.total, FetchMaxPartitionBytes: c.part}, c.rtt)
			if total != c.wantTotal || part != c.wantPar {
				t.Fatalf("got %d / %d, want %d / %d", total, part, c.wantTotal, c.wantPar)
			}
		})
	}
}

// TestFetchSizesFollowTheRoundTrip opens the source against a broker on
// loopback and against one whose every response is 10 ms late.
func TestFetchSizesFollowTheRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name  string
		delay time.Duration
		want  int
	}{
		{"loopback", 0, nearFetchBytes},
		{"10 ms late", 10 * time.Millisecond, farFetchBytes},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, "t")}
			if c.delay > 0 {
				opts = append(opts, kfake.ListenFn(func(network, addr string) (net.Listener, error) {
					l, err := net.Listen(network, addr)
					return lateListener{l, c.delay}, err
				}))
			}
			k := startCluster(t, opts...)
			src := openSource(t, k.source(t, "topics", []any{"t"}, "max_messages", 1), nil).(*Source)
			defer src.Close()
			if src.fetchBytes != c.want {
				t.Fatalf("fetch_max_bytes %d, want %d", src.fetchBytes, c.want)
			}
		})
	}
}

// lateListener's connections write everything delay late.
type lateListener struct {
	net.Listener
	delay time.Duration
}

func (l lateListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return lateConn{c, l.delay}, nil
}

type lateConn struct {
	net.Conn
	delay time.Duration
}

func (c lateConn) Write(b []byte) (int, error) {
	time.Sleep(c.delay)
	return c.Conn.Write(b)
}
