package config

import "runtime"

var topKeys = keys{
	known: []string{"version", "name", "vars", "params", "pipeline", "execution", "matrix", "delivery", "shard"},
	unsupported: []string{"auth", "selection", "observability", "resilience", "sla", "reconcile",
		"replication", "backfill", "partition", "schedule", "lineage", "catalog", "notifications", "metadata_columns"},
	hints: map[string]string{
		"source":     "wrap top-level source/sink in pipeline: (pipeline: {source: ..., sink: ...})",
		"sink":       "wrap top-level source/sink in pipeline: (pipeline: {source: ..., sink: ...})",
		"sources":    "it belongs inside pipeline:",
		"sinks":      "it belongs inside pipeline:",
		"transforms": "it belongs inside pipeline:",
		"state":      "it belongs inside pipeline:",
		"dlq":        "it belongs inside pipeline:",
		"extends":    "config composition (extends/profiles/!include) is not supported by this version of faucet",
		"profiles":   "config composition (extends/profiles/!include) is not supported by this version of faucet",
	},
}

var pipelineKeys = keys{
	known:       []string{"source", "sink", "sources", "sinks", "transforms", "state", "dlq"},
	unsupported: []string{"quality", "contract", "masking", "schema", "nodes", "edges"},
}

var connectorKeys = keys{
	known:       []string{"type", "config", "transforms", "inherit_transforms"},
	unsupported: []string{"status", "tags", "complete_for"},
}

var componentKeys = keys{known: []string{"type", "config"}}

var dlqKeys = keys{known: []string{"sink", "on_batch_error", "max_failures_total", "max_failures_per_page", "include_original_payload"}}

var executionKeys = keys{
	known:       []string{"max_concurrent", "on_error", "batch_size"},
	unsupported: []string{"adaptive_batch_size"},
}

var rowKeys = keys{
	known:       []string{"id", "source", "sink", "transforms", "inherit_transforms", "state", "dlq", "depends_on", "delivery"},
	unsupported: []string{"parent", "parent_key", "tags", "partition", "discover", "for_each"},
}

var partialKeys = keys{
	known:       []string{"ref", "type", "config"},
	unsupported: []string{"status"},
}

// MaxConcurrentLimit is the largest execution.max_concurrent accepted.
const MaxConcurrentLimit = 1 << 16

// MaxShardCount is the largest shard.count accepted.
const MaxShardCount = 1024

// MaxBatchSize is the largest execution.batch_size accepted.
const MaxBatchSize = 1_000_000

// DefaultMaxConcurrent is the number of CPUs clamped to [1, 8].
func DefaultMaxConcurrent() int {
	return min(max(runtime.NumCPU(), 1), 8)
}

// cfgRef is a connector `config:` subtree awaiting the vars pass.
type cfgRef struct {
	n    *node
	path string
}

// structDec is the structural decoder of one document.
type structDec struct {
	dec
	configs []cfgRef
}

func (d *structDec) document(root *node, doc *Document) {
	doc.Version = 1
	doc.Delivery = AtLeastOnce
	doc.Execution = Execution{MaxConcurrent: DefaultMaxConcurrent(), OnError: OnErrorContinue, BatchSize: 1000}
	var pipeline *node
	for _, f := range root.fields {
		switch f.key {
		case "version":
			if v, ok := d.integer(f.val, "version"); ok {
				if v != 1 {
					d.errs.add(f.val.pos, "version", "unsupported version %d: only version 1 is recognised", v)
				}
				doc.Version = int(v)
			}
		case "name":
			if !f.val.isNull() {
				doc.Name, _ = d.nonEmptyStr(f.val, "name")
			}
		case "vars":
			// Read by the vars pass; it must be a mapping.
			d.object(f.val, "vars")
		case "params":
			// Decoded before binding.
		case "pipeline":
			if !f.val.isNull() {
				pipeline = f.val
			}
			if d.object(f.val, "pipeline") {
				d.pipeline(f.val, &doc.Pipeline)
			}
		case "execution":
			if d.object(f.val, "execution") {
				d.execution(f.val, &doc.Execution)
			}
		case "matrix":
			doc.Matrix = d.matrix(f.val)
		case "delivery":
			if s, ok := d.enum(f.val, "delivery", string(AtLeastOnce), string(ExactlyOnce)); ok {
				doc.Delivery = Delivery(s)
			}
		case "shard":
			if d.object(f.val, "shard") {
				doc.ShardCount = d.shard(f.val)
			}
		default:
			d.unknown(f, "", topKeys)
		}
	}
	if pipeline == nil {
		_, hasSource := root.get("source")
		_, hasSink := root.get("sink")
		msg := "required key is missing"
		if hasSource || hasSink {
			msg += "; wrap top-level source/sink in pipeline:"
		}
		d.errs.add(root.pos, "pipeline", "%s", msg)
	}
}

