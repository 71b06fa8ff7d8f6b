package parquet

import (
	"errors"
	"fmt"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"

	"github.com/faucet-hq/faucet/connector"
)

// A page reaches the file column by column. Write first sorts its records
// (plan): a record whose fields are the columns in column order, each
// null or of its column's type, is "direct"; any other record is
// converted there and then by Sink.row (unknown fields warned about or
// refused, type errors refused as record errors) into a row of s.slow.
// Then every column is converted and written on its own: each column has
// its own pq.ColumnWriter, which buffers, encodes, takes statistics of and
// compresses that column's pages by itself, so up to GOMAXPROCS goroutines
// take the columns one after another (columnTasks). Write returns once
// every column is written, since byte-array values point into the page's
// records.

// pageState is what the sink keeps for writing pages column by column,
// reused from page to page.
type pageState struct {
	// plans says how each record of the page is written; slow holds the
	// rows of the records Sink.row converted (row1 the one being
	// converted, scratch their JSON text).
	plans   []int32
	slow    []pq.Value
	row1    pq.Row
	scratch []byte
	// colVals holds the page's values column by column, jsonBufs each
	// column's JSON text; tasks converts and writes them.
	colVals  [][]pq.Value
	jsonBufs [][]byte
	tasks    columnTasks
	// groupRows counts the rows of the row group being built.
	groupRows int
}

func newPageState(ncols int) pageState {
	return pageState{
		colVals:  make([][]pq.Value, ncols),
		jsonBufs: make([][]byte, ncols),
		tasks:    newColumnTasks(ncols),
	}
}

// Record plans.
const (
	planDirect  int32 = -1
	planRefused int32 = -2
	// A plan >= 0 is the record's row in s.slow.
)

// valuesPerCall is how many values one ColumnWriter.WriteRowValues call
// gets. The column writer checks its page buffer only after a call, so a
// call bounds how far a page can overshoot page_buffer_bytes (parquet-go's
// WriteRows writes 64 rows at a time for the same reason).
const valuesPerCall = 64

// plan sorts the page's records; it returns how many will be written.
func (s *Sink) plan(p *connector.Page) (int, error) {
	s.plans = s.plans[:0]
	s.slow = s.slow[:0]
	buf := s.scratch[:0]
	n := 0
	for i := range p.Records {
		if s.direct(p.Records[i]) {
			s.plans = append(s.plans, planDirect)
			n++
			continue
		}
		row, b, err := s.row(s.row1, p.Records[i], buf)
		s.row1, buf = row, b
		if err != nil {
			var fe *fieldError
			if !errors.As(err, &fe) {
				return 0, err
			}
			rec := p.Records[i].Detach()
			p.Failed = append(p.Failed, connector.RecordError{
				Stage: connector.StageSink, Component: "parquet",
				Location: fmt.Sprintf("page %d record %d", p.Seq+1, i+1),
				Record:   &rec, Err: err,
			})
			s.plans = append(s.plans, planRefused)
			continue
		}
		s.plans = append(s.plans, int32(len(s.slow)/len(s.cols)))
		s.slow = append(s.slow, row...)
		n++
	}
	s.scratch = buf[:0]
	return n, nil
}

// direct reports whether r's fields are the columns in column order, each
// null or of a kind its column takes as it is.
func (s *Sink) direct(r connector.Record) bool {
	if len(r.Fields) != len(s.cols) {
		return false
	}
	for ci, f := range r.Fields {
		c := s.cols[ci]
		if f.Key != c.name {
			return false
		}
		switch k := f.Value.Kind(); {
		case k == connector.KindNull, c.typ == colJSON, colTypeOf(k) == c.typ:
		case c.typ == colFloat && k == connector.KindInt:
		default:
			return false
		}
	}
	return true
}

