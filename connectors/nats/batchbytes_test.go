package nats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// padded is {"id": id, "pad": "xxx..."} of a little over size bytes.
func padded(id, size int) []byte {
	return fmt.Appendf(nil, `{"id":%d,"pad":"%s"}`, id, strings.Repeat("x", size))
}

// pages reads src to its end and returns the number of records of each
// non-empty page and every record's id, in order.
func pages(t *testing.T, src connector.Source) (sizes []int, ids []int64) {
	t.Helper()
	for {
		p, err := connectortest.NextPage(context.Background(), src)
		if errors.Is(err, io.EOF) {
			return sizes, ids
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) > 0 {
			sizes = append(sizes, len(p.Records))
			ids = append(ids, idsOf(t, p.Records)...)
		}
	}
}

// Messages of 100 kB with batch_bytes 250 kB: two per page, and a 400 kB
// message (larger than batch_bytes) in a page of its own instead of
// holding the consumer up (the server ends a fetch whose first message
// does not fit with nothing).
func TestJetStreamPagesAreBoundedInBytes(t *testing.T) {
	e := newEnv(t).withStream(t, false)
	var payloads [][]byte
	for id := 1; id <= 8; id++ {
		size := 100_000
		if id == 6 {
			size = 400_000
		}
		payloads = append(payloads, padded(id, size))
	}
	e.publish(t, e.subject+".a", payloads...)
	src := openSource(t, e.jsSource("bytes", "batch_bytes", 250_000, "idle_timeout_secs", 1))
	sizes, ids := pages(t, src)
	if want := []int{2, 2, 1, 1, 2}; !slices.Equal(sizes, want) {
		t.Errorf("page sizes %v, want %v", sizes, want)
	}
	if !slices.Equal(ids, seqIDs(8)) {
		t.Errorf("ids %v, want 1..8", ids)
	}
	// Without the limit the same messages come in one page.
	src = openSource(t, e.jsSource("nolimit", "batch_bytes", 0, "idle_timeout_secs", 1))
	if sizes, _ := pages(t, src); !slices.Equal(sizes, []int{8}) {
		t.Errorf("batch_bytes 0: page sizes %v, want [8]", sizes)
	}
}

// Core NATS cuts pages the same way: a message that would take the page
// past batch_bytes starts the next one, and none is lost.
func TestCorePagesAreBoundedInBytes(t *testing.T) {
	e := newEnv(t)
	subject := unique("corebytes")
	src := openSource(t, cfg("servers", []any{e.url}, "subject", subject,
		"batch_bytes", 250_000, "max_messages", 7, "idle_timeout_secs", 5))
	for id := 1; id <= 7; id++ {
		size := 100_000
		if id == 4 {
			size = 400_000
		}
		if err := e.nc.Publish(subject, padded(id, size)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	sizes, ids := pages(t, src)
	if want := []int{2, 1, 1, 2, 1}; !slices.Equal(sizes, want) {
		t.Errorf("page sizes %v, want %v", sizes, want)
	}
	if !slices.Equal(ids, seqIDs(7)) {
		t.Errorf("ids %v, want 1..7", ids)
	}
}
