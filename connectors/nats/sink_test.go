package nats

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	natsgo "github.com/nats-io/nats.go"
)

func rec(json string) connector.Record {
	v, err := connector.ParseJSON([]byte(json))
	if err != nil {
		panic(err)
	}
	return v.AsObject()
}

func newTestSink(t testing.TB, c connector.Config) *Sink {
	t.Helper()
	s, err := newSink(c)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Sink)
}

// received subscribes to subject and returns a function that waits for n
// messages.
func received(t testing.TB, nc *natsgo.Conn, subject string) func(n int) []*natsgo.Msg {
	t.Helper()
	sub, err := nc.SubscribeSync(subject)
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return func(n int) []*natsgo.Msg {
		var out []*natsgo.Msg
		for len(out) < n {
			m, err := sub.NextMsg(10 * time.Second)
			if err != nil {
				t.Fatalf("after %d of %d messages: %v", len(out), n, err)
			}
			out = append(out, m)
		}
		return out
	}
}

func TestSinkCorePublishesSubjectHeadersAndValue(t *testing.T) {
	e := newEnv(t)
	subject := unique("sink")
	wait := received(t, e.nc, subject+".>")
	s := newTestSink(t, cfg("servers", []any{e.url}, "subject", subject+".default", "subject_field", "to",
		"headers_field", "h", "value_field", "v"))
	page := &connector.Page{Records: []connector.Record{
		rec(`{"to":"` + subject + `.a","h":{"Trace":"t1","Multi":["x","y"],"Num":7},"v":{"id":1}}`),
		rec(`{"v":"text"}`), // no "to": the fallback subject
	}}
	if err := connectortest.WritePages(context.Background(), s, page); err != nil {
		t.Fatal(err)
	}
	msgs := wait(2)
	if m := msgs[0]; m.Subject != subject+".a" || string(m.Data) != `{"id":1}` ||
		m.Header.Get("Trace") != "t1" || strings.Join(m.Header.Values("Multi"), ",") != "x,y" || m.Header.Get("Num") != "7" {
		t.Fatalf("message 1: %s %s %v", m.Subject, m.Data, m.Header)
	}
	if m := msgs[1]; m.Subject != subject+".default" || string(m.Data) != `"text"` {
		t.Fatalf("message 2: %s %s", m.Subject, m.Data)
	}
}

func TestSinkValueFormats(t *testing.T) {
	e := newEnv(t)
	subject := unique("fmt")
	wait := received(t, e.nc, subject)
	for _, c := range []struct {
		format, value, want string
	}{
		{"string", `"plain text"`, "plain text"},
		{"bytes", `"` + base64.StdEncoding.EncodeToString([]byte{0, 1, 0xff}) + `"`, "\x00\x01\xff"},
		{"json", `{"b":[1,2]}`, `{"b":[1,2]}`},
	} {
		s := newTestSink(t, cfg("servers", []any{e.url}, "subject", subject, "value_field", "v", "value_format", c.format))
		if err := connectortest.WritePages(context.Background(), s, &connector.Page{Records: []connector.Record{rec(`{"v":` + c.value + `}`)}}); err != nil {
			t.Fatal(err)
		}
		if got := string(wait(1)[0].Data); got != c.want {
			t.Errorf("value_format %s: payload %q, want %q", c.format, got, c.want)
		}
	}
}

