package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/faucet-hq/faucet/connectors/all"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/state"
	_ "github.com/faucet-hq/faucet/transforms"
)

func load(t *testing.T, yaml string) (*config.Document, config.Invocation) {
	t.Helper()
	doc, err := config.LoadBytes("p.yaml", []byte(yaml), config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	invs, err := doc.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return doc, invs[0]
}

func TestBuildDryRunAndLimitNeverSaveState(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("id\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, inv := load(t, `
version: 1
name: p
pipeline:
  source: {type: csv, config: {path: `+in+`, replication_key: id}}
  transforms: [{type: cast, config: {fields: {id: int}}}]
  sink: {type: jsonl, config: {path: `+filepath.Join(dir, "out.jsonl")+`}}
  state: {type: file, config: {path: `+filepath.Join(dir, "state")+`}}
`)
	for _, opts := range []Options{{DryRun: true}, {Limit: 1}} {
		row, err := Build(doc, inv, opts)
		if err != nil {
			t.Fatal(err)
		}
		if opts.DryRun {
			if _, ok := row.Sink.(*engine.CountingSink); !ok {
				t.Fatalf("dry run sink is %T", row.Sink)
			}
		}
		if !state.IsReadOnly(row.State) || row.StateKey != "p::row-0" || len(row.Transforms) != 1 {
			t.Fatalf("row = %+v", row)
		}
		res, err := engine.Run(context.Background(), row)
		if err != nil || res.StateSaved {
			t.Fatalf("res=%+v err=%v", res, err)
		}
		row.State.Close()
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); !os.IsNotExist(err) {
		t.Fatalf("state directory created by a dry run or a limited run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); err != nil {
		t.Fatal("the limited run should have written its output:", err)
	}
}

func TestBuildStatePathOverride(t *testing.T) {
	doc, inv := load(t, `
version: 1
pipeline:
  source: {type: csv, config: {path: in.csv}}
  sink: {type: jsonl, config: {path: out.jsonl}}
`)
	row, err := Build(doc, inv, Options{StatePath: "/tmp/elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	defer Close(row)
	fs, ok := row.State.(*state.File)
	if !ok || fs.Dir() != "/tmp/elsewhere" {
		t.Fatalf("state = %#v", row.State)
	}
}

func TestBuildUnknownKind(t *testing.T) {
	doc, inv := load(t, `
version: 1
pipeline:
  source: {type: csv, config: {path: in.csv}}
  sink: {type: jsonl, config: {path: out.jsonl}}
`)
	inv.Sink.Type = "nope"
	_, err := Build(doc, inv, Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown sink type "nope"`) {
		t.Fatalf("err = %v", err)
	}
}