// convert fills s.colVals[ci] with column ci's values of the planned
// records. JSON text goes to the column's own buffer, so columns convert
// concurrently. The direct records' values are converted here rather than
// by Sink.value, whose kind checks direct has made already: through
// Sink.value the whole CSV -> Parquet run took 6-8 % longer.
func (s *Sink) convert(ci int, recs []connector.Record) {
	c := s.cols[ci]
	vals := s.colVals[ci][:0]
	jbuf := s.jsonBufs[ci][:0]
	for i, pl := range s.plans {
		switch {
		case pl == planRefused:
			continue
		case pl >= 0:
			vals = append(vals, s.slow[int(pl)*len(s.cols)+ci])
			continue
		}
		v := recs[i].Fields[ci].Value
		if v.IsNull() {
			vals = append(vals, s.nulls[ci])
			continue
		}
		var pv pq.Value
		switch c.typ { // direct checked that the value fits its column
		case colInt:
			pv = pq.Int64Value(v.AsInt())
		case colFloat:
			pv = pq.DoubleValue(v.AsFloat())
		case colBool:
			pv = pq.BooleanValue(v.AsBool())
		case colString:
			str := v.AsString()
			pv = pq.ByteArrayValue(unsafe.Slice(unsafe.StringData(str), len(str)))
		default: // colJSON
			start := len(jbuf)
			jbuf = connector.AppendJSON(jbuf, v)
			pv = pq.ByteArrayValue(jbuf[start:len(jbuf):len(jbuf)])
		}
		vals = append(vals, pv.Level(0, 1, ci))
	}
	s.colVals[ci], s.jsonBufs[ci] = vals, jbuf
}

// write writes values [lo, hi) of column ci to its column writer.
func (s *Sink) write(w *pq.ColumnWriter, ci, lo, hi int) error {
	vals := s.colVals[ci][lo:hi]
	for len(vals) > 0 {
		k := min(valuesPerCall, len(vals))
		if _, err := w.WriteRowValues(vals[:k]); err != nil {
			return fmt.Errorf("parquet: write %s: column %s: %w", s.cfg.Path, s.cols[ci].name, err)
		}
		vals = vals[k:]
	}
	return nil
}

// writePage converts and writes the planned records (n of them), ending
// the row group whenever it reaches row_group_size rows (mid-page if need
// be) and, after the page, once its estimated size reaches
// row_group_bytes.
func (s *Sink) writePage(recs []connector.Record, n int) error {
	writers := s.w.ColumnWriters()
	if s.groupRows+n <= s.cfg.RowGroupSize {
		// The usual case: each column converted and written in one go.
		err := s.runColumns(func(ci int) error {
			s.convert(ci, recs)
			return s.write(writers[ci], ci, 0, n)
		})
		if err != nil {
			return err
		}
		s.groupRows += n
		if s.groupRows == s.cfg.RowGroupSize {
			if err := s.endRowGroup(); err != nil {
				return err
			}
		}
	} else {
		if err := s.runColumns(func(ci int) error { s.convert(ci, recs); return nil }); err != nil {
			return err
		}
		for lo := 0; lo < n; {
			hi := min(n, lo+(s.cfg.RowGroupSize-s.groupRows))
			err := s.runColumns(func(ci int) error { return s.write(writers[ci], ci, lo, hi) })
			if err != nil {
				return err
			}
			s.groupRows += hi - lo
			lo = hi
			if s.groupRows >= s.cfg.RowGroupSize {
				if err := s.endRowGroup(); err != nil {
					return err
				}
			}
		}
	}
	return s.flushFull()
}

// runColumns runs fn for every column (columnTasks); a panic in one
// becomes the write's error.
func (s *Sink) runColumns(fn func(ci int) error) error {
	err := s.tasks.run(fn)
	var pe panicError
	if errors.As(err, &pe) {
		return fmt.Errorf("parquet: write %s: internal error: %v", s.cfg.Path, pe.value)
	}
	return err
}

// release drops the page's values, which point into its records.
func (s *Sink) release() {
	for ci := range s.colVals {
		clear(s.colVals[ci])
	}
	clear(s.slow)
}

// endRowGroup writes the row group being built to the file.
func (s *Sink) endRowGroup() error {
	s.groupRows = 0
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("parquet: write %s: %w", s.cfg.Path, err)
	}
	return nil
}
