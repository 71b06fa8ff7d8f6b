package parquet

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestColumnTasksRunConcurrently(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	tasks := newColumnTasks(6)
	var ran [6]atomic.Int32
	// Tasks 0 and 1 (the first two taken) each wait for the other to
	// start: run on one goroutine, they would wait forever.
	started := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	err := tasks.run(func(task int) error {
		ran[task].Add(1)
		if task < 2 {
			close(started[task])
			select {
			case <-started[1-task]:
			case <-time.After(10 * time.Second):
				return errors.New("tasks 0 and 1 did not run at the same time")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ran {
		if n := ran[i].Load(); n != 1 {
			t.Errorf("task %d ran %d times", i, n)
		}
	}
}

func TestColumnTasksLongestFirst(t *testing.T) {
	tasks := newColumnTasks(4)
	copy(tasks.took, []time.Duration{3, 9, 1, 5})
	tasks.reorder()
	if got := tasks.order; got[0] != 1 || got[1] != 3 || got[2] != 0 || got[3] != 2 {
		t.Errorf("order = %v, want [1 3 0 2]", got)
	}
}

func TestColumnTasksErrors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	tasks := newColumnTasks(5)
	// The first error in task order wins; a panic is an error, not a crash.
	err := tasks.run(func(task int) error {
		switch task {
		case 1:
			panic("bad page")
		case 3:
			return errors.New("task 3 failed")
		}
		return nil
	})
	var pe panicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "bad page") {
		t.Errorf("error = %v, want task 1's panic", err)
	}
	err = tasks.run(func(task int) error {
		if task >= 2 {
			return errors.New("task failed")
		}
		return nil
	})
	if err == nil || err.Error() != "task failed" {
		t.Errorf("error = %v, want a task's error", err)
	}
}
