package jsonl

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
		b.WriteString("")
		for range 5 {
			fmt.Fprintf(&b, "{\"id\":%d,\"name\":\"n%d\"}\n", id, id)
			id++
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%02d.jsonl", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	connectortest.ShardsCoverOnce(t, newSource, connectortest.Cfg(t, "path", filepath.Join(dir, "*.jsonl")), 4, "id", id)
}
