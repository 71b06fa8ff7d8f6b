package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/pipeline"
)

func init() { addVerb(newDoctorCmd) }

type doctorFlags struct {
	loadFlags
	timeoutSecs int
	asJSON      bool
	offline     bool
}

func newDoctorCmd(app *App) *cobra.Command {
	f := &doctorFlags{}
	cmd := &cobra.Command{
		Use:   "doctor [CONFIG]",
		Short: "Probe every row's source, sink, dead-letter sink and state store without running it",
		Long: `Load a pipeline file and, for each row, check that its connectors would get
going: files exist and can be read or created, databases answer and accept
the credentials, tables and columns exist, and the state store round-trips a
sentinel key (faucet_doctor_probe). Nothing else is written. The exit status
is the number of failed probes. --offline only checks the file, as validate.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.timeoutSecs < 1 {
				return &usageError{fmt.Errorf("--timeout-secs must be at least 1, got %d", f.timeoutSecs)}
			}
			path, err := app.resolvePath(args)
			if err != nil {
				return err
			}
			started := time.Now()
			doc, err := app.load(path, &f.loadFlags, f.offline)
			if err == nil {
				err = doc.Check(registry())
			}
			var invs []config.Invocation
			if err == nil {
				invs, err = doc.Expand()
			}
			if err != nil {
				return err
			}
			loaded := time.Since(started)
			if f.offline {
				for _, inv := range invs {
					if err := pipeline.Check(doc, inv, registry()); err != nil {
						return err
					}
				}
				fmt.Fprintf(app.Stdout, "Config lint: %s\nLint: 0 error(s), 0 warning(s)\n", path)
				return nil
			}
			reports := pipeline.Doctor(cmd.Context(), doc, invs, pipeline.DoctorOptions{
				Registry: registry(), Timeout: time.Duration(f.timeoutSecs) * time.Second,
			})
			redactReports(reports)
			passed, failed, skipped := tallyProbes(reports)
			total := time.Since(started)
			if f.asJSON {
				enc := json.NewEncoder(app.Stdout)
				enc.SetIndent("", "  ")
				_ = enc.Encode(map[string]any{"config": path, "invocations": reports, "summary": map[string]any{
					"passed": passed, "failed": failed, "skipped": skipped, "elapsed_ms": total.Milliseconds()}})
			} else {
				printDoctor(app.Stdout, loaded, len(invs), reports)
				fmt.Fprintf(app.Stdout, "\nSummary: %d passed, %d failed, %d skipped       total elapsed %.1fs\n",
					passed, failed, skipped, total.Seconds())
			}
			if failed > 0 {
				return &ExitError{Code: min(failed, 125), Err: errPrinted}
			}
			return nil
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.IntVar(&f.timeoutSecs, "timeout-secs", 10, "time each connector's probes may take")
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON")
	fl.BoolVar(&f.offline, "offline", false, "check the file only (no connections), as validate")
	return cmd
}

// redactReports removes interpolated secrets from reasons and hints.
func redactReports(reports []pipeline.InvocationReport) {
	for i := range reports {
		for j := range reports[i].Probes {
			p := &reports[i].Probes[j]
			p.Reason, p.Hint = redactText(p.Reason), redactText(p.Hint)
		}
	}
}

func tallyProbes(reports []pipeline.InvocationReport) (passed, failed, skipped int) {
	for _, r := range reports {
		for _, p := range r.Probes {
			switch p.Status {
			case pipeline.ProbePass:
				passed++
			case pipeline.ProbeFail:
				failed++
			default:
				skipped++
			}
		}
	}
	return
}

// printDoctor writes the checklist of faucet-cli 1.x.
func printDoctor(w io.Writer, loaded time.Duration, rows int, reports []pipeline.InvocationReport) {
	plural := "s"
	if rows == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "✓ Config parses and interpolates%34d ms\n", loaded.Milliseconds())
	fmt.Fprintf(w, "✓ Matrix expands to %d invocation%s\n", rows, plural)
	for _, r := range reports {
		fmt.Fprintf(w, "\n▸ Invocation %s  (source=%s, sink=%s", r.ID, r.SourceType, r.SinkType)
		if r.Delivery != "" {
			fmt.Fprintf(w, ", delivery=%s", r.Delivery)
		}
		fmt.Fprintln(w, ")")
		for _, p := range r.Probes {
			sym, extra := "✓", ""
			switch p.Status {
			case pipeline.ProbeFail:
				sym, extra = "✗", " ("+p.Reason+")"
			case pipeline.ProbeSkip:
				sym, extra = "•", " (skip: "+p.Reason+")"
			}
			fmt.Fprintf(w, "  %s %-6s [%s] %s%s%8d ms\n", sym, p.Role, p.Connector, p.Name, strings.TrimRight(extra, "\n"), p.ElapsedMS)
			if p.Hint != "" && p.Status == pipeline.ProbeFail {
				fmt.Fprintf(w, "        hint: %s\n", p.Hint)
			}
		}
	}
}
