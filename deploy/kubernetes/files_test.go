package kubernetes

import (
	"os"
	"path/filepath"
	"testing"
)

// copyFolder copies the manifests into a temp dir a test may damage.
func copyFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ms, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, m, string(data))
	}
	return dir
}

func writeFile(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
