package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// restAPI serves records {id, name, amount} in ascending id order, 50 per
// response, cursor-paged ({"data": [...], "next": "<last id>"}), and
// slowly (a few milliseconds per page) so that a run can be killed in the
// middle. It counts the records it served.
type restAPI struct {
	srv    *httptest.Server
	mu     sync.Mutex
	last   int // records 1..last exist
	served atomic.Int64
}

func newRestAPI(t *testing.T, n int) *restAPI {
	a := &restAPI{last: n}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, _ := strconv.Atoi(r.URL.Query().Get("after"))
		time.Sleep(20 * time.Millisecond)
		a.mu.Lock()
		last := a.last
		a.mu.Unlock()
		to := min(after+50, last)
		var b strings.Builder
		b.WriteString(`{"data":[`)
		for id := after + 1; id <= to; id++ {
			if id > after+1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"name":"name-%d","amount":%d.%02d}`, id, id%97, id%10000, id%100)
		}
		b.WriteString(`],"next":`)
		if to < last {
			fmt.Fprintf(&b, `"%d"`, to)
		} else {
			b.WriteString("null")
		}
		b.WriteString("}")
		a.served.Add(int64(max(to-after, 0)))
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *restAPI) grow(n int) {
	a.mu.Lock()
	a.last = n
	a.mu.Unlock()
}

func restEOConfig(api, pgURL, schema string, ascending bool) string {
	asc := ""
	if ascending {
		asc = "\n      replication_key_ascending: true"
	}
	return fmt.Sprintf(`version: 1
name: resteo
delivery: exactly_once
pipeline:
  source:
    type: rest
    config:
      base_url: %s
      path: /items
      records_path: $.data
      pagination: {type: cursor, next_token_path: $.next, param_name: after}
      replication_key: id%s
  sink:
    type: postgres
    config: {connection_url: "%s", schema: %s, table_name: items, column_mapping: auto_map, create_table: true}
  state:
    type: file
    config: {path: state}
`, api, asc, pgURL, schema)
}

// TestRestEOKillNineThenResume loads a paginated API into Postgres with
// delivery: exactly_once, kills faucet with SIGKILL in the middle, reruns
// it, and checks in SQL that every API record is in the table exactly
// once; then the API grows and a third run adds only the new records.
func TestRestEOKillNineThenResume(t *testing.T) {
	const rows = 4000
	pg := newPGDB(t)
	api := newRestAPI(t, rows)
	dir := t.TempDir()
	writeConfig(t, dir, restEOConfig(api.srv.URL, pg.url, pg.schema, true))
	dest := pgDest(pg, "items")

	p := startFaucet(t, dir, "run", "--quiet")
	pollUntil(t, p, "2400 rows in the destination", func() bool { return dest.landed() >= 2400 })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait()
	n := dest.landed()
	if n >= rows {
		t.Fatalf("after kill -9 the destination has %d rows: the kill should land mid-load", n)
	}
	// The state may lag the table (the sink's commit token wins under
	// exactly_once), but never run ahead of it.
	state, ok := stateFile(t, dir, "resteo")
	t.Logf("at the kill: destination %d rows, state %s, API served %d records", n, state, api.served.Load())
	if ok {
		if b := bookmarkID(t, state); dest.upTo(b) != b {
			t.Fatalf("state says ids up to %d are done but the destination holds %d of them", b, dest.upTo(b))
		}
	}
	if _, stderr, code := runFaucet(t, dir, "run", "--quiet"); code != 0 {
		t.Fatalf("rerun: status %d\n%s", code, stderr)
	}
	want := [4]int64{rows, rows, rows * (rows + 1) / 2, rows}
	if got := dest.totals(); got != want {
		t.Fatalf("destination holds %d rows (%d distinct ids, id sum %d, %d with the right name); want %d",
			got[0], got[1], got[2], got[3], want)
	}

	api.grow(rows + 250)
	if _, stderr, code := runFaucet(t, dir, "run", "--quiet"); code != 0 {
		t.Fatalf("third run: status %d\n%s", code, stderr)
	}
	all := int64(rows + 250)
	if got := dest.totals(); got != [4]int64{all, all, all * (all + 1) / 2, all} {
		t.Fatalf("after the API grew the destination holds %v, want %d rows once each", got, all)
	}
	if state, _ := stateFile(t, dir, "resteo"); bookmarkID(t, state) != all {
		t.Errorf("final state %s, want the bookmark %d", state, all)
	}
}

// TestRestEORefusedWithoutAscendingKeys: without
// replication_key_ascending the rest source cannot replay its pages from
// a committed one, so validate and run refuse delivery: exactly_once and
// say what to set.
func TestRestEORefusedWithoutAscendingKeys(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, restEOConfig("http://127.0.0.1:1", "postgres://postgres@127.0.0.1:1/x", "public", false))
	for _, verb := range []string{"validate", "run"} {
		_, stderr, code := runFaucet(t, dir, verb)
		if code != 1 || !strings.Contains(stderr, "delivery: exactly_once: source rest cannot replay its pages from a bookmark") ||
			!strings.Contains(stderr, "replication_key_ascending: true") {
			t.Errorf("%s: status %d\n%s", verb, code, stderr)
		}
	}
}
