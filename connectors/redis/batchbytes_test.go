package redis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// pad is a JSON object of a little over n bytes.
func pad(id, n int) string { return fmt.Sprintf(`{"id":%d,"pad":"%s"}`, id, strings.Repeat("x", n)) }

// Elements of 100 kB at batch_bytes 250 kB: pages of two, read in chunks
// sized from what came before; without the limit, one page of 1,000.
func TestListPagesAreBoundedInBytes(t *testing.T) {
	r := newTestRedis(t)
	k := r.key("big")
	var want []string
	for id := 1; id <= 12; id++ {
		want = append(want, pad(id, 100_000))
		r.c.RPush(context.Background(), k, want[id-1])
	}
	cfg := func(kv ...any) connector.Config {
		return connectortest.Cfg(t, append([]any{"url", r.url, "source_type", map[string]any{"type": "List", "key": k}}, kv...)...)
	}
	res := collect(t, cfg("batch_bytes", 250_000), nil)
	if recs := jsonOf(res.Records); !slices.Equal(res.PageSizes, []int{2, 2, 2, 2, 2, 2}) || !slices.Equal(recs, want) {
		t.Errorf("pages %v and %d records in order %v, want six pages of two and the 12 elements in order", res.PageSizes, len(recs), slices.Equal(recs, want))
	}
	if res := collect(t, cfg("batch_bytes", 0), nil); !slices.Equal(res.PageSizes, []int{12}) {
		t.Errorf("batch_bytes 0: pages %v, want [12]", res.PageSizes)
	}
	// An element larger than the limit is a page of its own.
	k2 := r.key("huge")
	r.c.RPush(context.Background(), k2, pad(1, 400_000), pad(2, 10), pad(3, 10))
	c2 := connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "List", "key": k2}, "batch_bytes", 250_000)
	if res := collect(t, c2, nil); res.PageSizes[0] != 1 || len(res.Records) != 3 {
		t.Errorf("pages %v with %d records, want the 400 kB element alone first and 3 records", res.PageSizes, len(res.Records))
	}
}

// A stream's pages are cut the same way, and each page's bookmark is its
// last entry id, so a resumed run starts after it.
func TestStreamPagesAreBoundedInBytes(t *testing.T) {
	r := newTestRedis(t)
	k := r.key("bigstream")
	for i := 1; i <= 6; i++ {
		r.c.Do(context.Background(), "XADD", k, testStreamID(i), "body", strings.Repeat("y", 100_000))
	}
	c := connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Stream", "key": k}, "batch_bytes", 250_000)
	res := collect(t, c, nil)
	var bms []string
	for _, b := range res.Bookmarks {
		bms = append(bms, b.AsString())
	}
	if want := []string{testStreamID(2), testStreamID(4), testStreamID(6)}; len(res.Records) != 6 || !slices.Equal(bms, want) {
		t.Errorf("%d records, page bookmarks %v; want 6 records in pages ending at %v", len(res.Records), bms, want)
	}
	bm := connector.String(testStreamID(4))
	if res := collect(t, c, &bm); len(res.Records) != 2 {
		t.Errorf("resumed after entry 4: %d records, want 2", len(res.Records))
	}
}

// Keys pages follow batch_bytes too, sized by the strings Redis sends:
// string values as MGET reads them, hashes as HGETALL does.
func TestKeysPagesAreBoundedInBytes(t *testing.T) {
	r := newTestRedis(t)
	ctx := context.Background()
	base := r.key("blob:")
	for i := 1; i <= 6; i++ {
		r.c.Set(ctx, fmt.Sprintf("%ss%d", base, i), pad(i, 100_000), 0)
		r.c.HSet(ctx, fmt.Sprintf("%sh%d", base, i), "body", strings.Repeat("z", 100_000))
	}
	c := connectortest.Cfg(t, "url", r.url, "source_type", map[string]any{"type": "Keys", "pattern": base + "*"}, "batch_bytes", 250_000)
	res := collect(t, c, nil)
	if len(res.Records) != 12 || !slices.Equal(res.PageSizes, []int{2, 2, 2, 2, 2, 2}) {
		t.Errorf("%d records in pages %v, want 12 in six pages of two", len(res.Records), res.PageSizes)
	}
}
