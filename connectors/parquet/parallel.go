package parquet

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// columnTasks runs one task per column of a page on up to GOMAXPROCS
// goroutines (the caller's among them), each taking the next task not
// yet taken. Tasks are taken longest first, by how long each took the
// last time, so the goroutines finish together: a long text column taken
// last would leave the others idle while it runs. The sink writes a
// page's columns this way. (Reading the source's flat columns this way
// was tried: no faster on 2 cores, and DuckDB's files, one large page per
// column chunk, then decode every column's page at once: peak RSS 57 ->
// 71 MiB.)
type columnTasks struct {
	order []int
	took  []time.Duration
	errs  []error
}

func newColumnTasks(n int) columnTasks {
	t := columnTasks{order: make([]int, n), took: make([]time.Duration, n), errs: make([]error, n)}
	for i := range t.order {
		t.order[i] = i
	}
	return t
}

// panicError is a task's panic, returned as its error: on a goroutine of
// its own it would end the process.
type panicError struct{ value any }

func (e panicError) Error() string { return fmt.Sprint(e.value) }

// reorder makes the longest task of the last run the first of the next.
func (t *columnTasks) reorder() {
	slices.SortStableFunc(t.order, func(a, b int) int { return cmp.Compare(t.took[b], t.took[a]) })
}

// run runs fn(0) ... fn(n-1), n the number of tasks, and returns the
// first task's error in task order.
func (t *columnTasks) run(fn func(task int) error) error {
	n := len(t.order)
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	clear(t.errs)
	one := func(task int) {
		defer func() {
			if r := recover(); r != nil {
				t.errs[task] = panicError{r}
			}
		}()
		start := time.Now()
		t.errs[task] = fn(task)
		t.took[task] = time.Since(start)
	}
	work := func() {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			one(t.order[i])
		}
	}
	for range min(runtime.GOMAXPROCS(0), n) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	t.reorder()
	for _, err := range t.errs {
		if err != nil {
			return err
		}
	}
	return nil
}
