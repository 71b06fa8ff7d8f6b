package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/internal/state"
)

func init() { addVerb(newListCmd) }

type listEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func newListCmd(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the sources, sinks, transforms and state stores this binary has",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			reg := registry()
			var sources, sinks, transforms, stores []listEntry
			for _, s := range reg.Sources() {
				sources = append(sources, listEntry{s.Name, s.Summary})
			}
			for _, s := range reg.Sinks() {
				sinks = append(sinks, listEntry{s.Name, s.Summary})
			}
			for _, s := range reg.Transforms() {
				transforms = append(transforms, listEntry{s.Name, s.Summary})
			}
			for _, s := range state.Kinds() {
				stores = append(stores, listEntry{s.Name, s.Summary})
			}
			if asJSON {
				enc := json.NewEncoder(app.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{
					"sources": sources, "sinks": sinks, "transforms": transforms, "state_stores": stores,
				})
			}
			tw := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			section(tw, "Sources", sources)
			section(tw, "Sinks", sinks)
			section(tw, "Transforms", transforms)
			section(tw, "State stores", stores)
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func section(w io.Writer, title string, entries []listEntry) {
	fmt.Fprintf(w, "%s:\n", title)
	for _, e := range entries {
		fmt.Fprintf(w, "  %s\t%s\n", e.Name, e.Description)
	}
	fmt.Fprintln(w)
}
