package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/state"
)

// writer is the ordered end of the pipeline: it owns the sink, the DLQ and
// the state store during a run.
type writer struct {
	row       Row
	encoder   connector.PageEncoder
	merger    connector.BookmarkMerger
	overwrite connector.Overwriter // set when the sink stages the run for one swap
	eo        *eoRun               // set under delivery: exactly_once
	// committer is the source when it waits for commits (see
	// connector.Committer); nil in runs that keep nothing.
	committer   connector.Committer
	uncommitted bool   // pages were written since the source was last told
	lastSeq     uint64 // Seq of the last page written

	pending    *connector.Value // bookmark of written pages not yet saved
	saved      *connector.Value // bookmark saved last
	stateSaved bool
	lastSave   time.Time

	written, read, dlq, dropped int64
	limitHit                    bool
}

func newWriter(row Row, resume *connector.Value) *writer {
	w := &writer{row: row, saved: resume, lastSave: time.Now()}
	w.encoder, _ = row.Sink.(connector.PageEncoder)
	w.merger, _ = row.Source.(connector.BookmarkMerger)
	if ow, ok := row.Sink.(connector.Overwriter); ok && ow.Overwriting() {
		w.overwrite = ow
	}
	_, dryRun := row.Sink.(*CountingSink)
	if c, ok := row.Source.(connector.Committer); ok && !dryRun && row.Limit == 0 && !state.IsReadOnly(row.State) {
		w.committer = c
	}
	return w
}

func (w *writer) result() Result {
	return Result{
		Read: w.read, Written: w.written, DLQ: w.dlq, Dropped: w.dropped,
		Bookmark: w.saved, StateSaved: w.stateSaved, LimitHit: w.limitHit,
	}
}

// run drives the stages and writes pages in order.
func (w *writer) run(ctx context.Context) (err error) {
	ictx, stop := context.WithCancel(ctx)
	st := startStages(ictx, w.row, w.encoder)
	held := map[uint64]*work{}
	defer func() {
		stop()
		for it := range st.out { // let the reader and workers finish
			it.page.Done()
		}
		for _, it := range held {
			it.page.Done()
		}
	}()
	// Finishing work must not be cut short by the cancellation it reacts to.
	fctx := context.WithoutCancel(ctx)

	var next uint64
	for {
		var item *work
		if it, ok := held[next]; ok {
			item = it
			delete(held, next)
		} else {
			select {
			case <-ctx.Done():
				return w.stop(fctx, ctx.Err())
			case it, ok := <-st.out:
				if !ok {
					if len(held) > 0 {
						return fmt.Errorf("engine: %d pages lost in flight", len(held))
					}
					return w.finish(fctx)
				}
				if it.page.Seq != next {
					held[it.page.Seq] = it
					continue
				}
				item = it
			}
		}
		next++
		done, err := w.handle(ctx, fctx, item)
		st.release(item)
		if err != nil {
			return w.stop(fctx, err)
		}
		if next == warmPages && w.row.Warm != nil {
			w.row.Warm()
		}
		if done {
			return w.finish(fctx)
		}
		if ctx.Err() != nil {
			return w.stop(fctx, ctx.Err())
		}
	}
}

