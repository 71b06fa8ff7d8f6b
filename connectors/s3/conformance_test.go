package s3

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// putRows stores n JSON Lines records with increasing id over up to four
// objects whose keys sort in record order.
func putRows(t testing.TB, f *fakeS3, bucket, prefix string, n int) {
	objects := min(4, max(n, 1))
	per := (n + objects - 1) / objects
	for o := 0; o < objects; o++ {
		var b []byte
		for i := o*per + 1; i <= min((o+1)*per, n); i++ {
			b = append(b, `{"id":`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `,"name":"name é","tags":["a","b"],"score":1.5}`+"\n"...)
		}
		f.put(t, bucket, fmt.Sprintf("%spart-%03d.jsonl", prefix, o), b)
	}
}

func mustValue(t testing.TB, x any) connector.Value {
	v, err := connector.FromAny(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestConformance(t *testing.T) {
	f := newFakeS3(t, "conf")
	n := 0
	base := map[string]any{"bucket": "conf", "endpoint_url": f.url, "force_path_style": true}
	with := func(k string, v any) connector.Value {
		m := map[string]any{k: v}
		for bk, bv := range base {
			m[bk] = bv
		}
		return mustValue(t, m)
	}
	connectortest.Run(t, connectortest.Factory{
		Name:     "s3",
		KeyField: "id",
		Source: func(t *testing.T, rows int) connector.Config {
			n++
			prefix := fmt.Sprintf("src%d/", n)
			putRows(t, f, "conf", prefix, rows)
			return f.cfg(t, "conf", "prefix", prefix)
		},
		MissingSource: func(t *testing.T) connector.Config {
			return f.cfg(t, "no-such-bucket")
		},
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			n++
			prefix := fmt.Sprintf("sink%d/", n)
			return f.cfg(t, "conf", "prefix", prefix, "max_records_per_file", 1000), func(t *testing.T) int {
				total := 0
				for _, k := range f.keys(t, "conf", prefix) {
					total += lines(f.get(t, "conf", k))
				}
				return total
			}
		},
		// The store lives in this process: the objects' bytes are live
		// heap and raise the GC's target with them, so 1,000,000 records
		// (60 MB stored) would measure the store, not the source.
		StreamRecords: 300_000,
		BadSourceConfigs: []connector.Value{
			with("list_max_keys", 0),
			with("glob", "a/[b"),
			with("access_key_id", "only-the-id"),
			with("batch_size", -1),
			mustValue(t, map[string]any{"bucket": "a/b"}),
		},
		BadSinkConfigs: []connector.Value{
			with("key_template", "{run_id}.jsonl"),
			with("part_size_mb", 1),
			mustValue(t, map[string]any{"bucket": "conf", "format": "parquet", "compression": "gzip"}),
			with("session_token", "tok"),
		},
	})
}
