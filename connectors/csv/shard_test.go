package csv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

// The shards of a glob read every file, so every row, exactly once.
func TestShardsCoverEveryFileOnce(t *testing.T) {
	dir := t.TempDir()
	id := 0
	for f := range 12 {
		var b strings.Builder
		b.WriteString("id,name\n")
		for range 5 {
			fmt.Fprintf(&b, "%d,n%d\n", id, id)
			id++
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%02d.csv", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	connectortest.ShardsCoverOnce(t, newSource, connectortest.Cfg(t, "path", filepath.Join(dir, "*.csv")), 4, "id", id)
}
