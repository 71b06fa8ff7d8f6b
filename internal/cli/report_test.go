package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/engine"
)

func TestFormatHelpers(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{fmtDuration(250 * time.Millisecond), "250ms"},
		{fmtDuration(1500 * time.Millisecond), "1.50s"},
		{fmtDuration(75 * time.Second), "1m15s"},
		{fmtDuration(3*time.Hour + 2*time.Minute + 5*time.Second), "3h02m05s"},
		{fmtCount(999), "999"},
		{fmtCount(12_345), "12.3k"},
		{fmtCount(2_500_000), "2.50M"},
		{fmtRate(1_000_000, 2*time.Second), "500.0k"},
		{plural(1), ""},
		{plural(2), "s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestProgressLineAndTextSummary(t *testing.T) {
	invs := []config.Invocation{{ID: "a"}, {ID: "b"}}
	invs[0].Source.Type, invs[0].Sink.Type = "csv", "jsonl"
	invs[1].Source.Type, invs[1].Sink.Type = "csv", "csv"
	r := newReport("orders", invs)
	r.rows[0].stats.Read.Store(1500)
	r.rows[0].stats.Written.Store(1400)
	r.rows[0].stats.DLQ.Store(3)
	r.rows[0].start()
	line := progressLine(r)
	for _, want := range []string{"orders", "1500 in / 1400 out", "rows/s", "3 dlq", "[1 running]"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	r.rows[0].done(engine.Result{Read: 1500, Written: 1400, DLQ: 3, StateSaved: true, Elapsed: time.Second}, nil)
	r.finish([]engine.NodeResult{{ID: "a", Status: engine.NodeOK}, {ID: "b", Status: engine.NodeSkipped}})
	var buf bytes.Buffer
	app := &App{Stdout: &buf, Stderr: &buf}
	if err := app.printReport(r, "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"ok     a: csv -> jsonl  read 1500, wrote 1400, dlq 3 in 1.00s (1400 rows/s), state saved",
		"skip   b: csv -> csv  skipped",
		"orders: 2 invocations, 1 ok, 1 failed, wrote 1400 records in",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestMainUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"run", "--output", "yaml", "x.yaml"}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "--output must be text, json or ndjson") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	code = Main(context.Background(), []string{"run", "--bogus"}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "unknown flag: --bogus") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
	out.Reset()
	code = Main(context.Background(), []string{"version"}, nil, &out, &errb)
	if code != 0 || !strings.HasPrefix(out.String(), "faucet ") {
		t.Fatalf("code %d, stdout %q", code, out.String())
	}
}
