package transforms

import (
	"bufio"
	"bytes"
	"fmt"
	"os"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	connector.RegisterTransform(connector.TransformSpec{
		Name:    "lookup",
		Summary: "Add fields from a small reference table (inline or a JSON Lines file), matched by key.",
		Config:  &lookupConfig{},
		New:     newLookup,
	})
}

type lookupOn struct {
	Record string `json:"record" doc:"Field of the incoming record to match on."`
	Ref    string `json:"ref" doc:"Field of the reference rows to match against."`
}

type lookupConfig struct {
	Values    []map[string]any  `json:"values" doc:"Inline reference rows (objects). Exactly one of values and jsonl."`
	JSONL     string            `json:"jsonl" doc:"Path of a JSON Lines file of reference rows, read once when the pipeline is built (relative paths from the working directory). Exactly one of values and jsonl."`
	On        lookupOn          `json:"on" required:"true" doc:"Match keys {record: <record field>, ref: <reference field>}. Keys compare by their text: 42 matches \"42\"."`
	Add       map[string]string `json:"add" required:"true" doc:"Fields to add, output field -> reference field (null when the matched row lacks it)."`
	OnMissing string            `json:"on_missing" default:"null" enum:"null,keep,error" doc:"When no row matches: null sets the added fields to null, keep leaves the record, error fails it."`
}

func (c *lookupConfig) Validate() error {
	switch {
	case c.Values != nil && c.JSONL != "":
		return connector.ConfigErrorf("", "set exactly one of values and jsonl, not both")
	case c.Values == nil && c.JSONL == "":
		return connector.ConfigErrorf("", "set values or jsonl (the reference rows)")
	case c.On.Record == "":
		return connector.ConfigErrorf("on.record", "must name the record's match field")
	case c.On.Ref == "":
		return connector.ConfigErrorf("on.ref", "must name the reference rows' match field")
	case len(c.Add) == 0:
		return connector.ConfigErrorf("add", "must name at least one field to add")
	}
	return nil
}

// lookup joins each record against reference rows indexed by the text of
// their match field (the first row of a key wins). Records are never
// dropped.
type lookup struct {
	index     map[string]connector.Record
	on        string
	add       []connector.Field // output field -> reference field (a string), document order
	onMissing string
}

func newLookup(cfg connector.Config) (connector.Transform, error) {
	// Checked before Decode, which names neither a nested unknown key nor
	// the index of a bad list element precisely.
	for _, f := range configFields(cfg, "on") {
		if f.Key != "record" && f.Key != "ref" {
			return nil, connector.ConfigErrorf(cfg.Path+".on."+f.Key, "unknown key %q", f.Key)
		}
	}
	values, _ := configValue(cfg, "values")
	for i, row := range values.AsArray() {
		if row.Kind() != connector.KindObject {
			return nil, connector.ConfigErrorf(fmt.Sprintf("%s.values[%d]", cfg.Path, i), "must be an object, got %s", row.Kind())
		}
	}
	var c lookupConfig
	if err := cfg.Decode(&c); err != nil {
		return nil, err
	}
	var rows []connector.Value
	if c.Values != nil {
		rows = values.AsArray()
	} else {
		var err error
		if rows, err = readJSONLRows(c.JSONL); err != nil {
			return nil, connector.ConfigErrorf(cfg.Path+".jsonl", "%v", err)
		}
	}
	t := &lookup{index: make(map[string]connector.Record, len(rows)), on: c.On.Record, onMissing: c.OnMissing}
	for _, row := range rows {
		key, ok := row.AsObject().Get(c.On.Ref)
		if !ok {
			continue
		}
		if k := key.Text(); t.index[k].Fields == nil {
			t.index[k] = row.AsObject()
		}
	}
	t.add = configFields(cfg, "add")
	return t, nil
}

func readJSONLRows(path string) ([]connector.Value, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the reference rows: %w", err)
	}
	var rows []connector.Value
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		v, err := connector.ParseJSON(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if v.Kind() != connector.KindObject {
			return nil, fmt.Errorf("%s:%d: a reference row must be an object, got %s", path, line, v.Kind())
		}
		rows = append(rows, v)
	}
	return rows, sc.Err()
}

func (t *lookup) Apply(r *connector.Record) (bool, error) {
	key, ok := r.Get(t.on)
	var row connector.Record
	found := false
	if ok {
		row, found = t.index[key.Text()]
	}
	if found {
		for _, a := range t.add {
			v, _ := row.Get(a.Value.AsString())
			r.Set(a.Key, fresh(v))
		}
		return true, nil
	}
	switch t.onMissing {
	case "keep":
	case "error":
		if !ok {
			return false, fmt.Errorf("lookup: the record has no field %s to match on", quote(t.on))
		}
		return false, fmt.Errorf("lookup: no reference row for %s = %s", t.on, show(key))
	default:
		for _, a := range t.add {
			r.Set(a.Key, connector.Null())
		}
	}
	return true, nil
}
