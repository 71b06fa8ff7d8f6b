package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// Golden hashes were taken from ../shared/bench/gen (the reference generator)
// and, for JSONL, from ../shared/bench/rawgo -mode csvjson run on that CSV.
func TestGoldenMatchesSharedGenerator(t *testing.T) {
	cases := []struct {
		format string
		rows   int
		seed   uint64
		sha256 string
	}{
		{"csv", 1000, 42, "590dfe5ffda6d6146004a8fe15a24a1d9155364eb246fd59552166c83931265c"},
		{"csv", 1000, 7, "72983eb2686e6c7f43a07c292e7fe8320964eace113d7d2aabc9365582988f97"},
		{"jsonl", 1000, 42, "cd84fbefa3b965a8faf7b1e6cecf557c425efc994b583ab2d1380c2798026a73"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if err := write(&buf, c.format, c.rows, c.seed); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		if got := hex.EncodeToString(sum[:]); got != c.sha256 {
			t.Errorf("%s rows=%d seed=%d: sha256 %s, want %s", c.format, c.rows, c.seed, got, c.sha256)
		}
	}
}

// The JSONL output carries exactly the CSV records, as strings, keys in header order.
func TestJSONLEqualsCSV(t *testing.T) {
	const n = 5000
	var c, j bytes.Buffer
	if err := write(&c, "csv", n, 3); err != nil {
		t.Fatal(err)
	}
	if err := write(&j, "jsonl", n, 3); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n+1 || strings.Join(recs[0], ",") != strings.Join(header, ",") {
		t.Fatalf("csv: %d records, header %v", len(recs), recs[0])
	}
	sc := bufio.NewScanner(&j)
	i := 1
	for ; sc.Scan(); i++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("line %d: not an object", i)
		}
		for k := 0; dec.More(); k++ {
			key, _ := dec.Token()
			var v string
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("line %d key %v: %v", i, key, err)
			}
			if key != header[k] || v != recs[i][k] {
				t.Fatalf("line %d field %d: %v=%q, csv %s=%q", i, k, key, v, header[k], recs[i][k])
			}
		}
	}
	if i-1 != n {
		t.Fatalf("jsonl has %d lines, want %d", i-1, n)
	}
}

func TestBadFormat(t *testing.T) {
	if err := write(&bytes.Buffer{}, "xml", 1, 1); err == nil {
		t.Fatal("want error for --format xml")
	}
}