// handle writes one page; done reports that the limit was reached.
func (w *writer) handle(ctx, fctx context.Context, it *work) (done bool, err error) {
	if it.err != nil {
		if it.encodeErr {
			// Encoding happens before anything reaches the sink, so the
			// pages written so far stay good and their bookmark is saved.
			return false, fmt.Errorf("sink %s: %w", w.row.SinkType, it.err)
		}
		return false, fmt.Errorf("source %s: %w", w.row.SourceType, it.err)
	}
	p := it.page
	base := w.read
	w.read += it.read
	w.dropped += it.dropped
	w.row.Stats.Read.Add(it.read)
	w.row.Stats.Dropped.Add(it.dropped)
	if len(it.failed) > 0 {
		for i := range it.failed {
			if f := &it.failed[i]; f.err.RowID == 0 && f.local >= 0 {
				f.err.RowID = base + int64(f.local) + 1
			}
		}
		if err := w.deadLetter(fctx, it.failed); err != nil {
			return false, err
		}
	}
	if w.row.Limit > 0 && w.written+int64(len(p.Records)) >= w.row.Limit {
		p.Records = p.Records[:w.row.Limit-w.written]
		done, w.limitHit = true, true
		if w.encoder != nil {
			it.encoded, err = w.encoder.EncodePage(p, it.encoded[:0])
			if err != nil {
				return false, fmt.Errorf("sink %s: %w", w.row.SinkType, err)
			}
		}
	}
	if w.eo != nil && p.Bookmark != nil && !w.limitHit {
		return done, w.writeExactlyOnce(ctx, fctx, p)
	}
	pageDLQ := int64(len(it.failed))
	if it.count() > 0 {
		n, err := w.write(ctx, fctx, it, base)
		if err != nil {
			return false, err
		}
		pageDLQ += n
	}
	w.row.Stats.Pages.Add(1)
	w.wrote(p)
	if p.Bookmark != nil && !w.limitHit {
		w.foldBookmark(*p.Bookmark)
	}
	if err := w.overBudget(pageDLQ); err != nil {
		// The page that crossed the budget is committed with its bookmark.
		if cerr := w.checkpoint(fctx); cerr != nil {
			return false, cerr
		}
		return false, err
	}
	if (w.pending != nil || w.uncommitted) && time.Since(w.lastSave) >= w.row.CheckpointEvery {
		if err := w.checkpoint(fctx); err != nil {
			return false, err
		}
	}
	return done, nil
}

// write writes the records of a page to the sink (retrying what the sink
// marks retryable) and returns how many of them were dead-lettered: the
// ones the sink refused, or, under on_batch_error: dlq_all, all of them
// when the sink failed the page as a whole.
func (w *writer) write(ctx, fctx context.Context, it *work, base int64) (int64, error) {
	p := it.page
	dlqAll := w.row.DLQ != nil && w.row.DLQ.AllOnBatchError
	err := w.row.Retry.do(ctx, func() error {
		if w.encoder != nil {
			return w.encoder.WriteEncoded(fctx, p, it.encoded)
		}
		return w.row.Sink.Write(fctx, p)
	}, w.logRetry("sink write"))
	if err == nil && dlqAll {
		// Commit the page alone, so that a later failed page is the only
		// one its failure takes.
		err = w.row.Sink.Flush(fctx)
	}
	if err != nil {
		err = fmt.Errorf("sink %s: %w", w.row.SinkType, err)
		if !dlqAll || ctx.Err() != nil {
			return 0, &sinkFailure{err}
		}
		p.Failed = p.Failed[:0]
		failed := make([]failure, len(p.Records))
		for i := range p.Records {
			re := connector.RecordError{Stage: connector.StageSink, Component: w.row.SinkType, Record: &p.Records[i], Err: err}
			w.locate(it, base, i, &re)
			failed[i] = failure{local: -1, err: re, reason: "dlq_all"}
		}
		return int64(len(failed)), w.deadLetter(fctx, failed)
	}
	refused, err := w.refused(fctx, it, base)
	if err != nil {
		return 0, err
	}
	n := int64(it.count()) - refused
	w.written += n
	w.row.Stats.Written.Add(n)
	return refused, nil
}

// refused sends the records a sink reported in p.Failed during Write (an
// HTTP endpoint answering 400 for them) to the DLQ, or fails the run with
// the first one when there is no DLQ. Source and transform failures were
// taken off the page before the write, so these are the sink's.
func (w *writer) refused(ctx context.Context, it *work, base int64) (int64, error) {
	p := it.page
	if len(p.Failed) == 0 {
		return 0, nil
	}
	failed := make([]failure, len(p.Failed))
	for i, f := range p.Failed {
		if f.PageIndex > 0 && f.PageIndex <= it.count() {
			w.locate(it, base, f.PageIndex-1, &f)
		}
		failed[i] = failure{local: -1, err: f}
	}
	p.Failed = nil
	return int64(len(failed)), w.deadLetter(ctx, failed)
}

// locate names the source row of the record at position i of the page's
// records: the source's location when it keeps them (Page.Locate), and
// the row's 1-based position in the stream.
func (w *writer) locate(it *work, base int64, i int, re *connector.RecordError) {
	d := it.decoded(i)
	re.RowID = base + int64(d) + 1
	if it.page.Locate == nil {
		return
	}
	if loc, row := it.page.Locate(d); loc != "" {
		re.Location, re.RowID = loc, row
	}
}

