package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/history"
)

// SubmitRequest is the body of POST /v1/runs.
type SubmitRequest struct {
	Config         string                `json:"config"`
	ConfigFormat   string                `json:"config_format,omitempty"`
	Name           *string               `json:"name,omitempty"`
	Labels         map[string]string     `json:"labels,omitempty"`
	TimeoutSecs    *uint64               `json:"timeout_secs,omitempty"`
	IdempotencyKey *string               `json:"idempotency_key,omitempty"`
	Clock          *string               `json:"clock,omitempty"`
	Params         map[string]any        `json:"params,omitempty"`
	Callback       *history.CallbackSpec `json:"callback,omitempty"`
	// DoctorFirst probes the rows before the run is accepted (422 with the
	// report when a probe fails; the report is kept as doctor_report).
	DoctorFirst bool `json:"doctor_first,omitempty"`
}

// prepared is a submission that loaded and validated.
type prepared struct {
	req      SubmitRequest
	doc      *config.Document
	format   history.ConfigFormat
	configFP string // sha256 over name + canonical resolved config
	fp       string // request fingerprint (idempotency)
	// doctorReport is the passing doctor_first report, or nil.
	doctorReport json.RawMessage
}

// defaultConfig is the parsed --default-config.
type defaultConfig struct {
	path string
	root *yaml.Node
}

func readDefaultConfig(path string) (*defaultConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--default-config: %w", err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("--default-config %s: %w", path, err)
	}
	if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("--default-config %s: must be a mapping", path)
	}
	return &defaultConfig{path: path, root: n.Content[0]}, nil
}

// mergeNodes deep-merges over onto base: objects merge recursively (over's
// keys win), scalars, arrays and nulls replace. Neither input is modified.
func mergeNodes(base, over *yaml.Node) *yaml.Node {
	if base == nil || base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode {
		return over
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: over.Tag, Line: over.Line, Column: over.Column}
	overIdx := map[string]int{}
	for i := 0; i+1 < len(over.Content); i += 2 {
		overIdx[over.Content[i].Value] = i
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(base.Content); i += 2 {
		k := base.Content[i].Value
		if j, ok := overIdx[k]; ok {
			out.Content = append(out.Content, over.Content[j], mergeNodes(base.Content[i+1], over.Content[j+1]))
			seen[k] = true
			continue
		}
		out.Content = append(out.Content, base.Content[i], base.Content[i+1])
	}
	for i := 0; i+1 < len(over.Content); i += 2 {
		if !seen[over.Content[i].Value] {
			out.Content = append(out.Content, over.Content[i], over.Content[i+1])
		}
	}
	return out
}

// configError is one problem in details of a 422.
type configError struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func configDetails(err error) any {
	var errs config.Errors
	if errors.As(err, &errs) {
		out := make([]configError, len(errs))
		for i, e := range errs {
			out[i] = configError{Line: e.Line, Column: e.Col, Path: e.Path, Message: e.Msg}
		}
		return map[string]any{"errors": out}
	}
	return map[string]any{"errors": []configError{{Message: err.Error()}}}
}

// prepare runs the load stages of reference §4.2 step 1: parse (400), merge
// onto the default config, interpolate, bind params, strict decode, connector
// checks and matrix expansion (422, with line and column in details).
func (s *Server) prepare(req SubmitRequest, submitted time.Time) (*prepared, error) {
	p := &prepared{req: req}
	switch req.ConfigFormat {
	case "", "yaml":
		p.format = history.FormatYAML
	case "json":
		p.format = history.FormatJSON
	default:
		return nil, errBadConfig("config_format must be yaml or json, got %q", req.ConfigFormat)
	}
	if req.Config == "" {
		return nil, errUnprocessable(nil, "config is required")
	}
	if req.TimeoutSecs != nil && *req.TimeoutSecs == 0 {
		return nil, errUnprocessable(map[string]string{"field": "timeout_secs"}, "timeout_secs must be at least 1")
	}
	data := []byte(req.Config)
	name := "serve.yaml"
	if p.format == history.FormatJSON {
		name = "serve.json"
		if !json.Valid(data) {
			var v any
			err := json.Unmarshal(data, &v)
			return nil, errBadConfig("config is not valid JSON: %v", err)
		}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, errBadConfig("config does not parse: %v", err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, errBadConfig("config must be a mapping")
	}
	for i := 0; i+1 < len(root.Content[0].Content); i += 2 {
		if root.Content[0].Content[i].Value == "schedule" {
			return nil, errBadConfig("`schedule:` is not accepted by faucet serve; submit runs from a scheduler instead")
		}
	}
	if d := s.defaults.Load(); d != nil {
		merged := mergeNodes(d.root, root.Content[0])
		b, err := yaml.Marshal(merged)
		if err != nil {
			return nil, errBadConfig("merging with the default config: %v", err)
		}
		data, name = b, "serve.yaml"
	}
	opts := config.Options{Getenv: s.cfg.Getenv, Params: paramStrings(req.Params)}
	clock, clockOK := parseRunClock(req.Clock, submitted)
	opts.Clock = clock
	doc, err := config.LoadBytes(name, data, opts)
	if err != nil {
		return nil, errUnprocessable(configDetails(err), "invalid pipeline: %v", err)
	}
	if err := doc.Check(s.cfg.Registry); err != nil {
		return nil, errUnprocessable(configDetails(err), "invalid pipeline: %v", err)
	}
	_ = clockOK
	if _, err := doc.ExpandAt(clock); err != nil {
		return nil, errUnprocessable(configDetails(err), "invalid pipeline: %v", err)
	}
	p.doc = doc
	fp, err := configFingerprint(doc)
	if err != nil {
		return nil, errUnprocessable(nil, "invalid pipeline: %v", err)
	}
	p.configFP = fp
	p.fp = requestFingerprint(fp, req.Clock, req.TimeoutSecs, req.Labels)
	return p, nil
}

// paramStrings renders request params as the text values the config layer
// binds (strings as is, null as "", anything else as its JSON).
func paramStrings(in map[string]any) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		switch x := v.(type) {
		case string:
			out[k] = x
		case nil:
			out[k] = ""
		default:
			b, _ := json.Marshal(x)
			out[k] = string(b)
		}
	}
	return out
}

