// Command gen writes the deterministic benchmark data set of bench/.
//
// It reproduces ../shared/bench/gen exactly: for the same --rows and --seed
// the CSV output is byte-identical to the shared generator's (checked with
// cmp, see bench/README.md), so results here and there are comparable.
//
// Columns: id,first_name,country,amount,created_at,active,attributes
//
//   - id 1..N
//   - first_name one of 16 names, country one of 10 ISO codes
//   - amount in [1.00, 10000.00] with exactly 2 decimals (drawn in cents)
//   - created_at RFC 3339 UTC, stepping 1-90 s per row from 2020-01-01
//   - active true/false
//   - attributes compact JSON {"tier":..,"score":..,"tags":[..]}, RFC 4180-quoted
//
// The PRNG is math/rand/v2 PCG seeded from --seed (default 42); no map
// iteration, no clock. Draws happen in one fixed order per row, whatever the
// output format, so the CSV and JSONL outputs carry the same records.
//
// --format jsonl writes the same rows as JSON Lines, one object per row, keys
// in header order and every value a JSON string: the shape faucet's csv source
// -> jsonl sink produces (and ../shared/bench's go-csvjson floor), used as the
// input of the JSONL -> CSV benchmark.
//
//	gen --rows 1000000 --out data/bench_1m.csv
//	gen --rows 1000000 --format jsonl --out data/bench_1m.jsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

