package main

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// kafkaRTT is BENCH_KAFKA_RTT ("20ms"): the Kafka cases then run against a
// broker whose every response reaches the client that much later, as over
// a network with that round-trip time (and no bandwidth limit). 0: none.
func kafkaRTT() (time.Duration, error) {
	v := os.Getenv("BENCH_KAFKA_RTT")
	if v == "" {
		return 0, nil
	}
	return time.ParseDuration(v)
}

// rttNote is ", RTT 20ms" when BENCH_KAFKA_RTT is set, for case titles.
func rttNote() string {
	if d, err := kafkaRTT(); err == nil && d > 0 {
		return ", RTT " + d.String()
	}
	return ""
}

// delayListener accepts connections whose writes (the broker's
// responses) are delivered d after they were made.
type delayListener struct {
	net.Listener
	d time.Duration
}

func (l delayListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	dc := &delayConn{Conn: c, d: l.d, q: make(chan delayed, 4096)}
	go dc.pump()
	return dc, nil
}

type delayed struct {
	due time.Time
	b   []byte
}

// delayConn queues what is written and writes it once due, in order, so
// that writes keep their pace and only arrive later.
type delayConn struct {
	net.Conn
	d      time.Duration
	q      chan delayed
	mu     sync.Mutex // Write against Close
	closed bool
	// err is the first failed write, returned by the next Write; the
	// pump sets it without mu, which a Write waiting on a full queue
	// holds.
	err atomic.Pointer[error]
}

func (c *delayConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	if err := c.err.Load(); err != nil {
		return 0, *err
	}
	c.q <- delayed{time.Now().Add(c.d), append([]byte(nil), b...)}
	return len(b), nil
}

func (c *delayConn) pump() {
	for w := range c.q {
		time.Sleep(time.Until(w.due))
		if _, err := c.Conn.Write(w.b); err != nil {
			c.err.CompareAndSwap(nil, &err)
		}
	}
	c.Conn.Close()
}

// Close lets the queued writes out, then closes the connection.
func (c *delayConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("close: already closed")
	}
	c.closed = true
	close(c.q)
	return nil
}