// parseRunClock is the request clock, else the submit time. A malformed
// clock is accepted here and fails the run (as the original).
func parseRunClock(c *string, submitted time.Time) (time.Time, bool) {
	if c == nil || *c == "" {
		return submitted, true
	}
	t, err := time.Parse(time.RFC3339Nano, *c)
	if err != nil {
		return submitted, false
	}
	return t.UTC(), true
}

// fingerprintEpoch resolves ${now.*} when fingerprinting, so the submit time
// never enters the config fingerprint (the clock is hashed separately).
var fingerprintEpoch = time.Unix(0, 0).UTC()

// configFingerprint is hex sha256 of (pipeline name, 0x00, canonical JSON of
// the resolved configuration): every invocation expanded at a fixed clock
// (sources, sinks, transforms, state, DLQ, dependencies, delivery, with
// interpolation and params applied) plus the execution settings. Canonical
// JSON sorts object keys recursively and keeps arrays in order.
//
// The original hashed the canonical JSON of the merged, resolved document
// tree. config.Document does not expose that tree, so this hashes its
// expansion, which carries the same resolved values; the fingerprints are
// therefore not byte-identical with 1.13's (only idempotency claims shared
// with a Rust server during a migration are affected).
func configFingerprint(doc *config.Document) (string, error) {
	invs, err := doc.ExpandAt(fingerprintEpoch)
	if err != nil {
		return "", err
	}
	comp := func(c config.ComponentSpec) map[string]any {
		return map[string]any{"type": c.Type, "config": valueJSON(c.Config.Value)}
	}
	rows := make([]any, len(invs))
	for i, inv := range invs {
		row := map[string]any{"id": inv.ID, "source": comp(inv.Source), "sink": comp(inv.Sink),
			"depends_on": inv.DependsOn, "state_key": inv.StateKey, "delivery": string(inv.Delivery)}
		tr := make([]any, len(inv.Transforms))
		for j, t := range inv.Transforms {
			tr[j] = comp(t)
		}
		row["transforms"] = tr
		if inv.State != nil {
			row["state"] = comp(*inv.State)
		}
		if inv.DLQ != nil {
			row["dlq"] = map[string]any{"sink": comp(inv.DLQ.Sink), "on_batch_error": inv.DLQ.OnBatchError,
				"max_failures_total": inv.DLQ.MaxFailuresTotal, "max_failures_per_page": inv.DLQ.MaxFailuresPerPage,
				"include_original_payload": inv.DLQ.IncludeOriginalPayload}
		}
		rows[i] = row
	}
	ex := doc.ExecutionSettings()
	tree := map[string]any{"version": doc.Version, "rows": rows,
		"execution": map[string]any{"max_concurrent": ex.MaxConcurrent, "on_error": string(ex.OnError), "batch_size": ex.BatchSize}}
	canon, err := json.Marshal(tree) // encoding/json sorts map keys
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(doc.Name))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// valueJSON turns a connector value into plain JSON values (numbers kept
// exact) so encoding/json can re-encode it canonically.
func valueJSON(v connector.Value) any {
	dec := json.NewDecoder(bytes.NewReader(connector.AppendJSON(nil, v)))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return v.Text()
	}
	return out
}

// requestFingerprint is sha256 of config_fp 0x00 clock 0x00 timeout 0x00,
// then each label "k 0x00 v 0x00" in key order (the request name is not
// part of it).
func requestFingerprint(configFP string, clock *string, timeout *uint64, labels map[string]string) string {
	h := sha256.New()
	h.Write([]byte(configFP))
	h.Write([]byte{0})
	if clock != nil {
		h.Write([]byte(*clock))
	}
	h.Write([]byte{0})
	if timeout != nil {
		h.Write([]byte(strconv.FormatUint(*timeout, 10)))
	}
	h.Write([]byte{0})
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(labels[k]))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
