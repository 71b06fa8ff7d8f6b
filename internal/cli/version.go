package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func init() { addVerb(newVersionCmd) }

func newVersionCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the faucet version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(app.Stdout, "faucet %s (%s %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
