package engine

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/recycle"
)

// work is one page on its way from the reader to the writer.
type work struct {
	page    *connector.Page
	failed  []failure // records that failed to decode or transform
	read    int64     // records the source produced for this page
	dropped int64
	encoded []byte // the page's bytes when the sink is a PageEncoder
	err     error  // a page-level failure (the source could not be read)
	// encodeErr marks err as the sink's: the page could not be encoded.
	encodeErr bool
	// kept maps the position of a record in page.Records after the
	// transforms to its position among the page's decoded records; nil
	// when the transforms removed none.
	kept []int32
	// trimmed: the page's Records were dropped once encoded (see
	// stages.trim); records is how many there were.
	trimmed bool
	records int
}

// count is the number of records the page carries to the sink.
func (w *work) count() int {
	if w.trimmed {
		return w.records
	}
	return len(w.page.Records)
}

// decoded is the position among the page's decoded records of the record
// now at position i of page.Records.
func (w *work) decoded(i int) int {
	if w.kept != nil && i < len(w.kept) {
		return int(w.kept[i])
	}
	return i
}

// failure is a failed record and its position among the page's decoded
// records (-1 when the source reported it without a position).
type failure struct {
	local int
	err   connector.RecordError
	// reason overrides the envelope's reason (by default from the stage).
	reason string
}

// stages runs the reader and the workers; results come out of out in any
// order and the writer restores it.
type stages struct {
	row     Row
	encoder connector.PageEncoder
	// trim: once encoded, a page's records are read by nothing else (the
	// sink writes the bytes only; no --limit re-encode, no exactly-once
	// write of records, no dead-lettering of a whole page), so they are
	// dropped and their memory goes back to the source before the page
	// waits for the writer.
	trim   bool
	gate   *encodeGate
	tokens chan struct{} // bounds the pages in flight
	out    chan *work
	wg     sync.WaitGroup
	bufs   recycle.List[[]byte]  // encoded pages' buffers: workers take, the writer gives back
	kept   recycle.List[[]int32] // for work.kept
}

func startStages(ctx context.Context, row Row, encoder connector.PageEncoder) *stages {
	inflight := 2 * row.Workers
	s := &stages{
		row:     row,
		encoder: encoder,
		gate:    newEncodeGate(),
		tokens:  make(chan struct{}, inflight),
		out:     make(chan *work, inflight),
		bufs:    recycle.List[[]byte]{Max: inflight},
		kept:    recycle.List[[]int32]{Max: inflight},
	}
	if _, ok := encoder.(connector.EncodedOnlyWriter); ok {
		s.trim = row.Limit == 0 && !row.ExactlyOnce && (row.DLQ == nil || !row.DLQ.AllOnBatchError)
	}
	jobs := make(chan *work, row.Workers)
	s.wg.Add(1 + row.Workers)
	go s.read(ctx, jobs)
	for i := 0; i < row.Workers; i++ {
		go s.process(ctx, jobs)
	}
	go func() {
		s.wg.Wait()
		close(s.out)
	}()
	return s
}

// release returns the token of a page the writer is done with and hands
// its buffers back to the source.
func (s *stages) release(w *work) {
	w.page.Done()
	if w.encoded != nil {
		s.bufs.Put(w.encoded[:0])
		w.encoded = nil
	}
	if w.kept != nil {
		s.kept.Put(w.kept[:0])
		w.kept = nil
	}
	<-s.tokens
}

func (s *stages) read(ctx context.Context, jobs chan<- *work) {
	defer s.wg.Done()
	defer close(jobs)
	var seq uint64
	for {
		select {
		case s.tokens <- struct{}{}:
		case <-ctx.Done():
			return
		}
		var p *connector.Page
		err := s.row.Retry.do(ctx, func() error {
			var err error
			p, err = s.row.Source.Next(ctx)
			return err
		}, func(n int, err error, wait time.Duration) {
			s.row.Logger.Warn("source read failed, retrying", "attempt", n, "wait", wait.String(), "error", err)
		})
		if errors.Is(err, io.EOF) {
			<-s.tokens
			return
		}
		w := &work{err: err}
		if err == nil {
			p.Seq = seq
			w.page = p
		} else {
			w.page = &connector.Page{Seq: seq}
		}
		seq++
		select {
		case jobs <- w:
		case <-ctx.Done():
			w.page.Done()
			<-s.tokens
			return
		}
		if err != nil {
			return
		}
	}
}

