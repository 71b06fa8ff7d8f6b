package nats

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestCoreSubscriptionReadsWhatIsPublishedWhileOpen(t *testing.T) {
	e := newEnv(t)
	subject := unique("core")
	// Published before the source subscribes: core NATS keeps nothing.
	if err := e.nc.Publish(subject+".x", []byte(`{"id":0}`)); err != nil {
		t.Fatal(err)
	}
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	src := openSource(t, cfg("servers", []any{e.url}, "subject", subject+".>", "include", []any{"subject", "headers"},
		"batch_size", 1000, "max_messages", 2500, "idle_timeout_secs", 5))
	for i := 1; i <= 2500; i++ {
		m := newMsg(fmt.Sprintf("%s.k%d", subject, i%3), fmt.Appendf(nil, `{"id":%d}`, i), "N", fmt.Sprint(i))
		if err := e.nc.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	recs, pages := drain(t, src)
	if len(recs) != 2500 || pages < 3 {
		t.Fatalf("read %d records in %d pages, want 2500 in at least 3", len(recs), pages)
	}
	for i, r := range recs {
		id := i + 1
		want := fmt.Sprintf(`{"subject":"%s.k%d","headers":{"N":"%d"},"value":{"id":%d}}`, subject, id%3, id, id)
		if got := connector.Object(r).String(); got != want {
			t.Fatalf("record %d = %s, want %s", i, got, want)
		}
	}
}

func TestCoreQueueGroupSharesMessages(t *testing.T) {
	e := newEnv(t)
	subject := unique("queue")
	c := cfg("servers", []any{e.url}, "subject", subject, "queue_group", "workers", "idle_timeout_secs", 0.5)
	a, b := openSource(t, c), openSource(t, c)
	for i := 1; i <= 1000; i++ {
		if err := e.nc.Publish(subject, fmt.Appendf(nil, `{"id":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var all []int64
	var wg sync.WaitGroup
	for _, src := range []connector.Source{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs, _ := drain(t, src)
			mu.Lock()
			all = append(all, idsOf(t, recs)...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	if !slices.Equal(all, seqIDs(1000)) {
		t.Fatalf("the group read %d messages, want each of 1..1000 once", len(all))
	}
}

func TestCoreSourceEndsWhenIdleAndFailsOnLostServer(t *testing.T) {
	e := newEnv(t)
	src := openSource(t, cfg("servers", []any{e.url}, "subject", unique("idle"), "idle_timeout_secs", 0.2))
	if recs, _ := drain(t, src); len(recs) != 0 {
		t.Fatalf("read %d records from a silent subject", len(recs))
	}

	src2, err := newSource(cfg("servers", []any{"nats://127.0.0.1:1"}, "subject", "x", "idle_timeout_secs", 1))
	if err != nil {
		t.Fatal(err)
	}
	err = src2.Open(context.Background(), connector.SourceOptions{})
	if err == nil || !strings.Contains(err.Error(), "nats: connect to nats://127.0.0.1:1") {
		t.Fatalf("err = %v", err)
	}
}
