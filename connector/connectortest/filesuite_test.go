package connectortest_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"

	_ "github.com/faucet-hq/faucet/connectors/csv"
	_ "github.com/faucet-hq/faucet/connectors/jsonl"
)

// writeRows writes n generated rows through line (which formats row i).
func writeRows(t *testing.T, name, header string, n int, line func(b []byte, i int) []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(header)
	var b []byte
	for i := 1; i <= n; i++ {
		b = line(b[:0], i)
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte{'\n'})
}

func csvRows(t *testing.T, n int) string {
	return writeRows(t, "in.csv", "id,name,score\n", n, func(b []byte, i int) []byte {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ",name "...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ",1.5\n"...)
		return b
	})
}

func TestCSVConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Factory{
		Name: "csv",
		// Recycled read buffers and page memory: a few bytes per record.
		MaxAllocPerRecord: 16,
		KeyField:          "id",
		Source: func(t *testing.T, n int) connector.Config {
			return connectortest.Cfg(t, "path", csvRows(t, n))
		},
		Incremental: func(t *testing.T, n int) connector.Config {
			return connectortest.Cfg(t, "path", csvRows(t, n), "replication_key", "id")
		},
		MissingSource: func(t *testing.T) connector.Config {
			return connectortest.Cfg(t, "path", filepath.Join(t.TempDir(), "missing.csv"))
		},
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			path := filepath.Join(t.TempDir(), "out.csv")
			return connectortest.Cfg(t, "path", path), func(t *testing.T) int { return countLines(t, path) - 1 }
		},
		BadSourceConfigs: []connector.Value{mustValue(t, map[string]any{"path": "x.csv", "batch_size": -1})},
	})
}

func jsonlRows(t *testing.T, n int) string {
	return writeRows(t, "in.jsonl", "", n, func(b []byte, i int) []byte {
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, fmt.Sprintf(`,"name":"name %d","tags":["a","b"],"score":1.5}`+"\n", i)...)
		return b
	})
}

func TestJSONLConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Factory{
		Name: "jsonl",
		// Recycled read buffers and page memory: a few bytes per record.
		MaxAllocPerRecord: 16,
		KeyField:          "id",
		Source: func(t *testing.T, n int) connector.Config {
			return connectortest.Cfg(t, "path", jsonlRows(t, n))
		},
		Incremental: func(t *testing.T, n int) connector.Config {
			return connectortest.Cfg(t, "path", jsonlRows(t, n), "replication_key", "id")
		},
		MissingSource: func(t *testing.T) connector.Config {
			return connectortest.Cfg(t, "path", filepath.Join(t.TempDir(), "missing.jsonl"))
		},
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			path := filepath.Join(t.TempDir(), "out.jsonl")
			return connectortest.Cfg(t, "path", path), func(t *testing.T) int { return countLines(t, path) }
		},
	})
}

func mustValue(t *testing.T, x any) connector.Value {
	v, err := connector.FromAny(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