var (
	header = []string{"id", "first_name", "country", "amount", "created_at", "active", "attributes"}
	names  = []string{
		"Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi",
		"Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil",
	}
	countries = []string{"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "NL"}
	tiers     = []string{"bronze", "silver", "gold", "platinum"}
	tagPool   = []string{"alpha", "beta", "gamma", "delta", "epsilon"}
)

// pcgStream is the fixed second PCG word of the shared generator.
const pcgStream = 0x9E3779B97F4A7C15

// row is one generated record; the byte slices are reused between rows.
type row struct {
	id      int
	name    string
	country string
	cents   int
	ts      time.Time
	active  bool
	attr    []byte // compact JSON, unquoted
}

// generator draws rows in the exact order of the shared generator.
type generator struct {
	r  *rand.Rand
	ts time.Time
	id int
}

func newGenerator(seed uint64) *generator {
	return &generator{
		r:  rand.New(rand.NewPCG(seed, pcgStream)),
		ts: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

// next fills rw with the next row. The draw order (time step, cents, tier,
// score, tag count, tag permutation, name, country, active) is part of the
// data set's definition: changing it changes every row after the first.
func (g *generator) next(rw *row) {
	r := g.r
	g.id++
	g.ts = g.ts.Add(time.Duration(1+r.IntN(90)) * time.Second)
	rw.id = g.id
	rw.ts = g.ts
	rw.cents = 100 + r.IntN(1000000-100+1)

	a := rw.attr[:0]
	a = append(a, `{"tier":"`...)
	a = append(a, tiers[r.IntN(len(tiers))]...)
	a = append(a, `","score":`...)
	a = strconv.AppendFloat(a, float64(r.IntN(100001))/1000, 'f', 3, 64)
	a = append(a, `,"tags":[`...)
	ntags := 1 + r.IntN(3)
	perm := r.Perm(len(tagPool))
	for i := 0; i < ntags; i++ {
		if i > 0 {
			a = append(a, ',')
		}
		a = append(a, '"')
		a = append(a, tagPool[perm[i]]...)
		a = append(a, '"')
	}
	a = append(a, "]}"...)
	rw.attr = a

	rw.name = names[r.IntN(len(names))]
	rw.country = countries[r.IntN(len(countries))]
	rw.active = r.IntN(2) == 1
}

func appendAmount(b []byte, cents int) []byte {
	b = strconv.AppendInt(b, int64(cents/100), 10)
	c := cents % 100
	return append(b, '.', byte('0'+c/10), byte('0'+c%10))
}

// appendCSV appends rw as one CSV line. Only attributes needs quoting; it is
// always quoted, embedded quotes doubled (RFC 4180), as the shared generator does.
func appendCSV(b []byte, rw *row) []byte {
	b = strconv.AppendInt(b, int64(rw.id), 10)
	b = append(b, ',')
	b = append(b, rw.name...)
	b = append(b, ',')
	b = append(b, rw.country...)
	b = append(b, ',')
	b = appendAmount(b, rw.cents)
	b = append(b, ',')
	b = rw.ts.AppendFormat(b, time.RFC3339)
	b = append(b, ',')
	b = strconv.AppendBool(b, rw.active)
	b = append(b, ',', '"')
	for _, c := range rw.attr {
		if c == '"' {
			b = append(b, '"')
		}
		b = append(b, c)
	}
	return append(b, '"', '\n')
}

// jsonKeys are the header names pre-encoded as `"key":`.
var jsonKeys = func() [][]byte {
	ks := make([][]byte, len(header))
	for i, h := range header {
		ks[i] = append(appendJSONString(nil, []byte(h)), ':')
	}
	return ks
}()

// appendJSONL appends rw as one JSON object line, every value a string.
func appendJSONL(b, scratch []byte, rw *row) ([]byte, []byte) {
	b = append(b, '{')
	for i, k := range jsonKeys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, k...)
		scratch = scratch[:0]
		switch i {
		case 0:
			scratch = strconv.AppendInt(scratch, int64(rw.id), 10)
		case 1:
			scratch = append(scratch, rw.name...)
		case 2:
			scratch = append(scratch, rw.country...)
		case 3:
			scratch = appendAmount(scratch, rw.cents)
		case 4:
			scratch = rw.ts.AppendFormat(scratch, time.RFC3339)
		case 5:
			scratch = strconv.AppendBool(scratch, rw.active)
		case 6:
			scratch = append(scratch, rw.attr...)
		}
		b = appendJSONString(b, scratch)
	}
	return append(b, '}', '\n'), scratch
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal with the escaping of
// faucet's connector.AppendJSONString for ASCII input (the generator only
// ever produces ASCII): `"` and `\` backslash-escaped, control bytes as
// \n \r \t \b \f or \u00XX.
func appendJSONString(b, s []byte) []byte {
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
	}
	return append(b, '"')
}

// write generates rows records in format ("csv" or "jsonl") to w.
func write(w io.Writer, format string, rows int, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := newGenerator(seed)
	var rw row
	var line, scratch []byte
	switch format {
	case "csv":
		for i, h := range header {
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(h)
		}
		bw.WriteByte('\n')
		for i := 0; i < rows; i++ {
			g.next(&rw)
			line = appendCSV(line[:0], &rw)
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	case "jsonl":
		for i := 0; i < rows; i++ {
			g.next(&rw)
			line, scratch = appendJSONL(line[:0], scratch, &rw)
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown --format %q (want csv or jsonl)", format)
	}
	return bw.Flush()
}

func main() {
	rows := flag.Int("rows", 1000, "number of data rows")
	seed := flag.Uint64("seed", 42, "PRNG seed")
	out := flag.String("out", "-", "output file ('-' = stdout)")
	format := flag.String("format", "csv", "output format: csv or jsonl (every value a JSON string)")
	flag.Parse()
	if err := run(*out, *format, *rows, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out, format string, rows int, seed uint64) error {
	if format != "csv" && format != "jsonl" {
		return fmt.Errorf("unknown --format %q (want csv or jsonl)", format)
	}
	if rows < 0 {
		return fmt.Errorf("--rows must be >= 0, got %d", rows)
	}
	if out == "-" {
		return write(os.Stdout, format, rows, seed)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := write(f, format, rows, seed); err != nil {
		f.Close()
		os.Remove(out)
		return err
	}
	return f.Close()
}
