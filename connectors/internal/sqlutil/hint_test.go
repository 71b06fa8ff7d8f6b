package sqlutil

import (
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

func TestRecordHint(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name string
		rec  connector.Record
		key  []string
		want string
	}{
		{"key fields", rec("name", "a", "id", 7, "region", "eu"), []string{"id", "region"}, `id=7, region="eu"`},
		{"no key: the first field", rec("name", "a", "id", 7), nil, `name="a"`},
		{"key missing: the first field", rec("name", "a"), []string{"id"}, `name="a"`},
		{"long value cut", rec("note", long), nil, `note="` + long[:60] + "..."},
		{"cut between characters", rec("note", "a"+strings.Repeat("é", 40)), nil, `note="a` + strings.Repeat("é", 29) + "..."},
		{"empty record", connector.Record{}, []string{"id"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RecordHint(tc.rec, tc.key); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
