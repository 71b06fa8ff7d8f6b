package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/engine"
	"github.com/faucet-hq/faucet/internal/pipeline"
)

func init() { addVerb(newPreviewCmd) }

func newPreviewCmd(app *App) *cobra.Command {
	f := &loadFlags{}
	var limit int64
	var rowID string
	cmd := &cobra.Command{
		Use:   "preview [CONFIG]",
		Short: "Print the first records of a row's source, after its transforms, as JSON Lines",
		Long: `Read the first --limit records of the first row (or --row), apply its transforms
and print them to stdout as JSON Lines. Saved bookmarks are ignored, nothing
is written to the sink and no state is saved; the source stops reading once
it has enough records.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 {
				return &usageError{fmt.Errorf("--limit must be at least 1")}
			}
			path, err := app.resolvePath(args)
			if err != nil {
				return err
			}
			doc, err := app.load(path, f, false)
			if err != nil {
				return err
			}
			if err := doc.Check(registry()); err != nil {
				return err
			}
			invs, err := doc.Expand()
			if err != nil {
				return err
			}
			inv := invs[0]
			if rowID != "" {
				found := false
				for _, i := range invs {
					if i.ID == rowID {
						inv, found = i, true
					}
				}
				if !found {
					return fmt.Errorf("no matrix row %q", rowID)
				}
			}
			row, err := pipeline.Build(doc, inv, pipeline.Options{Registry: registry(), Limit: limit})
			if err != nil {
				return err
			}
			// A preview shows what the source holds, from the start: no
			// bookmark, no dead letters.
			row.DLQ = nil
			if row.State != nil {
				_ = row.State.Close()
				row.State = nil
			}
			spec, err := registry().Sink("stdout")
			if err != nil {
				return err
			}
			row.Sink, err = spec.New(connector.Config{Path: "preview", Value: jsonlFormat()})
			if err != nil {
				return err
			}
			row.SinkType = "stdout"
			row.Logger = app.Logger
			row.Stdout = app.Stdout
			_, err = engine.Run(cmd.Context(), row)
			return err
		},
	}
	f.register(cmd, true)
	cmd.Flags().Int64Var(&limit, "limit", 10, "number of records to print")
	cmd.Flags().StringVar(&rowID, "row", "", "matrix row to preview (default: the first)")
	return cmd
}

func jsonlFormat() connector.Value {
	r := connector.NewRecord(1)
	r.Set("format", connector.String("jsonl"))
	return connector.Object(r)
}