func (s *stages) process(ctx context.Context, jobs <-chan *work) {
	defer s.wg.Done()
	for w := range jobs {
		if w.err == nil {
			s.prepare(w)
		} else {
			s.gate.skip(w.page.Seq)
		}
		select {
		case s.out <- w:
		case <-ctx.Done():
			w.page.Done()
			<-s.tokens
		}
	}
}

// prepare decodes, transforms and encodes one page.
func (s *stages) prepare(w *work) {
	p := w.page
	if err := p.Materialize(); err != nil {
		w.err = err
		s.gate.skip(p.Seq)
		return
	}
	w.read = int64(len(p.Records) + len(p.Failed))
	for _, f := range p.Failed {
		w.failed = append(w.failed, failure{local: -1, err: f})
	}
	p.Failed = nil
	if len(s.row.Transforms) > 0 {
		s.transform(w)
	}
	if s.encoder == nil {
		return
	}
	buf, _ := s.bufs.Get()
	s.gate.enter(p.Seq)
	buf, err := s.encoder.EncodePage(p, buf)
	s.gate.leave(p.Seq, len(p.Records) > 0)
	if err != nil {
		w.err, w.encodeErr = err, true
		return
	}
	w.encoded = buf
	if s.trim && len(w.failed) == 0 {
		// Failed records may refer to the page's memory until the writer
		// has dead-lettered them, so such a page keeps it.
		w.trimmed, w.records = true, len(p.Records)
		p.TrimRecords()
	}
}

// transform applies the transforms to every record of the page, dropping
// filtered ones and setting failed ones aside. With a DLQ, a failed record
// is dead-lettered as it came from the source, so each record is copied
// before the transforms touch it.
func (s *stages) transform(w *work) {
	p := w.page
	recs := p.Records
	kept := recs[:0]
	keepOriginal := s.row.DLQ != nil
	var original connector.Record
	for i := range recs {
		r := &recs[i]
		if keepOriginal {
			original = r.Clone()
		}
		keep := true
		for _, st := range s.row.Transforms {
			ok, err := st.Transform.Apply(r)
			if err != nil {
				rec := original
				if !keepOriginal {
					rec = r.Clone()
				}
				re := connector.RecordError{
					Stage: connector.StageTransform, Component: st.Name, Record: &rec, Err: err,
				}
				if p.Locate != nil {
					re.Location, re.RowID = p.Locate(i)
				}
				w.failed = append(w.failed, failure{local: i, err: re})
				keep = false
				break
			}
			if !ok {
				w.dropped++
				keep = false
				break
			}
		}
		if keep {
			if w.kept != nil {
				w.kept = append(w.kept, int32(i))
			}
			kept = append(kept, *r)
		} else if w.kept == nil {
			// The first removed record: from here on positions shift.
			k, ok := s.kept.Get()
			if !ok {
				k = make([]int32, 0, len(recs)) // non-nil: nil means "none removed"
			}
			for j := range kept {
				k = append(k, int32(j))
			}
			w.kept = k
		}
	}
	clear(recs[len(kept):])
	w.page.Records = kept
}

// encodeGate makes the first non-empty page the first one encoded, so a
// PageEncoder can fix per-stream facts (a CSV header) from it; once that
// happened, pages encode concurrently.
type encodeGate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	next   uint64 // lowest sequence number not yet encoded while unprimed
	done   map[uint64]bool
	primed bool
}

func newEncodeGate() *encodeGate {
	g := &encodeGate{done: map[uint64]bool{}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// enter waits, while no non-empty page was encoded yet, until every earlier
// page has been encoded or skipped.
func (g *encodeGate) enter(seq uint64) {
	g.mu.Lock()
	for !g.primed && g.next != seq {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

func (g *encodeGate) leave(seq uint64, nonEmpty bool) {
	g.mu.Lock()
	if nonEmpty {
		g.primed = true
	}
	g.advance(seq)
	g.mu.Unlock()
	g.cond.Broadcast()
}

// skip marks a page that will not be encoded (it failed to decode).
func (g *encodeGate) skip(seq uint64) {
	g.mu.Lock()
	g.advance(seq)
	g.mu.Unlock()
	g.cond.Broadcast()
}

func (g *encodeGate) advance(seq uint64) {
	if g.primed {
		return
	}
	g.done[seq] = true
	for g.done[g.next] {
		delete(g.done, g.next)
		g.next++
	}
}
