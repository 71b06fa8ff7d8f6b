package connectortest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// Cfg builds a config block from alternating keys and values (values as
// connector.FromAny takes them), at the path a pipeline file would give it.
func Cfg(t testing.TB, kv ...any) connector.Config {
	t.Helper()
	fields := make([]connector.KeyValue, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, connector.KeyValue{Key: kv[i].(string), Value: kv[i+1]})
	}
	v, err := connector.FromAny(fields)
	if err != nil {
		t.Fatal(err)
	}
	return connector.Config{Path: "pipeline.config", Value: v}
}

// Result is what Collect read from a source.
type Result struct {
	Records   []connector.Record
	Failed    []connector.RecordError
	Pages     int
	PageSizes []int             // the number of records of every page, in order
	Bookmarks []connector.Value // the bookmark of every page that had one, in order
	// Bookmark is the bookmark the engine would save after the last page:
	// page bookmarks folded with MergeBookmark when the source has it,
	// else the last one. Nil when no page carried one.
	Bookmark *connector.Value
}

// NextPage reads the next page of src and runs its pending Decode, as the
// engine does; at the end of the stream it returns io.EOF.
func NextPage(ctx context.Context, src connector.Source) (*connector.Page, error) {
	p, err := src.Next(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.Materialize(); err != nil {
		return nil, err
	}
	return p, nil
}

// Collect opens src with start, reads every page (running Decode as the
// engine does), closes it and returns what it read.
func Collect(ctx context.Context, src connector.Source, start *connector.Value) (Result, error) {
	var res Result
	if err := src.Open(ctx, connector.SourceOptions{StartBookmark: start}); err != nil {
		return res, err
	}
	defer src.Close()
	merger, _ := src.(connector.BookmarkMerger)
	cur := start
	for {
		p, err := NextPage(ctx, src)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, err
		}
		res.Pages++
		res.PageSizes = append(res.PageSizes, len(p.Records))
		res.Records = append(res.Records, p.Records...)
		res.Failed = append(res.Failed, p.Failed...)
		if p.Bookmark != nil {
			b := *p.Bookmark
			res.Bookmarks = append(res.Bookmarks, b)
			if merger != nil && cur != nil {
				b = merger.MergeBookmark(*cur, b)
			}
			cur = &b
			res.Bookmark = cur
		}
	}
	return res, src.Close()
}

// WritePages opens snk, writes each page (through EncodePage and
// WriteEncoded when the sink is a PageEncoder, as the engine does),
// flushes and closes it.
func WritePages(ctx context.Context, snk connector.Sink, pages ...*connector.Page) error {
	if err := snk.Open(ctx, connector.SinkOptions{Stdout: io.Discard}); err != nil {
		return err
	}
	defer snk.Close()
	for _, p := range pages {
		if err := writePage(ctx, snk, p); err != nil {
			return err
		}
	}
	if err := snk.Flush(ctx); err != nil {
		return err
	}
	return snk.Close()
}

// OpenSink builds the sink of config c with newSink, opens it and closes
// it when the test ends; S is the connector's concrete sink type.
func OpenSink[S connector.Sink](t testing.TB, newSink func(connector.Config) (connector.Sink, error), c connector.Config) S {
	t.Helper()
	snk, err := newSink(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := snk.Open(context.Background(), connector.SinkOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snk.Close() })
	s, ok := snk.(S)
	if !ok {
		t.Fatalf("sink is a %T", snk)
	}
	return s
}

// WritePagesOpen writes pages to an already opened sink, as the engine
// does (through EncodePage and WriteEncoded for a PageEncoder), without
// flushing or closing it.
func WritePagesOpen(ctx context.Context, snk connector.Sink, pages ...*connector.Page) error {
	for _, p := range pages {
		if err := writePage(ctx, snk, p); err != nil {
			return err
		}
	}
	return nil
}

func writePage(ctx context.Context, snk connector.Sink, p *connector.Page) error {
	if enc, ok := snk.(connector.PageEncoder); ok {
		data, err := enc.EncodePage(p, nil)
		if err != nil {
			return err
		}
		return enc.WriteEncoded(ctx, p, data)
	}
	return snk.Write(ctx, p)
}

// ServiceURL returns the URL of a test service from env (or def). probe
// checks that it answers; when it does not, the test is skipped with a
// clear message, or fails when CI=true (SPEC §4: under CI a missing
// service is a failure, never a skip).
func ServiceURL(t testing.TB, env, def string, probe func(ctx context.Context, url string) error) string {
	t.Helper()
	url := os.Getenv(env)
	if url == "" {
		url = def
	}
	if probe != nil {
		if err := probe(context.Background(), url); err != nil {
			msg := fmt.Sprintf("%s service not reachable (%s; set %s): %v", env, Redact(url), env, err)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return url
}

// Redact hides the password of a URL (for test messages).
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
