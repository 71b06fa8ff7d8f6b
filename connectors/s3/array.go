package s3

import (
	"context"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/fileio"
)

// arraySink encodes one JSON array of records into a local file: "[", the
// records as compact objects one per line, "]". It is the json format's
// encoder (the json connector has no sink).
type arraySink struct {
	path, compression string
	w                 *fileio.Writer
	n                 int
	buf               []byte
}

func (a *arraySink) Open(ctx context.Context, _ connector.SinkOptions) error {
	w, err := fileio.Create(a.path, false, a.compression)
	if err != nil {
		return err
	}
	a.w = w
	_, err = w.Write([]byte{'['})
	return err
}

func (a *arraySink) Write(ctx context.Context, p *connector.Page) error {
	b := a.buf[:0]
	for _, r := range p.Records {
		if a.n > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = connector.AppendRecordJSON(b, r)
		a.n++
	}
	a.buf = b
	if _, err := a.w.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	return nil
}

// Flush ends the array: the file is complete (Close follows).
func (a *arraySink) Flush(ctx context.Context) error {
	_, err := a.w.Write([]byte("\n]\n"))
	return err
}

func (a *arraySink) Close() error {
	if a.w == nil {
		return nil
	}
	err := a.w.Close()
	a.w = nil
	return err
}
