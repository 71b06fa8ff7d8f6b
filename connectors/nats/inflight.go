package nats

import (
	"sort"
	"sync"
)

// inflight is the JetStream source's account of delivered messages that
// are not acknowledged yet, by page. Next (the engine's reader goroutine)
// adds to it and Committed (the writer goroutine) takes from it.
type inflight struct {
	mu sync.Mutex
	// pending maps a stream sequence to the reply subject of its latest
	// delivery (acknowledging any delivery acknowledges the message).
	pending map[uint64]string
	pages   []pageSeqs // pages with messages, not yet committed, in order
	next    uint64     // number the engine gives the next page returned
	acked   spans      // stream sequences acknowledged during this run
	// committed is signalled (without blocking) after each commit, for a
	// Next that waits for room under max_ack_pending.
	committed chan struct{}
}

// pageSeqs is the stream sequences a page carried.
type pageSeqs struct {
	num  uint64
	seqs []uint64
}

func newInflight() *inflight {
	return &inflight{pending: map[uint64]string{}, committed: make(chan struct{}, 1)}
}

// verdict says what to do with a delivered message.
type verdict int

const (
	emit    verdict = iota // new: put it in the page
	inPage                 // redelivered while an earlier page holds it: skip
	settled                // redelivered although acknowledged: acknowledge again, skip
)

// deliver records a delivery of stream sequence seq with reply subject
// reply and says whether the message belongs in the page being built.
func (f *inflight) deliver(seq uint64, reply string) verdict {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.acked.has(seq) {
		return settled
	}
	_, held := f.pending[seq]
	f.pending[seq] = reply
	if held {
		return inPage
	}
	return emit
}

// returned numbers a page Next returns; seqs are its messages (none for
// an empty page).
func (f *inflight) returned(seqs []uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(seqs) > 0 {
		f.pages = append(f.pages, pageSeqs{num: f.next, seqs: seqs})
	}
	f.next++
}

// upTo returns the reply subjects of the messages of pages numbered at
// most n, in page order, and how many pages that is.
func (f *inflight) upTo(n uint64) (replies []string, pages int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.pages {
		if p.num > n {
			break
		}
		pages++
		for _, s := range p.seqs {
			replies = append(replies, f.pending[s])
		}
	}
	return replies, pages
}

// done drops the first pages (acknowledged) from the account.
func (f *inflight) done(pages int) {
	f.mu.Lock()
	for _, p := range f.pages[:pages] {
		for _, s := range p.seqs {
			delete(f.pending, s)
			f.acked.add(s)
		}
	}
	f.pages = append(f.pages[:0], f.pages[pages:]...)
	f.mu.Unlock()
	select {
	case f.committed <- struct{}{}:
	default:
	}
}

// outstanding is how many delivered messages wait for an acknowledgement.
func (f *inflight) outstanding() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pending)
}

// unacked returns the reply subjects of every pending message.
func (f *inflight) unacked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.pending))
	for _, r := range f.pending {
		out = append(out, r)
	}
	return out
}

// spans is a set of integers kept as sorted, disjoint, non-adjacent
// closed ranges: acknowledged stream sequences are mostly consecutive, so
// a run of any length takes a few ranges.
type spans []span

type span struct{ lo, hi uint64 }

func (s spans) has(x uint64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].hi >= x })
	return i < len(s) && s[i].lo <= x
}

func (s *spans) add(x uint64) {
	r := *s
	i := sort.Search(len(r), func(i int) bool { return r[i].hi >= x })
	switch {
	case i < len(r) && r[i].lo <= x:
		return // already in
	case i < len(r) && r[i].lo == x+1:
		r[i].lo = x
		if i > 0 && r[i-1].hi+1 == x {
			r[i-1].hi = r[i].hi
			r = append(r[:i], r[i+1:]...)
		}
	case i > 0 && r[i-1].hi+1 == x:
		r[i-1].hi = x
	default:
		r = append(r, span{})
		copy(r[i+1:], r[i:])
		r[i] = span{x, x}
	}
	*s = r
}