// shard decodes the top-level `shard: {count: N}` block (cluster mode B:
// `faucet serve --cluster` splits the source into N shards; `faucet run`
// ignores it, as 1.x does).
func (d *structDec) shard(n *node) int {
	count := 0
	for _, f := range n.fields {
		switch f.key {
		case "count":
			if v, ok := d.intRange(f.val, "shard.count", 1, MaxShardCount); ok {
				count = int(v)
			}
		default:
			d.unknown(f, "shard", keys{known: []string{"count"}})
		}
	}
	return count
}

func (d *structDec) pipeline(n *node, p *Pipeline) {
	p.Pos = n.pos
	for _, f := range n.fields {
		path := joinPath("pipeline", f.key)
		switch f.key {
		case "source":
			if s, ok := d.connectorSpec(f.val, path); ok {
				p.Source = &s
			}
		case "sink":
			if s, ok := d.connectorSpec(f.val, path); ok {
				d.noSinkTransforms(s, path)
				p.Sink = &s
			}
		case "sources", "sinks":
			if !d.object(f.val, path) {
				continue
			}
			for _, g := range f.val.fields {
				s, ok := d.connectorSpec(g.val, joinPath(path, g.key))
				if !ok {
					continue
				}
				if f.key == "sinks" {
					d.noSinkTransforms(s, joinPath(path, g.key))
					p.Sinks = append(p.Sinks, NamedConnector{Name: g.key, Spec: s})
				} else {
					p.Sources = append(p.Sources, NamedConnector{Name: g.key, Spec: s})
				}
			}
		case "transforms":
			p.Transforms = d.transforms(f.val, path)
		case "state":
			if s, ok := d.component(f.val, path, componentKeys); ok {
				p.State = &s
			}
		case "dlq":
			if !f.val.isNull() {
				p.DLQ = d.dlq(f.val, path)
			}
		default:
			d.unknown(f, "pipeline", pipelineKeys)
		}
	}
	d.duplicateDefault(p.Source, p.Sources, "source")
	d.duplicateDefault(p.Sink, p.Sinks, "sink")
}

func (d *structDec) duplicateDefault(legacy *ConnectorSpec, named []NamedConnector, role string) {
	if legacy == nil {
		return
	}
	for _, nc := range named {
		if nc.Name == "default" {
			d.errs.add(nc.Spec.Pos, "pipeline."+role+"s.default",
				"template %q is defined twice: pipeline.%s is the %q %s template", "default", role, "default", role)
		}
	}
}

func (d *structDec) noSinkTransforms(s ConnectorSpec, path string) {
	if s.transformsSet {
		d.errs.add(s.transformsPos, path, "a sink cannot have transforms or inherit_transforms: transforms run on the source side")
	}
}

func (d *structDec) execution(n *node, e *Execution) {
	for _, f := range n.fields {
		fp := joinPath("execution", f.key)
		switch f.key {
		case "max_concurrent":
			if v, ok := d.intRange(f.val, fp, 1, MaxConcurrentLimit); ok {
				e.MaxConcurrent = int(v)
			}
		case "on_error":
			if s, ok := d.enum(f.val, fp, "continue", "abort", "stop"); ok {
				e.OnError = OnError(s)
				if s == "stop" {
					e.OnError = OnErrorAbort
				}
			}
		case "batch_size":
			if v, ok := d.intRange(f.val, fp, 1, MaxBatchSize); ok {
				e.BatchSize = int(v)
			}
		default:
			d.unknown(f, "execution", executionKeys)
		}
	}
}
