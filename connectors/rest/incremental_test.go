package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// pagedAPI serves recs two per page (page_number paging, ends on an
// empty page).
func pagedAPI(t *testing.T, recs ...any) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := max(atoi(r.URL.Query(), "page"), 1)
		from, to := min(2*(p-1), len(recs)), min(2*p, len(recs))
		writeJSON(w, recs[from:to])
	}))
	t.Cleanup(srv.Close)
	return srv
}

var paging = map[string]any{"type": "page_number", "param_name": "page"}

func bm(v connector.Value) *connector.Value { return &v }

func TestIncrementalFilter(t *testing.T) {
	srv := pagedAPI(t,
		item(1), item(4), map[string]any{"name": "no id"}, item(2),
		map[string]any{"id": nil}, map[string]any{"id": "x"}, item(6), item(3), item(5))
	var log logBuf
	res, err := drain(context.Background(), newSrc(t, "base_url", srv.URL, "pagination", paging,
		"replication_key", "id", "start_replication_value", 3), nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Records {
		v, _ := r.Get("id")
		got = append(got, v.String())
	}
	// 4, 6 and 5 are above 3; "x" cannot be compared with a number and is
	// kept; the records without an id and 1, 2, 3 are not.
	if strings.Join(got, " ") != `4 "x" 6 5` {
		t.Errorf("kept %v", got)
	}
	if res.Bookmark == nil || res.Bookmark.String() != "6" || len(res.Bookmarks) != 1 {
		t.Errorf("bookmarks %v, want only 6 on the last page", res.Bookmarks)
	}
	for _, want := range []string{"records without the replication key were skipped", "records=2", "of another type than the bookmark were kept", "records=1"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestBookmarkPlacement: by default only the last page carries the
// bookmark (records in any order); with replication_key_ascending every
// page that moved it does, and pages left empty by the filter are not
// emitted.
func TestBookmarkPlacement(t *testing.T) {
	t.Run("default: the last page, whatever the order", func(t *testing.T) {
		srv := pagedAPI(t, item(5), item(1), item(9), item(3), item(7))
		res := mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", paging, "replication_key", "id"), nil)
		if len(res.Records) != 5 || len(res.Bookmarks) != 1 || res.Bookmark.String() != "9" {
			t.Errorf("%d records, bookmarks %v; want 5 and [9]", len(res.Records), res.Bookmarks)
		}
		// The saved bookmark wins over start_replication_value.
		res = mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", paging, "replication_key", "id", "start_replication_value", 100), bm(connector.Int(5)))
		if got := ids(res.Records); !equalIDs(got, []int64{9, 7}) || res.Bookmark.String() != "9" {
			t.Errorf("from bookmark 5: %v, bookmark %v", got, res.Bookmark)
		}
		res = mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", paging, "replication_key", "id"), bm(connector.Int(9)))
		if len(res.Records) != 0 || res.Pages != 0 {
			t.Errorf("from the last bookmark: %d records in %d pages, want none", len(res.Records), res.Pages)
		}
	})
	t.Run("ascending: every page that moved it", func(t *testing.T) {
		srv := pagedAPI(t, items(1, 7)...)
		res := mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", paging, "replication_key", "id", "replication_key_ascending", true), nil)
		if fmt.Sprint(res.Bookmarks) != "[2 4 6 7]" || len(res.Records) != 7 {
			t.Errorf("bookmarks %v over %d records, want [2 4 6 7] over 7", res.Bookmarks, len(res.Records))
		}
		res = mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", paging, "replication_key", "id", "replication_key_ascending", true), bm(connector.Int(4)))
		if got := ids(res.Records); !equalIDs(got, seq(5, 7)) || res.Pages != 2 || fmt.Sprint(res.Bookmarks) != "[6 7]" {
			t.Errorf("from 4: %v in %d pages, bookmarks %v; want 5..7 in 2 pages, [6 7]", got, res.Pages, res.Bookmarks)
		}
	})
	t.Run("a dropped repeated page: an empty checkpoint page", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, items(1, 3)) }))
		defer srv.Close()
		res := mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", paging, "replication_key", "id"), nil)
		if res.Pages != 2 || len(res.Records) != 3 || fmt.Sprint(res.Bookmarks) != "[3]" {
			t.Errorf("%d pages, %d records, bookmarks %v; want the records, then an empty page with 3", res.Pages, len(res.Records), res.Bookmarks)
		}
	})
	t.Run("timestamps as strings", func(t *testing.T) {
		srv := pagedAPI(t,
			map[string]any{"id": 1, "updated_at": "2024-03-01T10:00:00Z"},
			map[string]any{"id": 2, "updated_at": "2024-01-15T08:00:00Z"},
			map[string]any{"id": 3, "updated_at": "2024-02-29T23:59:59Z"})
		res := mustDrain(t, newSrc(t, "base_url", srv.URL, "pagination", paging, "replication_key", "updated_at",
			"start_replication_value", "2024-02-01T00:00:00Z"), nil)
		if got := ids(res.Records); !equalIDs(got, []int64{1, 3}) || res.Bookmark.AsString() != "2024-03-01T10:00:00Z" {
			t.Errorf("%v, bookmark %v", got, res.Bookmark)
		}
	})
	t.Run("full table: no filter, no bookmark", func(t *testing.T) {
		srv := pagedAPI(t, items(1, 3)...)
		for _, cfg := range [][]any{
			{"start_replication_value", 2},
			{"replication_key", "id", "replication_method", map[string]any{"type": "FullTable"}},
		} {
			res := mustDrain(t, newSrc(t, append([]any{"base_url", srv.URL, "pagination", paging}, cfg...)...), bm(connector.Int(2)))
			if len(res.Records) != 3 || res.Bookmark != nil {
				t.Errorf("%v: %d records, bookmark %v", cfg, len(res.Records), res.Bookmark)
			}
		}
	})
}
