package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/state"
)

func init() { addVerb(newSchemaCmd) }

func newSchemaCmd(app *App) *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "schema [config | source NAME | sink NAME | transform NAME | state NAME]",
		Short: "Print the JSON Schema of the pipeline file or of one component's config",
		Long: `Print a JSON Schema (draft 2020-12). "faucet schema config" describes the whole
pipeline file; editors can use it, e.g. with the YAML language server:
  # yaml-language-server: $schema=./faucet.schema.json`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			if list {
				return printTargets(app)
			}
			if len(args) == 0 {
				return &usageError{fmt.Errorf("name a target (faucet schema --list shows them)")}
			}
			s, err := schemaFor(args)
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(app.Stdout, string(b))
			return err
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the targets")
	return cmd
}

func printTargets(app *App) error {
	reg := registry()
	fmt.Fprintln(app.Stdout, "config")
	for _, s := range reg.Sources() {
		fmt.Fprintf(app.Stdout, "source %s\n", s.Name)
	}
	for _, s := range reg.Sinks() {
		fmt.Fprintf(app.Stdout, "sink %s\n", s.Name)
	}
	for _, s := range reg.Transforms() {
		fmt.Fprintf(app.Stdout, "transform %s\n", s.Name)
	}
	for _, s := range state.Kinds() {
		fmt.Fprintf(app.Stdout, "state %s\n", s.Name)
	}
	return nil
}

func schemaFor(args []string) (map[string]any, error) {
	reg := registry()
	if args[0] == "config" {
		return documentSchema(), nil
	}
	if len(args) != 2 {
		return nil, &usageError{fmt.Errorf("%q needs a NAME: faucet schema %s NAME", args[0], args[0])}
	}
	var cfg any
	switch args[0] {
	case "source":
		s, err := reg.Source(args[1])
		if err != nil {
			return nil, err
		}
		cfg = s.Config
	case "sink":
		s, err := reg.Sink(args[1])
		if err != nil {
			return nil, err
		}
		cfg = s.Config
	case "transform":
		s, err := reg.Transform(args[1])
		if err != nil {
			return nil, err
		}
		cfg = s.Config
	case "state":
		s, err := state.Lookup(args[1])
		if err != nil {
			return nil, err
		}
		cfg = s.Config
	default:
		return nil, &usageError{fmt.Errorf("unknown target %q (config, source, sink, transform, state)", args[0])}
	}
	out := connector.SchemaOf(cfg)
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	out["title"] = args[0] + " " + args[1]
	return out, nil
}

// documentSchema describes the whole pipeline file, with each component
// position a oneOf over the kinds this binary links.
func documentSchema() map[string]any {
	reg := registry()
	var sources, sinks, transforms, stores []any
	for _, s := range reg.Sources() {
		sources = append(sources, componentSchema(s.Name, s.Summary, s.Config))
	}
	for _, s := range reg.Sinks() {
		sinks = append(sinks, componentSchema(s.Name, s.Summary, s.Config))
	}
	for _, s := range reg.Transforms() {
		transforms = append(transforms, componentSchema(s.Name, s.Summary, s.Config))
	}
	for _, s := range state.Kinds() {
		stores = append(stores, componentSchema(s.Name, s.Summary, s.Config))
	}
	source := map[string]any{"oneOf": sources}
	sink := map[string]any{"oneOf": sinks}
	transformList := map[string]any{"type": "array", "items": map[string]any{"oneOf": transforms}}
	stateSchema := map[string]any{"oneOf": stores}
	dlq := obj(map[string]any{
		"sink":                     sink,
		"max_failures_total":       map[string]any{"type": "integer", "minimum": 1},
		"max_failures_per_page":    map[string]any{"type": "integer", "minimum": 1},
		"include_original_payload": map[string]any{"type": "boolean", "default": true},
	}, "sink")
	partial := obj(map[string]any{
		"ref": map[string]any{"type": "string"}, "type": map[string]any{"type": "string"},
		"config": map[string]any{"type": "object"},
	})
	params := map[string]any{"type": "object", "additionalProperties": obj(map[string]any{
		"type":        map[string]any{"enum": []any{"string", "int", "float", "bool", "date", "enum"}},
		"required":    map[string]any{"type": "boolean"},
		"default":     map[string]any{},
		"values":      map[string]any{"type": "array"},
		"secret":      map[string]any{"type": "boolean"},
		"description": map[string]any{"type": "string"},
	})}
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"title":   "faucet pipeline",
		"type":    "object",
		"properties": map[string]any{
			"version": map[string]any{"const": 1},
			"name":    map[string]any{"type": "string"},
			"vars":    map[string]any{"type": "object"},
			"params":  params,
			"pipeline": obj(map[string]any{
				"source": source, "sink": sink,
				"sources":    map[string]any{"type": "object", "additionalProperties": source},
				"sinks":      map[string]any{"type": "object", "additionalProperties": sink},
				"transforms": transformList, "state": stateSchema, "dlq": dlq,
			}),
			"execution": obj(map[string]any{
				"max_concurrent": map[string]any{"type": "integer", "minimum": 1},
				"on_error":       map[string]any{"enum": []any{"abort", "stop", "continue"}},
				"batch_size":     map[string]any{"type": "integer", "minimum": 1, "maximum": connector.MaxPageSize},
			}),
			"matrix": map[string]any{"type": "array", "items": obj(map[string]any{
				"id": map[string]any{"type": "string"}, "source": partial, "sink": partial,
				"transforms": transformList, "inherit_transforms": map[string]any{"type": "boolean"},
				"state": stateSchema, "dlq": map[string]any{"oneOf": []any{dlq, map[string]any{"type": "null"}}},
				"depends_on": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				"delivery":   map[string]any{"enum": []any{"at_least_once", "exactly_once"}},
			})},
			"delivery": map[string]any{"enum": []any{"at_least_once", "exactly_once"}},
			"shard": obj(map[string]any{
				"count": map[string]any{"type": "integer", "minimum": 1, "maximum": config.MaxShardCount},
			}),
		},
		"required":             []any{"pipeline"},
		"additionalProperties": false,
	}
}

func componentSchema(name, summary string, cfg any) map[string]any {
	return map[string]any{
		"type":        "object",
		"description": summary,
		"properties": map[string]any{
			"type":   map[string]any{"const": name},
			"config": connector.SchemaOf(cfg),
		},
		"required":             []any{"type"},
		"additionalProperties": true,
	}
}

func obj(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		r := make([]any, len(required))
		for i, s := range required {
			r[i] = s
		}
		o["required"] = r
	}
	return o
}
