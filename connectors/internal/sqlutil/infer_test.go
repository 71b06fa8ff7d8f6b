package sqlutil

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// An integer above int64 read from JSON (an id or counter up to uint64)
// keeps its digits; create_table and evolve_schema must not give it a
// floating-point column, which rounds it (18446744073709551615 became
// 1.8446744073709552e19 in double precision, DOUBLE and REAL).
func TestInferColumnsKeepsBigIntegersExact(t *testing.T) {
	big, err := connector.ParseJSON([]byte(`{"u":18446744073709551615,"m":12345678901234567890,"f":1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	cols := InferColumns([]connector.Record{
		big.AsObject(),
		rec("u", 0, "m", 1.5, "f", 2),
	})
	want := map[string]ColType{"u": TypeText, "m": TypeText, "f": TypeFloat}
	for _, c := range cols {
		if want[c.Name] != c.Type {
			t.Errorf("%s: %v, want %v", c.Name, c.Type, want[c.Name])
		}
	}
	if len(cols) != len(want) {
		t.Errorf("cols %v", cols)
	}
}
