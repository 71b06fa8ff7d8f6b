package transforms

import (
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// BenchmarkRenameCastDrop is the hot-path chain of the CSV -> JSONL
// benchmark: a 7-field record of strings (as a CSV source produces it)
// through rename_keys, cast (two numeric fields and a bool) and drop. One op
// is one record; the record is reset from a template each time, which is a
// copy of 7 fields and no allocation.
func BenchmarkRenameCastDrop(b *testing.B) {
	chain := []connector.Transform{
		mustBuild(b, "rename_keys", `{"pattern": "^col_", "replacement": ""}`),
		mustBuild(b, "cast", `{"fields": {"id": "int", "amount": "float", "active": "bool"}}`),
		mustBuild(b, "drop", `{"fields": ["internal_note"]}`),
	}
	base := record(b, `{"col_id": "1042", "col_name": "Ada Lovelace", "col_email": "ada@example.com", "col_amount": "129.95", "col_country": "DE", "col_active": "true", "col_internal_note": "vip"}`)
	r := connector.Record{Fields: make([]connector.Field, len(base.Fields))}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Fields = r.Fields[:len(base.Fields)]
		copy(r.Fields, base.Fields)
		for _, tr := range chain {
			if _, err := tr.Apply(&r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	if got := string(connector.AppendRecordJSON(nil, r)); got != `{"id":1042,"name":"Ada Lovelace","email":"ada@example.com","amount":129.95,"country":"DE","active":true}` {
		b.Fatalf("unexpected result %s", got)
	}
}

// BenchmarkRenameCastDropParallel runs the same chain, one instance shared
// by all goroutines, as the engine does with pages transformed in parallel.
func BenchmarkRenameCastDropParallel(b *testing.B) {
	chain := []connector.Transform{
		mustBuild(b, "rename_keys", `{"pattern": "^col_", "replacement": ""}`),
		mustBuild(b, "cast", `{"fields": {"id": "int", "amount": "float", "active": "bool"}}`),
		mustBuild(b, "drop", `{"fields": ["internal_note"]}`),
	}
	base := record(b, `{"col_id": "1042", "col_name": "Ada Lovelace", "col_email": "ada@example.com", "col_amount": "129.95", "col_country": "DE", "col_active": "true", "col_internal_note": "vip"}`)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := connector.Record{Fields: make([]connector.Field, len(base.Fields))}
		for pb.Next() {
			r.Fields = r.Fields[:len(base.Fields)]
			copy(r.Fields, base.Fields)
			for _, tr := range chain {
				if _, err := tr.Apply(&r); err != nil {
					b.Error(err)
					return
				}
			}
		}
	})
}

func BenchmarkKeysCase(b *testing.B) {
	tr := mustBuild(b, "keys_case", `{"mode": "snake"}`)
	base := record(b, `{"userId": "1", "firstName": "a", "lastName": "b", "emailAddress": "c", "Country Code": "DE", "isActive": "true", "createdAt": "x"}`)
	r := connector.Record{Fields: make([]connector.Field, len(base.Fields))}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		copy(r.Fields, base.Fields)
		if _, err := tr.Apply(&r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFilterExpr(b *testing.B) {
	tr := mustBuild(b, "filter", `{"expr": "amount > 100 && country in [\"DE\", \"FR\"]"}`)
	r := record(b, `{"id": 1, "name": "x", "amount": 150, "country": "DE", "a": 1, "b": 2, "c": 3}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if keep, err := tr.Apply(&r); err != nil || !keep {
			b.Fatal(keep, err)
		}
	}
}
