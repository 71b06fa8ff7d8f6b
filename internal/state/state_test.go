package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// storeSuite runs the behaviour every Store must have.
func storeSuite(t *testing.T, open func(t *testing.T) Store) {
	ctx := context.Background()
	t.Run("roundtrip", func(t *testing.T) {
		s := open(t)
		if _, ok, err := s.Get(ctx, "p::row-0"); ok || err != nil {
			t.Fatalf("missing key: ok=%v err=%v", ok, err)
		}
		for _, v := range []string{`"2024-01-01T00:00:00Z"`, `1234`, `{"a":[1,2]}`} {
			if err := s.Put(ctx, "p::row-0", []byte(v)); err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.Get(ctx, "p::row-0")
			if err != nil || !ok || string(got) != v {
				t.Fatalf("got %s ok=%v err=%v, want %s", got, ok, err, v)
			}
		}
		if err := s.Delete(ctx, "p::row-0"); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "p::row-0"); err != nil {
			t.Fatal("deleting a missing key must succeed:", err)
		}
		if _, ok, _ := s.Get(ctx, "p::row-0"); ok {
			t.Fatal("deleted key still there")
		}
	})
	t.Run("invalid keys", func(t *testing.T) {
		s := open(t)
		for _, k := range []string{"", ".hidden", "a/b", "spaces here", strings.Repeat("k", 257)} {
			if err := s.Put(ctx, k, []byte("1")); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("key %q: err = %v", k, err)
			}
		}
	})
	t.Run("concurrent keys", func(t *testing.T) {
		s := open(t)
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				key := "p::row-" + string(rune('a'+i))
				for j := 0; j < 20; j++ {
					if err := s.Put(ctx, key, []byte{'1' + byte(j%9)}); err != nil {
						t.Error(err)
					}
				}
			}(i)
		}
		wg.Wait()
		for i := 0; i < 16; i++ {
			got, ok, err := s.Get(ctx, "p::row-"+string(rune('a'+i)))
			if err != nil || !ok || string(got) != "2" {
				t.Errorf("key %d: %s %v %v", i, got, ok, err)
			}
		}
	})
}

func TestMemoryStore(t *testing.T) {
	storeSuite(t, func(*testing.T) Store { return NewMemory() })
}

func TestFileStore(t *testing.T) {
	storeSuite(t, func(t *testing.T) Store { return NewFile(filepath.Join(t.TempDir(), "state")) })
}

func TestFileStoreLayoutAndCorruption(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := NewFile(dir)
	if err := s.Put(ctx, "orders::row-0", []byte(`"42"`)); err != nil {
		t.Fatal(err)
	}
	// Same layout as faucet-cli 1.x: ':' escaped as %3A, one .json per key.
	data, err := os.ReadFile(filepath.Join(dir, "orders%3A%3Arow-0.json"))
	if err != nil || string(data) != `"42"` {
		t.Fatalf("file content %q err %v", data, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	if err := os.WriteFile(filepath.Join(dir, "orders%3A%3Arow-0.json"), []byte(`{"trunc`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(ctx, "orders::row-0")
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "is corrupt") {
		t.Fatalf("err = %v", err)
	}
}

func TestFileStoreFailedWriteKeepsPreviousState(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := NewFile(dir)
	if err := s.Put(ctx, "p::row-0", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	// A value that is not JSON is refused before anything is touched.
	if err := s.Put(ctx, "p::row-0", []byte(`{`)); err == nil {
		t.Fatal("invalid JSON accepted")
	}
	// Make the rename fail: replace the target by a non-empty directory.
	target := s.PathFor("p::row-0")
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "p::row-0", []byte(`2`)); err == nil {
		t.Fatal("expected the write to fail")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
}

func TestReadOnlyDropsWrites(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	_ = m.Put(ctx, "p::row-0", []byte("1"))
	ro := ReadOnly(m)
	if err := ro.Put(ctx, "p::row-0", []byte("2")); err != nil {
		t.Fatal(err)
	}
	_ = ro.Delete(ctx, "p::row-0")
	got, _, _ := ro.Get(ctx, "p::row-0")
	if string(got) != "1" {
		t.Fatalf("read-only store changed: %s", got)
	}
}
