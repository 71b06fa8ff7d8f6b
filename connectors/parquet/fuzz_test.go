package parquet

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// FuzzSource feeds arbitrary bytes to the source as a Parquet file: it
// must return records or an error naming the file, never panic.
func FuzzSource(f *testing.F) {
	s := "x"
	for _, rows := range [][]typed{
		{{S: "abc", Opt: &s, Tags: []string{"a"}, Points: []point{{X: 1}}, Counts: map[string]int64{"k": 1}}},
		{{I32: 1}, {I32: 2, Matrix: [][]int32{{1}, {}}}},
	} {
		var b bytes.Buffer
		w := pq.NewGenericWriter[typed](&b)
		if _, err := w.Write(rows); err != nil {
			f.Fatal(err)
		}
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := newSource(connectortest.Cfg(t, "path", path, "batch_size", 2))
		if err != nil {
			t.Fatal(err)
		}
		// A few bytes of run-length encoded levels can stand for billions
		// of rows: read a bounded number of pages.
		err = src.Open(context.Background(), connector.SourceOptions{})
		for pages := 0; err == nil && pages < 64; pages++ {
			_, err = src.Next(context.Background())
		}
		src.Close()
		if err != nil && err != io.EOF && !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the file", err)
		}
	})
}
