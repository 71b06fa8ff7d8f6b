package history

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestTransienceOfCode(t *testing.T) {
	cases := map[string]Transience{
		"":      TransienceUnknown,
		"57P03": Transient, "53300": Transient, "40001": Transient, "40P01": Transient,
		"08000": Transient, "08006": Transient, "08P01": Transient,
		"23505": Permanent, "42P01": Permanent, "42601": Permanent,
		"5": Transient, "6": Transient, "517": Transient, "261": Transient, "262": Transient,
		"1": Permanent, "19": Permanent, "2067": Permanent, "14": Permanent,
		"abc": TransienceUnknown, "12x": TransienceUnknown,
	}
	for code, want := range cases {
		if got := TransienceOfCode(code); got != want {
			t.Errorf("TransienceOfCode(%q) = %v, want %v", code, got, want)
		}
	}
}

func TestErrorDisplayAndRetriable(t *testing.T) {
	e := Classified("insert: boom", Permanent, nil)
	if e.Error() != "run-history backend error: insert: boom" || e.IsRetriable() || IsRetriable(e) {
		t.Fatalf("classified permanent: %q %v", e.Error(), e.IsRetriable())
	}
	if !Backend("x").IsRetriable() {
		t.Fatal("unknown is retriable")
	}
	d := Degraded("idempotency unavailable")
	if d.Error() != "idempotency unavailable" || !IsDegraded(d) || TransienceOf(d) != Transient {
		t.Fatalf("degraded: %v", d)
	}
}

func TestFormatTSFixedWidthAndSortable(t *testing.T) {
	a := FormatTS(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b := FormatTS(time.Date(2026, 1, 1, 0, 0, 1, 5, time.FixedZone("x", 3600)))
	if a != "2026-01-01T00:00:00.000000000Z" || len(a) != len(b) || !(b < a) {
		t.Fatalf("a=%s b=%s", a, b)
	}
	if got := ParseTS(b); !got.Equal(time.Date(2025, 12, 31, 23, 0, 1, 5, time.UTC)) {
		t.Fatalf("round trip %v", got)
	}
	if time.Since(ParseTS("garbage")) > time.Second {
		t.Fatal("unparseable timestamp reads as now")
	}
}

func TestSeqAndExpiry(t *testing.T) {
	if PadSeq(42) != "00000000000000000042" || UnpadSeq(PadSeq(42)) != 42 || UnpadSeq("x") != 0 || UnpadSeq(PadSeq(0)) != 0 {
		t.Fatal("pad/unpad")
	}
	if UnpadSeq(PadSeq(RunLogTruncatedSeq)) != RunLogTruncatedSeq {
		t.Fatal("sentinel round trip")
	}
	now := time.Now()
	old := FormatTS(now.Add(-2 * time.Minute))
	if !IsExpired(old, now, time.Minute) || IsExpired(old, now, time.Hour) || IsExpired("bad", now, 0) ||
		IsExpired(FormatTS(now.Add(time.Hour)), now, 0) {
		t.Fatal("expiry")
	}
	if Threshold(now, 1<<62) == "" {
		t.Fatal("clamped threshold")
	}
}

func TestBackoff(t *testing.T) {
	if BackoffDelay(1) != 0 {
		t.Fatal("first attempt does not sleep")
	}
	for attempt, base := range map[int]time.Duration{2: 5, 3: 10, 4: 20, 8: 160, 20: 160} {
		d := BackoffDelay(attempt)
		if d < base*time.Millisecond || d > (base+5)*time.Millisecond {
			t.Errorf("attempt %d: %v", attempt, d)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if RetryBackoff(ctx, 8) == nil {
		t.Fatal("cancelled context ends the wait")
	}
}

func TestParseStatusLenient(t *testing.T) {
	for _, s := range AllStatuses {
		if ParseStatusLenient(string(s)) != s {
			t.Fatal(s)
		}
	}
	if ParseStatusLenient("garbage") != StatusFailed {
		t.Fatal("unknown -> failed")
	}
	if _, ok := ParseRunStatus(" running "); !ok {
		t.Fatal("trimmed parse")
	}
}

// An original-shaped body (unknown fields, null optionals, omitted later
// fields) decodes, and our encoding keeps nulls and never writes null
// collections.
func TestRunRecordJSONShape(t *testing.T) {
	orig := `{"run_id":"r1","name":null,"labels":{},"status":"queued","submitted_at":"2026-01-01T00:00:00.123Z",
	"started_at":null,"finished_at":null,"elapsed_secs":null,"records_written":0,"invocations":[],
	"error":null,"idempotency_key":"k","future_field":{"x":1}}`
	r, err := DecodeRun(orig)
	if err != nil {
		t.Fatal(err)
	}
	if r.Attempt != 0 || r.IdempotencyKey == nil || r.SubmittedAt.Nanosecond() != 123000000 {
		t.Fatalf("%+v", r)
	}
	out, _ := json.Marshal(NewQueuedRun("r2", nil, nil, nil, time.Unix(0, 0)))
	for _, want := range []string{`"name":null`, `"labels":{}`, `"invocations":[]`, `"error":null`, `"idempotency_key":null`, `"attempt":0`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("missing %s in %s", want, out)
		}
	}
	for _, absent := range []string{"config_body", "tenant", "callback", "doctor_report", "timeout_secs"} {
		if bytes.Contains(out, []byte(absent)) {
			t.Errorf("%s must be omitted: %s", absent, out)
		}
	}
	if _, err := DecodeRun(`{"run_id":"x","status":"weird"}`); err == nil || !strings.Contains(err.Error(), "decode run record") {
		t.Fatalf("bad status must fail clearly: %v", err)
	}
}

func TestPrintRuns(t *testing.T) {
	el := 2.0
	a := NewQueuedRun("a", Ptr("first"), nil, nil, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	a.Status, a.RecordsWritten, a.ElapsedSecs = StatusCompleted, 100, &el
	b := NewQueuedRun("b", nil, nil, nil, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	var buf bytes.Buffer
	if err := PrintRuns(&buf, []RunRecord{a, b}, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "b ") || !strings.Contains(lines[2], "50.0") || !strings.Contains(lines[2], "2s") {
		t.Fatalf("table:\n%s", buf.String())
	}
	buf.Reset()
	if err := PrintRuns(&buf, []RunRecord{a, b}, true); err != nil {
		t.Fatal(err)
	}
	var got []RunRecord
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || len(got) != 2 || got[0].RunID != "b" {
		t.Fatalf("json: %v %s", err, buf.String())
	}
}

func TestSchemaDiffAndHash(t *testing.T) {
	a := json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"gone":{"type":"string"}}}`)
	b := json.RawMessage(`{"properties":{"id":{"type":"number"},"name":{"type":"string"}},"type":"object"}`)
	if SchemaHash(a) == SchemaHash(b) || len(SchemaHash(a)) != 16 {
		t.Fatal("hash")
	}
	if SchemaHash(json.RawMessage(`{"b":1,"a":[2,1]}`)) != SchemaHash(json.RawMessage(`{ "a":[2,1], "b":1 }`)) {
		t.Fatal("canonical key order")
	}
	var d map[string]json.RawMessage
	if err := json.Unmarshal(SchemaDiff(a, b), &d); err != nil {
		t.Fatal(err)
	}
	if string(d["removed"]) != `["gone"]` || !strings.Contains(string(d["widened"]), `"id"`) || !strings.Contains(string(d["added"]), `"name"`) {
		t.Fatalf("diff %s", SchemaDiff(a, b))
	}
	if SchemaDiff(a, a) != nil {
		t.Fatal("no diff for equal schemas")
	}
}
