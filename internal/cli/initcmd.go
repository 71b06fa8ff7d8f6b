package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/connector"
)

func init() { addVerb(newInitCmd) }

func newInitCmd(app *App) *cobra.Command {
	var source, sink, output string
	var force bool
	cmd := &cobra.Command{
		Use:   "init [NAME]",
		Short: "Write a commented starter pipeline file for a source and a sink",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			name := "my-pipeline"
			if len(args) == 1 {
				name = args[0]
			}
			reg := registry()
			src, err := reg.Source(source)
			if err != nil {
				return err
			}
			snk, err := reg.Sink(sink)
			if err != nil {
				return err
			}
			text := scaffold(name, src.Name, src.Config, snk.Name, snk.Config)
			flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
			if force {
				flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			}
			f, err := os.OpenFile(output, flags, 0o644)
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%s already exists (use --force to overwrite)", output)
			}
			if err != nil {
				return err
			}
			if _, err := f.WriteString(text); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "wrote %s\n", output)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&source, "source", "csv", "source type")
	fl.StringVar(&sink, "sink", "jsonl", "sink type")
	fl.StringVarP(&output, "output", "o", "faucet.yaml", "file to write")
	fl.BoolVar(&force, "force", false, "overwrite an existing file")
	return cmd
}

// scaffold renders a pipeline file from the two components' schemas:
// required keys with a placeholder, optional ones commented out with their
// default and allowed values.
func scaffold(name, srcKind string, srcCfg any, sinkKind string, sinkCfg any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# yaml-language-server: $schema=faucet.schema.json   (faucet schema config > faucet.schema.json)\n")
	fmt.Fprintf(&b, "version: 1\nname: %s\n\npipeline:\n", name)
	writeComponent(&b, "source", srcKind, srcCfg, "input."+srcKind)
	b.WriteString("\n  # transforms:\n  #   - type: rename_keys\n  #     config: {pattern: \"^id$\", replacement: \"record_id\"}\n")
	b.WriteString("  #   - type: filter\n  #     config: {expr: 'country == \"DE\"'}\n\n")
	writeComponent(&b, "sink", sinkKind, sinkCfg, "output."+sinkKind)
	b.WriteString("\n  # Keep bookmarks so incremental sources resume where they stopped:\n")
	b.WriteString("  # state:\n  #   type: file\n  #   config: {path: ./.faucet-state}\n")
	b.WriteString("\n  # Send records that fail to decode or transform here instead of failing:\n")
	b.WriteString("  # dlq:\n  #   sink: {type: jsonl, config: {path: ./dlq.jsonl}}\n")
	b.WriteString("\n# execution:\n#   max_concurrent: 4\n#   on_error: continue   # or abort\n")
	return b.String()
}

// writeComponent renders one component; examplePath fills a required
// `path` so that the starter file validates as written.
func writeComponent(b *strings.Builder, role, kind string, cfg any, examplePath string) {
	fmt.Fprintf(b, "  %s:\n    type: %s\n    config:\n", role, kind)
	s := connector.SchemaOf(cfg)
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := s["required"].([]string); ok {
		for _, k := range r {
			required[k] = true
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if required[keys[i]] != required[keys[j]] {
			return required[keys[i]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) == 0 {
		b.WriteString("      {}\n")
	}
	for _, k := range keys {
		p, _ := props[k].(map[string]any)
		comment := ""
		if d, ok := p["description"].(string); ok {
			comment = "  # " + d
		}
		if e, ok := p["enum"].([]any); ok {
			parts := make([]string, len(e))
			for i, v := range e {
				parts[i] = fmt.Sprint(v)
			}
			comment += " (" + strings.Join(parts, " | ") + ")"
		}
		if required[k] {
			val := placeholder(p)
			switch {
			case k == "path":
				val = fmt.Sprintf("%q", examplePath)
			case val == `""`:
				val = `"CHANGE-ME"`
			}
			fmt.Fprintf(b, "      %s: %s%s  REQUIRED\n", k, val, comment)
			continue
		}
		def, ok := p["default"]
		val := placeholder(p)
		if ok {
			val = fmt.Sprintf("%v", def)
			if s, isStr := def.(string); isStr {
				val = fmt.Sprintf("%q", s)
			}
		}
		fmt.Fprintf(b, "      # %s: %s%s\n", k, val, comment)
	}
}

func placeholder(p map[string]any) string {
	switch p["type"] {
	case "integer":
		return "0"
	case "number":
		return "0.0"
	case "boolean":
		return "false"
	case "array":
		return "[]"
	case "object":
		return "{}"
	}
	return `""`
}
