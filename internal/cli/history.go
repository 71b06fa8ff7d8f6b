package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

func init() { addVerb(newHistoryCmd) }

// dataDir is where `faucet serve` keeps its durable state by default:
// $FAUCET_DATA_DIR, else $XDG_DATA_HOME/faucet, else ~/.local/share/faucet.
func dataDir() string {
	if d := os.Getenv("FAUCET_DATA_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "faucet")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "faucet")
	}
	return ".faucet"
}

func defaultHistoryURL() string { return "sqlite:" + filepath.Join(dataDir(), "history.db") }

func newHistoryCmd(app *App) *cobra.Command {
	var url, status, name string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List the runs recorded in a run-history database, newest first",
		Long: `List runs from the history database that faucet serve writes (also one
written by faucet-cli 1.x): sqlite:PATH or postgres://... The default is the
SQLite file in faucet serve's data directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return &usageError{fmt.Errorf("--limit must be at least 1")}
			}
			f := history.ListFilter{Limit: limit}
			if status != "" {
				for _, s := range strings.Split(status, ",") {
					st, ok := history.ParseRunStatus(strings.TrimSpace(s))
					if !ok {
						return &usageError{fmt.Errorf("--status: unknown status %q (one of %s)", s, statusNames())}
					}
					f.Status = append(f.Status, st)
				}
			}
			if name != "" {
				f.Name = &name
			}
			if strings.HasPrefix(url, "sqlite:") {
				path := strings.TrimPrefix(url, "sqlite:")
				if _, err := os.Stat(path); err != nil {
					return fmt.Errorf("no history database at %s (faucet serve creates it): %w", path, err)
				}
			}
			h, err := sqlstore.Open(cmd.Context(), url, "faucet-history-cli")
			if err != nil {
				return fmt.Errorf("open history %s: %w", redactText(url), err)
			}
			defer h.Close()
			page, err := h.List(cmd.Context(), f)
			if err != nil {
				return err
			}
			if err := history.PrintRuns(app.Stdout, page.Runs, asJSON); err != nil {
				return err
			}
			if len(page.Corrupt) > 0 {
				app.Logger.Warn("some runs could not be read", "run_ids", strings.Join(page.Corrupt, ","))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&url, "history", envOr("FAUCET_HISTORY", defaultHistoryURL()), "history database: sqlite:PATH or postgres://... (env FAUCET_HISTORY)")
	fl.StringVar(&status, "status", "", "only runs with these statuses (comma-separated)")
	fl.StringVar(&name, "name", "", "only runs of this pipeline name")
	fl.IntVar(&limit, "limit", 20, "how many runs to show")
	fl.BoolVar(&asJSON, "json", false, "print the run records as JSON")
	return cmd
}

func statusNames() string {
	names := make([]string, len(history.AllStatuses))
	for i, s := range history.AllStatuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