// overBudget is the error once the DLQ holds more than its limits allow.
func (w *writer) overBudget(pageDLQ int64) error {
	q := w.row.DLQ
	switch {
	case q == nil:
		return nil
	case q.MaxTotal > 0 && w.dlq > q.MaxTotal:
		return fmt.Errorf("dead-letter limit exceeded: %d records failed (max_failures_total %d)", w.dlq, q.MaxTotal)
	case q.MaxPerPage > 0 && pageDLQ > q.MaxPerPage:
		return fmt.Errorf("dead-letter limit exceeded: %d records of one page failed (max_failures_per_page %d)", pageDLQ, q.MaxPerPage)
	}
	return nil
}

// wrote notes that page p is in the sink, for the source's next commit.
func (w *writer) wrote(p *connector.Page) {
	if w.committer != nil && !w.limitHit {
		w.uncommitted, w.lastSeq = true, p.Seq
	}
}

func (w *writer) foldBookmark(b connector.Value) {
	m := w.merged(b)
	w.pending = &m
}

// merged is the bookmark after a page with bookmark b, detached from it.
func (w *writer) merged(b connector.Value) connector.Value {
	b = b.Detach() // outlives the page
	cur := w.pending
	if cur == nil {
		cur = w.saved
	}
	if w.merger != nil && cur != nil {
		b = w.merger.MergeBookmark(*cur, b)
	}
	return b
}

// writeExactlyOnce writes a bookmarked page together with its commit
// token, or skips it when the sink already committed it.
func (w *writer) writeExactlyOnce(ctx, fctx context.Context, p *connector.Page) error {
	bm := w.merged(*p.Bookmark)
	w.eo.seq++
	if w.eo.seq <= w.eo.committed {
		w.eo.skipped++
	} else {
		tok := commitToken(w.eo.seq, bm)
		err := w.row.Retry.do(ctx, func() error {
			return w.eo.sink.WriteIdempotent(fctx, p, w.row.StateKey, tok)
		}, w.logRetry("sink write"))
		if err != nil {
			return &sinkFailure{fmt.Errorf("sink %s: %w", w.row.SinkType, err)}
		}
		w.written += int64(len(p.Records))
		w.row.Stats.Written.Add(int64(len(p.Records)))
	}
	w.row.Stats.Pages.Add(1)
	w.wrote(p)
	w.pending, w.eo.savedSeq = &bm, w.eo.seq
	if time.Since(w.lastSave) >= w.row.CheckpointEvery {
		return w.checkpoint(fctx)
	}
	return nil
}

func (w *writer) logRetry(what string) func(int, error, time.Duration) {
	return func(n int, err error, wait time.Duration) {
		w.row.Logger.Warn(what+" failed, retrying", "attempt", n, "wait", wait.String(), "error", err)
	}
}

// checkpoint flushes the DLQ and the sink, saves the pending bookmark,
// then tells a committing source which pages are done.
func (w *writer) checkpoint(ctx context.Context) error {
	if err := w.flush(ctx); err != nil {
		return &sinkFailure{err}
	}
	if w.overwrite != nil {
		// Under overwrite the data is staged until the end: a bookmark
		// saved (or input acknowledged) now could outlive a staging table
		// that never lands.
		w.lastSave = time.Now()
		return nil
	}
	if w.pending == nil || w.row.State == nil {
		w.lastSave = time.Now()
	} else if err := w.saveBookmark(ctx); err != nil {
		return err
	}
	return w.commitSource(ctx)
}

// commitSource tells a connector.Committer source that every page up to
// the last one written is durable.
func (w *writer) commitSource(ctx context.Context) error {
	if w.committer == nil || !w.uncommitted {
		return nil
	}
	err := w.row.Retry.do(ctx, func() error { return w.committer.Committed(ctx, w.lastSeq) }, w.logRetry("source commit"))
	if err != nil {
		// Written and saved, but not acknowledged: the source redelivers
		// those pages on a later run. No further checkpoint is attempted.
		return &sinkFailure{fmt.Errorf("source %s: commit pages up to %d: %w", w.row.SourceType, w.lastSeq, err)}
	}
	w.uncommitted = false
	return nil
}

