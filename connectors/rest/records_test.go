package rest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

const doc = `{"data":[{"id":1},{"id":2}],"meta":{"next":"x","list":[1,2,3]},"@odata.nextLink":"u",
 "groups":[{"members":[{"id":1}]},{"members":[{"id":2},{"id":3}]}],"odd key":true}`

func TestJSONPath(t *testing.T) {
	body, err := connector.ParseJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"$.data[*].id", "1 2"},
		{"$.data[1].id", "2"},
		{"$.data[-1].id", "2"},
		{"$.data[5]", ""},
		{"$.meta.next", `"x"`},
		{"$['@odata.nextLink']", `"u"`},
		{`$["odd key"]`, "true"},
		{"$.groups[*].members[*].id", "1 2 3"},
		{"$.meta.*", `"x" [1,2,3]`},
		{"$.meta.list[*]", "1 2 3"},
		{"$.missing.x", ""},
		{"$.data.id", ""},
	} {
		p, err := parsePath(tc.path)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		var got []string
		for _, v := range p.all(body) {
			got = append(got, v.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s selected %q, want %q", tc.path, strings.Join(got, " "), tc.want)
		}
	}
	for _, bad := range []struct{ path, msg string }{
		{"data", "must start with $"},
		{"$..id", "recursive descent"},
		{"$.", "expected a member name"},
		{"$.a[", "missing ]"},
		{"$['a", "unterminated"},
		{"$.a[?(@.x>1)]", "is not supported"},
		{"$ .a", "unexpected"},
	} {
		if _, err := parsePath(bad.path); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%s: want an error saying %q, got %v", bad.path, bad.msg, err)
		}
	}
}

// TestRecordsPath checks what becomes a record: the values records_path
// selects (a single array unpacked), the array or object body without
// it, and non-objects as failed records.
func TestRecordsPath(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc":
			w.Write([]byte(doc))
		case "/mixed":
			w.Write([]byte(`[{"id":1},7,"x",null,{"id":2}]`))
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		path, records string
		ids           []int64
		failed        int
	}{
		{"/doc", "$.data", []int64{1, 2}, 0},
		{"/doc", "$.data[*]", []int64{1, 2}, 0},
		{"/doc", "$.groups[*].members[*]", []int64{1, 2, 3}, 0},
		{"/doc", "$.meta", []int64{0}, 0}, // one object record
		{"/doc", "$.nothing", nil, 0},
		{"/mixed", "", []int64{1, 2}, 3},
	} {
		cfg := []any{"base_url", srv.URL, "path", tc.path}
		if tc.records != "" {
			cfg = append(cfg, "records_path", tc.records)
		}
		var log logBuf
		res, err := drain(context.Background(), newSrc(t, cfg...), nil, &log)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(res.Records); !equalIDs(got, tc.ids) || len(res.Failed) != tc.failed {
			t.Errorf("%s %s: records %v and %d failed, want %v and %d", tc.path, tc.records, got, len(res.Failed), tc.ids, tc.failed)
		}
		if tc.records == "$.nothing" && !strings.Contains(log.String(), "records_path selected nothing") {
			t.Errorf("no warning for a records_path that selects nothing:\n%s", log.String())
		}
		if tc.failed > 0 {
			f := res.Failed[0]
			if f.Raw != "7" || f.RowID != 2 || !strings.Contains(f.Error(), "record 2") || !strings.Contains(f.Error(), "is a number, not a JSON object") {
				t.Errorf("failed record: raw %q row %d: %v", f.Raw, f.RowID, &f)
			}
		}
	}
}
