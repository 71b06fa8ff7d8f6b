package kafka

import (
	"context"
	"slices"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/twmb/franz-go/pkg/kgo"
)

func openSink(t testing.TB, c connector.Config) *Sink {
	t.Helper()
	s := newTestSink(t, c)
	if err := s.Open(t.Context(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func lastToken(t testing.TB, s *Sink, scope string) string {
	t.Helper()
	tok, ok, err := s.LastCommittedToken(t.Context(), scope)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "(none)"
	}
	return tok
}

// values returns the message values of topic, read committed.
func values(t testing.TB, k *cluster, topic string, n int) []string {
	t.Helper()
	var out []string
	for _, m := range k.readAll(t, topic, n) {
		out = append(out, string(m.Value))
	}
	return out
}

func TestSinkExactlyOnceCommitsPagesWithTheirTokens(t *testing.T) {
	k := newCluster(t, 1, "out")
	c := cfg(t, "brokers", k.brokers, "topic", fixed("out"))
	s := openSink(t, c)
	if got := lastToken(t, s, "p::row-0"); got != "(none)" {
		t.Fatalf("fresh topic: token %s", got)
	}
	if err := s.WriteIdempotent(t.Context(), &connector.Page{Records: []connector.Record{rec(`{"id":1}`), rec(`{"id":2}`)}}, "p::row-0", "00000000000000000001#{}"); err != nil {
		t.Fatal(err)
	}
	// A later run (a new sink) finds the token.
	s2 := openSink(t, c)
	if got := lastToken(t, s2, "p::row-0"); got != "00000000000000000001#{}" {
		t.Fatalf("token %s", got)
	}
	if err := s2.WriteIdempotent(t.Context(), &connector.Page{Records: []connector.Record{rec(`{"id":3}`)}}, "p::row-0", "00000000000000000002#{}"); err != nil {
		t.Fatal(err)
	}
	if got := lastToken(t, openSink(t, c), "p::row-0"); got != "00000000000000000002#{}" {
		t.Fatalf("token %s", got)
	}
	if got := lastToken(t, openSink(t, c), "p::row-1"); got != "(none)" {
		t.Fatalf("another scope: token %s", got)
	}
	if got := values(t, k, "out", 3); !slices.Equal(got, []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}) {
		t.Fatalf("out holds %q", got)
	}
}

// A run that died inside its transaction (the producer is still there,
// hanging) must not leave anything visible: the next run fences it,
// which aborts its transaction, and finds the token before it.
func TestSinkExactlyOnceFencesARunThatDiedMidTransaction(t *testing.T) {
	k := newCluster(t, 1, "out")
	c := cfg(t, "brokers", k.brokers, "topic", fixed("out"))
	s := openSink(t, c)
	if err := s.WriteIdempotent(t.Context(), &connector.Page{Records: []connector.Record{rec(`{"id":1}`)}}, "p::row-0", "00000000000000000001#{}"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	zombie, err := kgo.NewClient(kgo.SeedBrokers(k.c.ListenAddrs()...), kgo.TransactionalID("faucet.p::row-0"))
	if err != nil {
		t.Fatal(err)
	}
	defer zombie.Close()
	if err := zombie.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := zombie.ProduceSync(ctx,
		&kgo.Record{Topic: "out", Value: []byte(`{"id":"uncommitted"}`)},
		&kgo.Record{Topic: "__faucet_commit_token", Key: []byte("p::row-0"), Value: []byte("00000000000000000002#{}")},
	).FirstErr(); err != nil {
		t.Fatal(err)
	}

	next := openSink(t, c)
	if got := lastToken(t, next, "p::row-0"); got != "00000000000000000001#{}" {
		t.Fatalf("after the dead run: token %s, want the last committed one", got)
	}
	if err := zombie.EndTransaction(ctx, kgo.TryCommit); err == nil {
		t.Fatal("the fenced producer could still commit")
	}
	if err := next.WriteIdempotent(t.Context(), &connector.Page{Records: []connector.Record{rec(`{"id":2}`)}}, "p::row-0", "00000000000000000002#{}"); err != nil {
		t.Fatal(err)
	}
	if got := values(t, k, "out", 2); !slices.Equal(got, []string{`{"id":1}`, `{"id":2}`}) {
		t.Fatalf("out holds %q, want the committed pages only", got)
	}
}

func TestSinkExactlyOnceRefusesWithoutIdempotence(t *testing.T) {
	k := newCluster(t, 1, "out")
	s := openSink(t, cfg(t, "brokers", k.brokers, "topic", fixed("out"), "acks", "leader", "idempotent", false))
	if _, _, err := s.LastCommittedToken(t.Context(), "x"); err == nil {
		t.Fatal("exactly-once with acks leader was accepted")
	}
}
