package parquet_test

import (
	"os"
	"path/filepath"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
	_ "github.com/faucet-hq/faucet/connectors/parquet"
)

type row struct {
	ID    int64    `parquet:"id"`
	Name  string   `parquet:"name"`
	Score *float64 `parquet:"score,optional"`
	Tags  []string `parquet:"tags,list"`
}

// rows writes n rows in one row group, so streaming must cut it into pages.
func rows(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[row](f, pq.MaxRowsPerRowGroup(int64(n)))
	buf := make([]row, 0, 4096)
	score := 1.5
	for i := 1; i <= n; i++ {
		buf = append(buf, row{ID: int64(i), Name: "name", Score: &score, Tags: []string{"a", "b"}})
		if len(buf) == cap(buf) || i == n {
			if _, err := w.Write(buf); err != nil {
				t.Fatal(err)
			}
			buf = buf[:0]
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Factory{
		Name:     "parquet",
		KeyField: "id",
		Source: func(t *testing.T, n int) connector.Config {
			return connectortest.Cfg(t, "path", rows(t, n))
		},
		MissingSource: func(t *testing.T) connector.Config {
			return connectortest.Cfg(t, "path", filepath.Join(t.TempDir(), "missing.parquet"))
		},
		Sink: func(t *testing.T) (connector.Config, func(t *testing.T) int) {
			path := filepath.Join(t.TempDir(), "out.parquet")
			return connectortest.Cfg(t, "path", path), func(t *testing.T) int {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				st, _ := f.Stat()
				pf, err := pq.OpenFile(f, st.Size())
				if err != nil {
					t.Fatal(err)
				}
				return int(pf.NumRows())
			}
		},
		BadSourceConfigs: []connector.Value{
			mustValue(t, map[string]any{"path": "x.parquet", "batch_size": -1}),
		},
		BadSinkConfigs: []connector.Value{
			mustValue(t, map[string]any{"path": "x.parquet", "row_group_size": 0}),
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
