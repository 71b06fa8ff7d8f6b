package connector

import (
	"context"
	"strings"
	"testing"
)

func TestSuggestReplicationKey(t *testing.T) {
	id := Column{Name: "id", Type: ColumnInteger}
	ts := func(name string, nullable bool) Column {
		return Column{Name: name, Type: ColumnTimestamp, Nullable: nullable}
	}
	cases := []struct {
		name string
		cols []Column
		pk   []string
		want string
	}{
		{"integer primary key", []Column{id, {Name: "v", Type: ColumnString}}, []string{"id"}, "id"},
		{"updated_at beats the key", []Column{id, ts("created_at", false), ts("updated_at", false)}, []string{"id"}, "updated_at"},
		{"spellings", []Column{ts("LastModified", false)}, nil, "LastModified"},
		{"spaces and dashes", []Column{ts("Date Modified", false)}, nil, "Date Modified"},
		{"first match wins", []Column{ts("modified_on", false), ts("updated_at", false)}, nil, "modified_on"},
		{"nullable updated_at", []Column{id, ts("updated_at", true)}, []string{"id"}, "id"},
		{"updated_at not a timestamp", []Column{{Name: "updated_at", Type: ColumnString}}, nil, ""},
		{"date is not a timestamp", []Column{{Name: "updated_at", Type: ColumnDate}}, nil, ""},
		{"created_at is not a change time", []Column{ts("created_at", false)}, nil, ""},
		{"composite key", []Column{id, {Name: "line", Type: ColumnInteger}}, []string{"id", "line"}, ""},
		{"text key", []Column{{Name: "code", Type: ColumnString}}, []string{"code"}, ""},
		{"decimal key", []Column{{Name: "n", Type: ColumnDecimal}}, []string{"n"}, ""},
		{"nullable integer key", []Column{{Name: "id", Type: ColumnInteger, Nullable: true}}, []string{"id"}, ""},
		{"no key", []Column{id}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SuggestReplicationKey(tc.cols, tc.pk); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDiscoverers(t *testing.T) {
	d := NewDiscoverers()
	fn := func(context.Context, Config, DiscoverOptions) ([]Dataset, error) { return nil, nil }
	d.Add(DiscoverSpec{Source: "pg", ConnectionKey: "connection_url", Discover: fn})
	d.Add(DiscoverSpec{Source: "lite", ConnectionKey: "path", Discover: fn})
	if s, err := d.Lookup("lite"); err != nil || s.ConnectionKey != "path" {
		t.Fatalf("lookup: %+v, %v", s, err)
	}
	_, err := d.Lookup("csv")
	if err == nil || !strings.Contains(err.Error(), `"csv" does not support dataset discovery (supported: lite, pg)`) {
		t.Errorf("unknown kind: %v", err)
	}
	if got := strings.Join(d.Names(), ","); got != "lite,pg" {
		t.Errorf("names %s", got)
	}
	for name, spec := range map[string]DiscoverSpec{
		"duplicate":    {Source: "pg", ConnectionKey: "url", Discover: fn},
		"no func":      {Source: "x", ConnectionKey: "url"},
		"no key":       {Source: "y", Discover: fn},
		"invalid name": {Source: "Bad Name", ConnectionKey: "url", Discover: fn},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			d.Add(spec)
		})
	}
}
