package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestInterruptThenResume runs a real `faucet run` on a large CSV, sends
// SIGINT mid-stream, and checks that the output and the saved bookmark
// agree exactly; a rerun then completes the job with no gap and no
// duplicate.
func TestInterruptThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	bin := faucetBinary(t)
	dir := t.TempDir()
	const rows = 3_000_000
	writeCSV(t, filepath.Join(dir, "in.csv"), rows)
	config := `version: 1
name: interrupt
pipeline:
  source:
    type: csv
    config: {path: in.csv, replication_key: id}
  sink:
    type: jsonl
    config: {path: out.jsonl, append: true}
  state:
    type: file
    config: {path: state}
`
	if err := os.WriteFile(filepath.Join(dir, "faucet.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "run", "--quiet")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until output is flowing, then interrupt.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if fi, err := os.Stat(filepath.Join(dir, "out.jsonl")); err == nil && fi.Size() > 4<<20 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no output after 60s\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130\n%s", err, stderr.String())
	}

	statePath := filepath.Join(dir, "state", "interrupt%3A%3Arow-0.json")
	if _, err := os.Stat(statePath); err != nil {
		t.Fatalf("no bookmark saved after the interrupt: %v\n%s", err, stderr.String())
	}
	bookmark := readBookmark(t, statePath)
	ids := readIDs(t, filepath.Join(dir, "out.jsonl"))
	if bookmark <= 0 || bookmark >= rows {
		t.Fatalf("bookmark %d: the interrupt should land mid-stream", bookmark)
	}
	if int64(len(ids)) != bookmark || ids[len(ids)-1] != bookmark {
		t.Fatalf("output has %d records ending at %d, state says %d", len(ids), ids[len(ids)-1], bookmark)
	}

	// The rerun picks up exactly after the bookmark.
	cmd = exec.Command(bin, "run", "--quiet")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	ids = readIDs(t, filepath.Join(dir, "out.jsonl"))
	if len(ids) != rows {
		t.Fatalf("after the rerun the output has %d records, want %d", len(ids), rows)
	}
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("record %d has id %d: a gap or a duplicate", i+1, id)
		}
	}
	if got := readBookmark(t, filepath.Join(dir, "state", "interrupt%3A%3Arow-0.json")); got != rows {
		t.Fatalf("final bookmark %d, want %d", got, rows)
	}
}

func writeCSV(t *testing.T, path string, rows int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "id,name,amount")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(w, "%d,name-%d,%d.%02d\n", i, i%97, i%10000, i%100)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readBookmark(t *testing.T, path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("bookmark %s: %v", data, err)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func readIDs(t *testing.T, path string) []int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v: %q", len(ids)+1, err, sc.Text())
		}
		n, err := strconv.ParseInt(rec.ID, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}
