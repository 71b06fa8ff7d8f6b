package e2e

import "testing"

// The query steps' text form: NULL and the empty string differ, and
// nothing a value holds can break a line or a column.
func TestRenderRows(t *testing.T) {
	got := string(renderRows([]string{"id", "v"}, [][][]byte{
		{[]byte("1"), nil},
		{[]byte("2"), {}},
		{[]byte("3"), []byte("tab\there\nnew\rline \\N ü🚀")},
		{[]byte("4"), {0xff, 'a', 0xc3}},
	}))
	want := "id\tv\n" +
		"1\t\\N\n" +
		"2\t\n" +
		"3\ttab\\there\\nnew\\rline \\\\N ü🚀\n" +
		"4\t\\xffa\\xc3\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDatabaseName(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		want string
	}{
		{"sql-postgres-source", 42, "faucet_golden_sql_postgres_source_42"},
		{"Ünïcode & Spaces", 7, "faucet_golden__n_code___spaces_7"},
		{"a-very-long-case-name-that-goes-on-and-on-past-the-limit-of-postgres", 123456,
			"faucet_golden_a_very_long_case_name_that_goes_on_and_on__123456"},
	} {
		got := databaseName(tc.name, tc.pid)
		if got != tc.want {
			t.Errorf("databaseName(%q, %d) = %q, want %q", tc.name, tc.pid, got, tc.want)
		}
		if len(got) > 63 {
			t.Errorf("databaseName(%q) is %d bytes, over Postgres' 63", tc.name, len(got))
		}
	}
}
