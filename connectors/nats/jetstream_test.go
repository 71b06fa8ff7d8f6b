package nats

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/nats-io/nats.go/jetstream"
)

func TestJetStreamAcknowledgesOnlyCommittedPages(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	e.ids(t, e.subject+".a", 1, 250)
	c := e.jsSource("acks", "batch_size", 100, "idle_timeout_secs", 1)

	src := openSource(t, c).(*JetStreamSource)
	for range 2 {
		if _, err := src.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if info := e.consumer(t, "acks"); info.NumAckPending != 200 || info.AckFloor.Stream != 0 {
		t.Fatalf("before any commit: %d pending acks, ack floor %d; want 200 and 0", info.NumAckPending, info.AckFloor.Stream)
	}
	if err := src.Committed(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if info := e.consumer(t, "acks"); info.NumAckPending != 100 || info.AckFloor.Stream != 100 {
		t.Fatalf("after committing page 0: %d pending acks, ack floor %d; want 100 and 100", info.NumAckPending, info.AckFloor.Stream)
	}
	// Page 1 was read but never committed: closing hands it back, and the
	// next run reads it (first, as a redelivery) and then the rest.
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _ := drain(t, openSource(t, c))
	got := idsOf(t, recs)
	slices.Sort(got)
	if want := seqIDs(250)[100:]; !slices.Equal(got, want) {
		t.Fatalf("second run read %d records %v..., want ids 101..250", len(got), got[:min(5, len(got))])
	}
}

func TestJetStreamThroughTheEngineOnceAndResumes(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	e.ids(t, e.subject+".a", 1, 5000)
	c := e.jsSource("engine", "batch_size", 300, "idle_timeout_secs", 1.5)
	out := filepath.Join(t.TempDir(), "out.jsonl")

	res, err := run(t, c, out)
	if err != nil || res.Written != 5000 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if got := fileIDs(t, out); !slices.Equal(got, seqIDs(5000)) {
		t.Fatalf("the file holds %d ids, want 1..5000 in order", len(got))
	}
	if info := e.consumer(t, "engine"); info.NumAckPending != 0 || info.NumPending != 0 || info.AckFloor.Stream != 5000 {
		t.Fatalf("consumer after the run: %d pending acks, %d pending, ack floor %d", info.NumAckPending, info.NumPending, info.AckFloor.Stream)
	}
	// More messages arrive; the next run reads only those.
	e.ids(t, e.subject+".a", 5001, 5100)
	res, err = run(t, c, out)
	if err != nil || res.Written != 100 {
		t.Fatalf("second run: res=%+v err=%v", res, err)
	}
	if missing, dups := tally(fileIDs(t, out), 5100); len(missing)+len(dups) > 0 {
		t.Fatalf("missing %v, duplicated %v", missing, dups)
	}
}

func TestJetStreamDryRunAndLimitConsumeNothing(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	e.ids(t, e.subject+".a", 1, 500)
	c := e.jsSource("dry", "batch_size", 100, "idle_timeout_secs", 0.5)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	res, err := run(t, c, out, func(r *engine.Row) { r.Sink, r.SinkType = &engine.CountingSink{}, "dry-run(jsonl)" })
	if err != nil || res.Read != 500 {
		t.Fatalf("dry run: res=%+v err=%v", res, err)
	}
	res, err = run(t, c, out, func(r *engine.Row) { r.Limit = 50 })
	if err != nil || res.Written != 50 {
		t.Fatalf("limit run: res=%+v err=%v", res, err)
	}
	// Nothing was acknowledged (what they read was handed back with a
	// negative acknowledgement), so a real run gets every message.
	if info := e.consumer(t, "dry"); info.AckFloor.Stream != 0 {
		t.Fatalf("after a dry run and a --limit run: ack floor %d, want 0", info.AckFloor.Stream)
	}
	if err := os.Remove(out); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if res, err := run(t, c, out); err != nil || res.Written != 500 {
		t.Fatalf("real run: res=%+v err=%v", res, err)
	}
}

func TestJetStreamDropsRedeliveriesOfMessagesItHolds(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	e.ids(t, e.subject+".a", 1, 30)
	src := openSource(t, e.jsSource("redeliver", "batch_size", 10, "max_messages", 30, "idle_timeout_secs", 1)).(*JetStreamSource)
	first, err := src.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The server redelivers two messages of the page in flight (a NAK
	// stands in for an expired ack wait).
	for _, r := range src.in.unacked()[:2] {
		if err := e.nc.Publish(r, nakBody); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	recs, _ := drain(t, src)
	if err := first.Materialize(); err != nil {
		t.Fatal(err)
	}
	got := idsOf(t, append(first.Records, recs...))
	if missing, dups := tally(got, 30); len(got) != 30 || len(missing)+len(dups) > 0 {
		t.Fatalf("read %d records; missing %v, duplicated %v", len(got), missing, dups)
	}
}

func TestJetStreamConsumerCreationAndChecks(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	e.ids(t, e.subject+".a", 1, 10)
	e.ids(t, e.subject+".b", 11, 20)
	ctx := context.Background()

	t.Run("filter subject and start sequence", func(t *testing.T) {
		// Stream sequences 11..20 are on .b; start at 15.
		src := openSource(t, e.jsSource("filtered", "subject", e.subject+".b", "deliver_policy", "by_start_sequence", "start_sequence", 15, "idle_timeout_secs", 0.5))
		recs, _ := drain(t, src)
		if got := idsOf(t, recs); !slices.Equal(got, []int64{15, 16, 17, 18, 19, 20}) {
			t.Fatalf("ids %v", got)
		}
		info := e.consumer(t, "filtered")
		if info.Config.FilterSubject != e.subject+".b" || info.Config.AckPolicy != jetstream.AckExplicitPolicy {
			t.Fatalf("created consumer config %+v", info.Config)
		}
	})
	t.Run("deliver new", func(t *testing.T) {
		recs, _ := drain(t, openSource(t, e.jsSource("new", "deliver_policy", "new", "idle_timeout_secs", 0.3)))
		if len(recs) != 0 {
			t.Fatalf("deliver_policy new read %d old messages", len(recs))
		}
	})
	for _, c := range []struct {
		name string
		cc   jetstream.ConsumerConfig
		want string
	}{
		{"push consumer", jetstream.ConsumerConfig{Durable: "push", DeliverSubject: "somewhere", AckPolicy: jetstream.AckExplicitPolicy}, "is a push consumer"},
		{"ack none", jetstream.ConsumerConfig{Durable: "acknone", AckPolicy: jetstream.AckNonePolicy}, "needs ack policy explicit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := e.js.CreateOrUpdateConsumer(ctx, e.stream, c.cc); err != nil {
				t.Fatal(err)
			}
			src, _ := newSource(e.jsSource(c.cc.Durable, "idle_timeout_secs", 1))
			err := src.Open(ctx, connector.SourceOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.cc.Durable) {
				t.Fatalf("err = %v, want one naming the consumer and %q", err, c.want)
			}
		})
	}
	t.Run("missing stream", func(t *testing.T) {
		src, _ := newSource(e.jsSource("x", "jetstream_stream", "NO_SUCH_STREAM_X", "idle_timeout_secs", 1))
		err := src.Open(ctx, connector.SourceOptions{})
		if err == nil || !strings.Contains(err.Error(), `stream "NO_SUCH_STREAM_X" does not exist`) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestJetStreamMetadataAndFormats(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	m := newMsg(e.subject+".x.y", []byte(`not json {`), "Trace", "t1", "Multi", "a", "Multi", "b")
	if _, err := e.js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	e.publish(t, e.subject+".x.z", []byte(`[1,2]`), []byte(`{"id":3}`))
	before := time.Now().Add(-time.Minute).UnixMilli()

	recs, _ := drain(t, openSource(t, e.jsSource("meta", "include", []any{"subject", "headers", "sequence", "timestamp"}, "max_messages", 3, "idle_timeout_secs", 1)))
	if len(recs) != 3 {
		t.Fatalf("read %d records", len(recs))
	}
	r := recs[0]
	if got := keys(r); got != "subject,sequence,timestamp,headers,value" {
		t.Fatalf("envelope keys %s", got)
	}
	if v, _ := r.Get("subject"); v.AsString() != e.subject+".x.y" {
		t.Errorf("subject %v", v)
	}
	if v, _ := r.Get("sequence"); v.AsInt() != 1 {
		t.Errorf("sequence %v", v)
	}
	if v, _ := r.Get("timestamp"); v.AsInt() < before {
		t.Errorf("timestamp %v", v)
	}
	if v, _ := r.Get("headers"); v.String() != `{"Multi":["a","b"],"Trace":"t1"}` {
		t.Errorf("headers %s", v)
	}
	if v, _ := r.Get("value"); v.String() != `"not json {"` {
		t.Errorf("a payload that is not JSON should be kept as text, got %s", v)
	}
	if v, _ := recs[1].Get("value"); v.String() != `[1,2]` {
		t.Errorf("array payload %s", v)
	}

	// Without include, an object payload is the record; anything else is
	// {"value": ...}.
	recs, _ = drain(t, openSource(t, e.jsSource("plain", "max_messages", 3, "idle_timeout_secs", 1)))
	var lines []string
	for _, r := range recs {
		lines = append(lines, connector.Object(r).String())
	}
	if got := strings.Join(lines, " "); got != `{"value":"not json {"} {"value":[1,2]} {"id":3}` {
		t.Fatalf("records %s", got)
	}
	for format, want := range map[string]string{
		"string": `{"value":"{\"id\":3}"}`,
		"bytes":  `{"value":"` + base64.StdEncoding.EncodeToString([]byte(`{"id":3}`)) + `"}`,
	} {
		recs, _ = drain(t, openSource(t, e.jsSource("fmt_"+format, "value_format", format, "deliver_policy", "by_start_sequence", "start_sequence", 3, "max_messages", 1, "idle_timeout_secs", 1)))
		if len(recs) != 1 || connector.Object(recs[0]).String() != want {
			t.Errorf("value_format %s: %v, want %s", format, recs, want)
		}
	}
}

func keys(r connector.Record) string { return strings.Join(r.Keys(), ",") }
