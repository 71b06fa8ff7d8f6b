// Package config loads a faucet pipeline file: it parses YAML or JSON
// keeping every key's line and column, resolves load-time interpolation
// (`${env:X}`, `${secret:X}`, `${file:path}`), binds `params:`, decodes the
// structural keys strictly (unknown keys are errors), resolves `vars:`, and
// expands the matrix into invocations whose connector configs can be
// checked against a connector.Registry. Every error names file:line:col and
// the key path, and a pass reports all the errors it finds.
//
// The stages run in the original's order:
//
//  1. parse (YAML, or JSON by extension) into a tree with positions;
//  2. `${env:X}`, `${secret:X}` (an alias) and `${file:path}` in every
//     string and key, one scalar at a time (a value never adds structure);
//     every resolved value is registered with redact;
//  3. `params:` binding: `${param.NAME}` everywhere but the params block,
//     typed when it is the whole string, text when embedded;
//  4. strict decode of the structural keys;
//  5. `${vars.X}` and `${sources|sinks.NAME.PATH}` in connector configs;
//  6. Expand: matrix rows merged over templates, graph checks, and the run
//     clock's `${now.*}` in source and sink configs.
//
// `$${` escapes a literal `${` through every stage; it becomes `${` in the
// invocation configs Expand returns and in structural strings.
//
// The grammar is faucet-cli 1.x's (version 1). Keys of the original that
// this version does not implement yet (resilience, partition, parent rows,
// ...) are rejected with "is not supported by this version of faucet"
// rather than silently ignored.
package config

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/faucet-hq/faucet/connector"
)

// Options are the caller's inputs to one load.
type Options struct {
	// Getenv looks up `${env:X}` / `${secret:X}`; nil means os.LookupEnv.
	Getenv func(string) (string, bool)
	// ParamEnv is the --param-env overlay, consulted before Getenv.
	ParamEnv map[string]string
	// Params are the --param NAME=VALUE values.
	Params map[string]string
	// Placeholders gives unsupplied required params a typed placeholder
	// instead of failing (validate without --param).
	Placeholders bool
	// BaseDir resolves relative `${file:path}` paths; "" means the process
	// working directory (as the original does).
	BaseDir string
	// Clock is the run clock for `${now.*}`; zero means time.Now().UTC().
	Clock time.Time
}

// Format is the syntax of a config file.
type Format string

// The config syntaxes.
const (
	FormatYAML Format = "yaml"
	FormatJSON Format = "json"
)

// OnError is what a run does when one invocation fails.
type OnError string

// The on_error policies. "stop" in a config is read as OnErrorAbort.
const (
	OnErrorContinue OnError = "continue"
	OnErrorAbort    OnError = "abort"
)

// Delivery is the delivery guarantee a row asks for.
type Delivery string

// The delivery modes; "" on a matrix row means inherit.
const (
	AtLeastOnce Delivery = "at_least_once"
	ExactlyOnce Delivery = "exactly_once"
)

// Document is a loaded, decoded config.
type Document struct {
	File   string // the name used in messages (the path as given)
	Format Format

	Version int
	Name    string // "" when the config has no name:
	// Vars is the resolved `vars:` block (an object, or null when absent).
	Vars connector.Value
	// Params are the declared params, in file order.
	Params []ParamSpec
	// ParamValues are the bound param values by name (typed).
	ParamValues map[string]connector.Value
	Pipeline    Pipeline
	Execution   Execution
	Matrix      []MatrixRow
	Delivery    Delivery
	// ShardCount is `shard: {count: N}` (0 when absent): with N >= 2 a
	// clustered `faucet serve` splits a single-row pipeline's source into
	// N shards run across its members. `faucet run` ignores it.
	ShardCount int

	root  *node
	pos   posIndex
	clock time.Time
}

// ComponentSpec is one `{type, config}` block: a source, sink, transform or
// state store.
type ComponentSpec struct {
	Type string
	// Config is the `config:` block; Config.Path is its key path.
	Config connector.Config
	// Pos is where the block starts; TypePos is where its `type` value is.
	Pos     Pos
	TypePos Pos
	// origins maps a sub-path of Config (relative, "" for the block itself)
	// to the document path it was written at, when the config is a merge of
	// a template and a matrix row override.
	origins  map[string]string
	cfg      *node  // the config subtree until materialize
	typePath string // document path of the `type` key
}

// ConnectorSpec is a source or sink template.
type ConnectorSpec struct {
	ComponentSpec
	Transforms        []ComponentSpec
	InheritTransforms bool // default true
	// transformsSet records that `transforms:` or `inherit_transforms:` was
	// written (an error on sink templates).
	transformsPos Pos
	transformsSet bool
}

// NamedConnector is one entry of `pipeline.sources` or `pipeline.sinks`.
type NamedConnector struct {
	Name string
	Spec ConnectorSpec
}

// DLQSpec is a dead-letter queue block.
type DLQSpec struct {
	Sink                   ComponentSpec
	OnBatchError           string // "propagate" (default) or "dlq_all"
	MaxFailuresTotal       int64  // 0 = no limit (a 0 in the config is rejected)
	MaxFailuresPerPage     int64  // 0 = no limit
	IncludeOriginalPayload bool   // default true
	Pos                    Pos
}

// Pipeline is the `pipeline:` block.
type Pipeline struct {
	Source     *ConnectorSpec // legacy singular source = template "default"
	Sink       *ConnectorSpec
	Sources    []NamedConnector
	Sinks      []NamedConnector
	Transforms []ComponentSpec
	State      *ComponentSpec
	DLQ        *DLQSpec
	Pos        Pos
}

// Execution is the `execution:` block with defaults applied.
type Execution struct {
	MaxConcurrent int // default: CPUs clamped to [1, 8]
	OnError       OnError
	BatchSize     int // default 1000
}

// PartialConnector is a matrix row's source or sink override.
type PartialConnector struct {
	Ref     string // template name; "" means "default"
	Type    string // replaces the template's type when set
	Config  *connector.Value
	Pos     Pos
	TypePos Pos
	RefPos  Pos
	path    string // document path of the override block
	cfg     *node
}

// MatrixRow is one `matrix:` entry.
type MatrixRow struct {
	ID                string
	Source            *PartialConnector
	Sink              *PartialConnector
	Transforms        []ComponentSpec
	InheritTransforms bool // default true
	State             *ComponentSpec
	// DLQSet reports that the row wrote `dlq:`; with DLQ nil that is
	// `dlq: null`, which disables the pipeline DLQ for the row.
	DLQSet    bool
	DLQ       *DLQSpec
	DependsOn []string
	Delivery  Delivery // "" = inherit
	Pos       Pos
	idPos     Pos
	dependsOn []Pos
}

// ExecutionSettings returns the execution block with defaults applied.
func (d *Document) ExecutionSettings() Execution { return d.Execution }

// PipelineName is the first segment of every state key: `name:`, else the
// config file's stem, else "pipeline".
func (d *Document) PipelineName() string {
	if d.Name != "" {
		return d.Name
	}
	base := filepath.Base(d.File)
	if stem := strings.TrimSuffix(base, filepath.Ext(base)); stem != "" && stem != "." && stem != string(filepath.Separator) {
		return stem
	}
	return "pipeline"
}