func TestSinkBadRecordsFailThePageBeforePublishing(t *testing.T) {
	e := newEnv(t)
	subject := unique("bad")
	sub, err := e.nc.SubscribeSync(subject + ".>")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		kv   []any
		bad  string
		want string
	}{
		{"no subject", []any{"subject_field", "to"}, `{"id":2}`, `record 2 of page 0: subject_field "to" is missing`},
		{"subject not a string", []any{"subject_field", "to"}, `{"to":5}`, `subject_field "to" is of type int, want a string`},
		{"wildcard subject", []any{"subject_field", "to"}, `{"to":"a.*"}`, `cannot contain wildcards`},
		{"headers not an object", []any{"subject", subject + ".x", "headers_field", "h"}, `{"h":"x"}`, `headers_field "h" is of type string, want an object`},
		{"value not a string", []any{"subject", subject + ".x", "value_field", "v", "value_format", "string"}, `{"v":1}`, `value_format string needs a string`},
		{"value not base64", []any{"subject", subject + ".x", "value_field", "v", "value_format", "bytes"}, `{"v":"%%%"}`, `is not base64`},
		{"payload too big", []any{"subject", subject + ".x"}, `{"big":"` + strings.Repeat("x", int(e.nc.MaxPayload())) + `"}`, "over the server's max_payload"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSink(t, cfg(append([]any{"servers", []any{e.url}}, c.kv...)...))
			good := rec(`{"to":"` + subject + `.ok","h":{},"v":"aGk="}`)
			err := connectortest.WritePages(context.Background(), s, &connector.Page{Records: []connector.Record{good, rec(c.bad)}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if m, err := sub.NextMsg(200 * time.Millisecond); err == nil {
				t.Fatalf("a page that failed published %s %s", m.Subject, m.Data)
			}
		})
	}
}

func TestSinkJetStreamStoresAndDropsARetriedPage(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	s := newTestSink(t, cfg("servers", []any{e.url}, "subject", e.subject+".out", "mode", "jetstream", "batch_size", 100))
	ctx := context.Background()
	if err := s.Open(ctx, connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page := &connector.Page{Records: connectortest.Records(1000)}
	if err := s.Write(ctx, page); err != nil {
		t.Fatal(err)
	}
	// The engine retries a write that failed (say its acknowledgements
	// were lost) with the same page; everything the first attempt stored
	// is dropped by the stream as a duplicate.
	s.failedPage, s.failedNo = page, s.writes
	if err := s.Write(ctx, page); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, &connector.Page{Records: connectortest.Records(10)}); err != nil {
		t.Fatal(err)
	}
	st, err := e.js.Stream(ctx, e.stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1010 {
		t.Fatalf("the stream holds %d messages, want 1010 (1000, the retry dropped, then 10)", info.State.Msgs)
	}
}

func TestSinkJetStreamNeedsAStream(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		kv   []any
		want string
	}{
		{[]any{"subject", unique("nostream")}, "no JetStream stream on"},
		{[]any{"subject", "x", "jetstream_stream", "NO_SUCH_STREAM_Y"}, `stream "NO_SUCH_STREAM_Y" does not exist`},
	} {
		s := newTestSink(t, cfg(append([]any{"servers", []any{e.url}, "mode", "jetstream"}, c.kv...)...))
		err := s.Open(context.Background(), connector.SinkOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

func TestRoundTripSourceEnvelopeToSink(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	e.publish(t, e.subject+".in.a", []byte(`{"id":1}`))
	if _, err := e.js.PublishMsg(context.Background(), newMsg(e.subject+".in.b", []byte(`not json`), "K", "v")); err != nil {
		t.Fatal(err)
	}
	recs, _ := drain(t, openSource(t, e.jsSource("rt", "include", []any{"subject", "headers"}, "value_format", "string", "max_messages", 2, "idle_timeout_secs", 1)))
	// Republish to a mirror subject tree, keeping subject, headers and the
	// exact payload.
	for i := range recs {
		v, _ := recs[i].Get("subject")
		recs[i].Set("subject", connector.String(strings.Replace(v.AsString(), ".in.", ".out.", 1)))
	}
	wait := received(t, e.nc, e.subject+".out.>")
	s := newTestSink(t, cfg("servers", []any{e.url}, "subject_field", "subject", "headers_field", "headers", "value_field", "value", "value_format", "string"))
	if err := connectortest.WritePages(context.Background(), s, &connector.Page{Records: recs}); err != nil {
		t.Fatal(err)
	}
	got := wait(2)
	if got[0].Subject != e.subject+".out.a" || string(got[0].Data) != `{"id":1}` ||
		got[1].Subject != e.subject+".out.b" || string(got[1].Data) != "not json" || got[1].Header.Get("K") != "v" {
		t.Fatalf("got %s %q, %s %q %v", got[0].Subject, got[0].Data, got[1].Subject, got[1].Data, got[1].Header)
	}
}
