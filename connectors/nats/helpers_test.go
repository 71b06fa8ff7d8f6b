package nats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// serverURL is the machine's NATS server with JetStream (SPEC §4).
func serverURL(t testing.TB) string {
	t.Helper()
	return connectortest.ServiceURL(t, "FAUCET_TEST_NATS_URL", DefaultServer, func(ctx context.Context, url string) error {
		nc, err := natsgo.Connect(url, natsgo.Timeout(2*time.Second))
		if err != nil {
			return err
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return err
		}
		_, err = js.AccountInfo(ctx)
		return err
	})
}

// unique is a name no other test (or test process) uses.
func unique(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, time.Now().UnixNano()%1e9, rand.Uint32())
}

// env is a connection to the test server and a fresh stream over
// "<subject>.>" that is deleted when the test ends.
type env struct {
	url     string
	nc      *natsgo.Conn
	js      jetstream.JetStream
	stream  string
	subject string // the stream's subject prefix
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{url: serverURL(t)}
	return e.connect(t, e.url)
}

func (e *env) connect(t testing.TB, url string) *env {
	t.Helper()
	e.url = url
	nc, err := natsgo.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	e.nc = nc
	if e.js, err = jetstream.New(nc); err != nil {
		t.Fatal(err)
	}
	return e
}

// withStream creates the env's stream (file storage when durable).
func (e *env) withStream(t testing.TB, durable bool) *env {
	t.Helper()
	e.stream = unique("FAUCET")
	e.subject = strings.ToLower(e.stream)
	storage := jetstream.MemoryStorage
	if durable {
		storage = jetstream.FileStorage
	}
	ctx := context.Background()
	if _, err := e.js.CreateStream(ctx, jetstream.StreamConfig{
		Name: e.stream, Subjects: []string{e.subject + ".>"}, Storage: storage,
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.js.DeleteStream(context.Background(), e.stream) })
	return e
}

// publish stores payloads on subject with JetStream acknowledgements,
// a thousand at a time (the client's window for asynchronous publishes).
func (e *env) publish(t testing.TB, subject string, payloads ...[]byte) {
	t.Helper()
	for len(payloads) > 1000 {
		e.publish(t, subject, payloads[:1000]...)
		payloads = payloads[1000:]
	}
	var futs []jetstream.PubAckFuture
	for _, p := range payloads {
		f, err := e.js.PublishAsync(subject, p)
		if err != nil {
			t.Fatal(err)
		}
		futs = append(futs, f)
	}
	for i, f := range futs {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			t.Fatalf("publish %d: %v", i, err)
		case <-time.After(30 * time.Second):
			t.Fatalf("publish %d: no ack", i)
		}
	}
}

// ids publishes {"id": from..to} to subject.
func (e *env) ids(t testing.TB, subject string, from, to int) {
	t.Helper()
	payloads := make([][]byte, 0, to-from+1)
	for i := from; i <= to; i++ {
		payloads = append(payloads, fmt.Appendf(nil, `{"id":%d,"name":"n%d"}`, i, i))
	}
	e.publish(t, subject, payloads...)
}

// consumer returns the state of a durable consumer.
func (e *env) consumer(t testing.TB, name string) *jetstream.ConsumerInfo {
	t.Helper()
	c, err := e.js.Consumer(context.Background(), e.stream, name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// jsSource is a JetStream source config over the env's stream.
func (e *env) jsSource(consumer string, kv ...any) connector.Config {
	base := []any{"servers", []any{e.url}, "jetstream_stream", e.stream, "jetstream_consumer", consumer}
	return cfg(append(base, kv...)...)
}

func cfg(kv ...any) connector.Config {
	var fields []connector.KeyValue
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, connector.KeyValue{Key: kv[i].(string), Value: kv[i+1]})
	}
	v, err := connector.FromAny(fields)
	if err != nil {
		panic(err)
	}
	return connector.Config{Path: "pipeline.source.config", Value: v}
}

func openSource(t testing.TB, c connector.Config) connector.Source {
	t.Helper()
	src, err := newSource(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background(), connector.SourceOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return src
}

// drain reads pages until io.EOF, as the engine would but without
// committing; it returns the records and the number of non-empty pages.
func drain(t testing.TB, src connector.Source) ([]connector.Record, int) {
	t.Helper()
	var out []connector.Record
	pages := 0
	for {
		p, err := connectortest.NextPage(context.Background(), src)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, pages
			}
			t.Fatal(err)
		}
		if len(p.Records) > 0 {
			pages++
		}
		out = append(out, p.Records...)
	}
}

// idsOf returns the "id" field of each record.
func idsOf(t testing.TB, recs []connector.Record) []int64 {
	t.Helper()
	out := make([]int64, len(recs))
	for i, r := range recs {
		v, ok := r.Get("id")
		if !ok {
			t.Fatalf("record %d has no id: %v", i, connector.Object(r))
		}
		out[i] = v.AsInt()
	}
	return out
}

// seqIDs is 1..n.
func seqIDs(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

// newMsg is a message with headers given as name, value pairs.
func newMsg(subject string, data []byte, hdr ...string) *natsgo.Msg {
	m := natsgo.NewMsg(subject)
	m.Data = data
	for i := 0; i+1 < len(hdr); i += 2 {
		m.Header.Add(hdr[i], hdr[i+1])
	}
	return m
}