// saveBookmark puts the pending bookmark in the state store.
func (w *writer) saveBookmark(ctx context.Context) error {
	if w.pending == nil || w.row.State == nil {
		return nil
	}
	data := connector.AppendJSON(nil, *w.pending)
	if w.eo != nil {
		data = encodeEOState(w.pending, w.eo.savedSeq)
	}
	err := w.row.Retry.do(ctx, func() error {
		return w.row.State.Put(ctx, w.row.StateKey, data)
	}, w.logRetry("state save"))
	if err != nil {
		return &sinkFailure{fmt.Errorf("save state %q: %w", w.row.StateKey, err)}
	}
	w.saved, w.pending = w.pending, nil
	w.stateSaved = !state.IsReadOnly(w.row.State)
	w.lastSave = time.Now()
	return nil
}

func (w *writer) flush(ctx context.Context) error {
	if w.row.DLQ != nil {
		if err := w.row.Retry.do(ctx, func() error { return w.row.DLQ.Sink.Flush(ctx) }, w.logRetry("dlq flush")); err != nil {
			return fmt.Errorf("dlq sink %s: flush: %w", w.row.DLQ.Type, err)
		}
	}
	flush := w.row.Sink.Flush
	if df, ok := w.row.Sink.(connector.DurableFlusher); ok && !w.durable() {
		flush = df.FlushBuffers
	}
	if err := w.row.Retry.do(ctx, func() error { return flush(ctx) }, w.logRetry("sink flush")); err != nil {
		return fmt.Errorf("sink %s: flush: %w", w.row.SinkType, err)
	}
	return nil
}

// durable reports whether what the checkpoint saves after its flush
// depends on the written data surviving a crash: a bookmark to save, pages
// to acknowledge to the source, a commit token (exactly-once) or an
// overwrite swap. Otherwise a sink need not pay for durability
// (connector.DurableFlusher): a crash loses nothing a rerun would not
// write again.
func (w *writer) durable() bool {
	return w.pending != nil && w.row.State != nil ||
		w.committer != nil && w.uncommitted ||
		w.eo != nil || w.overwrite != nil
}

// finish ends a complete (or limited) stream: flush and save; under
// overwrite, swap the staged contents in first (not for a limited run,
// which must not replace a table with a sample).
func (w *writer) finish(ctx context.Context) error {
	if err := w.checkpoint(ctx); err != nil {
		return err
	}
	if w.overwrite == nil {
		return nil
	}
	if w.limitHit {
		w.row.Logger.Warn("--limit: overwrite not committed; the destination keeps its previous contents")
		return w.abortOverwrite(ctx, nil)
	}
	if err := w.overwrite.CommitOverwrite(ctx); err != nil {
		return w.abortOverwrite(ctx, &sinkFailure{fmt.Errorf("sink %s: commit overwrite: %w", w.row.SinkType, err)})
	}
	if err := w.saveBookmark(ctx); err != nil {
		return err
	}
	return w.commitSource(ctx)
}

// abortOverwrite drops the staged contents and returns cause.
func (w *writer) abortOverwrite(ctx context.Context, cause error) error {
	if err := w.overwrite.AbortOverwrite(ctx); err != nil {
		return errors.Join(cause, fmt.Errorf("sink %s: abort overwrite: %w", w.row.SinkType, err))
	}
	return cause
}

// stop ends the run early with cause. What was written is flushed and its
// bookmark saved, unless the failure was in the sink itself (then nothing
// more is trusted to it and the bookmark stays where it was).
func (w *writer) stop(ctx context.Context, cause error) error {
	if w.overwrite != nil {
		return w.abortOverwrite(ctx, cause)
	}
	var se *sinkFailure
	if errors.As(cause, &se) {
		return cause
	}
	if err := w.checkpoint(ctx); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// sinkFailure marks errors after which the sink must not be flushed again
// (nor a checkpoint attempted: a failed source commit is one too).
type sinkFailure struct{ err error }

func (e *sinkFailure) Error() string { return e.err.Error() }
func (e *sinkFailure) Unwrap() error { return e.err }
