package recycle

import (
	"sync"
	"testing"
)

func TestListKeepsUpToMax(t *testing.T) {
	l := List[*int]{Max: 2}
	if _, ok := l.Get(); ok {
		t.Fatal("an empty list handed out an item")
	}
	a, b, c := new(int), new(int), new(int)
	if !l.Put(a) || !l.Put(b) {
		t.Fatal("a list below its bound refused an item")
	}
	if l.Put(c) {
		t.Fatal("a full list kept a third item")
	}
	got := map[*int]bool{}
	for range 2 {
		x, ok := l.Get()
		if !ok {
			t.Fatal("a list of two ran out")
		}
		got[x] = true
	}
	if !got[a] || !got[b] {
		t.Fatalf("handed out %v, want the two kept", got)
	}
	if _, ok := l.Get(); ok {
		t.Fatal("the list handed out more than it kept")
	}
	var zero List[[]byte]
	if zero.Put([]byte("x")) {
		t.Fatal("the zero List kept an item")
	}
}

// TestListAcrossGoroutines hands items from producers to consumers
// through the list, as a source's reader and the engine's writer do:
// every item taken out was put in, none twice at once.
func TestListAcrossGoroutines(t *testing.T) {
	l := List[*int]{Max: 8}
	var inUse sync.Map
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				x, ok := l.Get()
				if !ok {
					x = new(int)
				}
				if _, dup := inUse.LoadOrStore(x, g); dup {
					t.Error("an item was handed to two holders at once")
					return
				}
				*x = i
				inUse.Delete(x)
				l.Put(x)
			}
		}()
	}
	wg.Wait()
	n := 0
	for {
		if _, ok := l.Get(); !ok {
			break
		}
		n++
	}
	if n > 8 {
		t.Fatalf("the list held %d items, more than its bound 8", n)
	}
}
