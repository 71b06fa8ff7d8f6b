package serve

import (
	"context"
	"testing"
)

// granted reports whether t holds a slot, without waiting.
func granted(t *slotTicket) bool {
	select {
	case <-t.granted:
		return true
	default:
		return false
	}
}

func TestSlotQueueIsFirstComeFirstServed(t *testing.T) {
	q := newSlotQueue(2)
	a, b := q.enqueue(), q.enqueue()
	if !granted(a) || !granted(b) {
		t.Fatal("two free slots were not taken at once")
	}
	c, d, e := q.enqueue(), q.enqueue(), q.enqueue()
	if granted(c) || granted(d) || granted(e) {
		t.Fatal("a ticket was granted with no slot free")
	}
	q.release()
	if !granted(c) || granted(d) || granted(e) {
		t.Fatal("a released slot did not go to the first in line")
	}
	// d leaves the line: the next slot goes to e.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d.wait(ctx) {
		t.Fatal("a cancelled waiter reported a slot")
	}
	q.release()
	if !granted(e) {
		t.Fatal("the slot skipped past the waiter after a cancelled one")
	}
	// A slot granted to a waiter that was cancelled at the same time goes
	// on to the next in line; none is lost.
	f, g := q.enqueue(), q.enqueue()
	q.release()
	if !granted(f) {
		t.Fatal("f not granted")
	}
	if f.wait(ctx) {
		t.Fatal("a cancelled waiter kept its slot")
	}
	if !granted(g) {
		t.Fatal("the slot given back by a cancelled waiter was lost")
	}
	// e and g hold the two slots now.
	q.release()
	q.release()
	if q.free != 2 || len(q.waiting) != 0 {
		t.Fatalf("free %d, waiting %d after every slot came back", q.free, len(q.waiting))
	}
}
