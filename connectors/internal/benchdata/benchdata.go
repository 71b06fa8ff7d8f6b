// Package benchdata generates rows shaped like the shared benchmark data set
// (shared/bench/gen): id,first_name,country,amount,created_at,active,attributes
// where attributes is compact JSON. Benchmarks and tests use it so that they
// measure the same shapes without depending on files outside the tree.
package benchdata

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Header is the column list.
var Header = []string{"id", "first_name", "country", "amount", "created_at", "active", "attributes"}

var (
	names     = []string{"Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil"}
	countries = []string{"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "NL"}
	tiers     = []string{"bronze", "silver", "gold", "platinum"}
	tags      = []string{"alpha", "beta", "gamma", "delta", "epsilon"}
)

// Rows returns n deterministic rows.
func Rows(n int) [][]string {
	r := rand.New(rand.NewPCG(42, 7))
	ts := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([][]string, 0, n)
	for id := 1; id <= n; id++ {
		ts = ts.Add(time.Duration(1+r.IntN(90)) * time.Second)
		cents := 100 + r.IntN(999901)
		var attr strings.Builder
		attr.WriteString(`{"tier":"` + tiers[r.IntN(len(tiers))] + `","score":` + strconv.FormatFloat(float64(r.IntN(100001))/1000, 'f', 3, 64) + `,"tags":[`)
		perm := r.Perm(len(tags))
		for i := 0; i < 1+r.IntN(3); i++ {
			if i > 0 {
				attr.WriteByte(',')
			}
			attr.WriteString(`"` + tags[perm[i]] + `"`)
		}
		attr.WriteString("]}")
		out = append(out, []string{
			strconv.Itoa(id), names[r.IntN(len(names))], countries[r.IntN(len(countries))],
			strconv.Itoa(cents/100) + "." + strconv.Itoa(cents%100/10) + strconv.Itoa(cents%10),
			ts.Format(time.RFC3339), strconv.FormatBool(r.IntN(2) == 1), attr.String(),
		})
	}
	return out
}

// CSV returns the header and n rows as RFC 4180 CSV (the attributes column
// quoted, as the generator writes it).
func CSV(n int) []byte {
	var b []byte
	b = append(b, strings.Join(Header, ",")...)
	b = append(b, '\n')
	for _, row := range Rows(n) {
		for i, f := range row {
			if i > 0 {
				b = append(b, ',')
			}
			if strings.ContainsAny(f, "\",\n\r") {
				b = append(b, '"')
				b = append(b, strings.ReplaceAll(f, `"`, `""`)...)
				b = append(b, '"')
				continue
			}
			b = append(b, f...)
		}
		b = append(b, '\n')
	}
	return b
}
