package connector

import (
	"fmt"
	"strings"
)

// DefaultPageSize is the number of records a source puts in a page unless
// its config says otherwise.
const DefaultPageSize = 1000

// MaxPageSize bounds any configured batch_size.
const MaxPageSize = 1_000_000

// Page is the unit of work that flows from a source through the transforms
// to a sink. Pages are processed strictly in the order the source emitted
// them; a page's bookmark is saved only after the page (and every page
// before it) has been written and flushed.
type Page struct {
	// Records of the page, in source order.
	Records []Record

	// Failed holds records that could not be decoded or transformed. The
	// engine sends them to the dead-letter queue when one is configured and
	// fails the run otherwise. A sink may append the records it refused
	// (Stage StageSink) during Write; the engine dead-letters those after
	// the write and does not count them as written.
	Failed []RecordError

	// Bookmark, when non-nil, is the resume position after this page: once
	// the page is durable in the sink the engine saves it in the state store
	// and hands it back to the source on the next run (Open's StartBookmark).
	Bookmark *Value

	// Decode, when non-nil, fills Records (and Failed) from data the source
	// read but did not parse yet. The engine calls it once, possibly on a
	// worker goroutine and concurrently with the source's Next and with the
	// Decode of other pages, so it must only touch the page's own data. A
	// source that decodes in Next leaves it nil.
	Decode func(p *Page) error

	// Locate, when set by the source (usually from Decode), names decoded
	// record i, its index in Records right after decoding: where it came
	// from ("orders.csv:4") and its 1-based position in the source stream.
	// The engine uses it when a transform fails on that record.
	Locate func(i int) (location string, rowID int64)

	// Trim, when set by the source, is called by the engine at most once,
	// before Release, when it is done with everything of the page but its
	// Bookmark: the records were encoded for a sink that writes the bytes
	// only (EncodedOnlyWriter), none failed, and the run needs them for
	// nothing else. The engine sets Records and Locate to nil first and
	// uses neither again; the source may reuse the page's memory at once,
	// except what Bookmark refers to (valid until Release).
	Trim func()

	// Release, when set by the source, is called by the engine exactly once
	// when it is done with the page (written, or dropped on error or
	// cancellation), so the source can reuse the page's buffers. After
	// Release the strings inside the page's records may change: a sink or
	// transform that keeps a value beyond its page keeps Value.Detach()ed
	// copies. The engine detaches bookmarks and failed records itself.
	Release func()

	// Seq is the page's position in the stream, set by the engine.
	Seq uint64
}

// Done calls Release once, if set.
func (p *Page) Done() {
	if r := p.Release; r != nil {
		p.Release = nil
		r()
	}
}

// TrimRecords drops the page's Records and Locate and calls Trim once,
// if set.
func (p *Page) TrimRecords() {
	p.Records, p.Locate = nil, nil
	if t := p.Trim; t != nil {
		p.Trim = nil
		t()
	}
}

// Materialize runs the pending Decode, if any.
func (p *Page) Materialize() error {
	if p.Decode == nil {
		return nil
	}
	d := p.Decode
	p.Decode = nil
	return d(p)
}

// Stage names where in the pipeline a record failed.
type Stage string

// Stages reported in RecordError and in dead-letter envelopes.
const (
	StageSource    Stage = "source"
	StageTransform Stage = "transform"
	StageSink      Stage = "sink"
)

// RecordError is a failure tied to one record: a row that does not parse, a
// value a transform cannot convert, a record a sink refuses.
type RecordError struct {
	// Stage and Component say where it failed ("transform", "cast").
	Stage     Stage
	Component string
	// Location names the record for people: "data/in.csv:17" or "record 42".
	Location string
	// RowID is the record's 1-based position in the source stream when known.
	RowID int64
	// Record is the record as it was when it failed, when it could be decoded.
	Record *Record
	// Raw is the undecodable input, when the record could not be decoded.
	Raw string
	Err error
	// PageIndex is set by a sink reporting a record it refused (in
	// Page.Failed during Write): the record's 1-based position in
	// Page.Records, from which the engine names its source row. 0: unknown.
	PageIndex int
}

func (e *RecordError) Error() string {
	where := e.Location
	if where == "" && e.RowID > 0 {
		where = fmt.Sprintf("record %d", e.RowID)
	}
	comp := e.Component
	if comp == "" {
		comp = string(e.Stage)
	}
	msg := e.Err.Error()
	if !strings.HasPrefix(msg, comp+":") {
		msg = comp + ": " + msg
	}
	if where == "" {
		return msg
	}
	return where + ": " + msg
}

func (e *RecordError) Unwrap() error { return e.Err }
