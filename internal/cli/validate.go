package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/internal/config"
	"github.com/faucet-hq/faucet/internal/pipeline"
)

func init() { addVerb(newValidateCmd) }

func newValidateCmd(app *App) *cobra.Command {
	f := &loadFlags{}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [CONFIG]",
		Short: "Check a pipeline file: syntax, keys, types, connectors, transforms and the matrix graph",
		Long: `Check a pipeline file without running it. Every problem is reported at once,
with file:line:column and the key path; the exit status is 1 if there is any.
Without --param, required params are checked against typed placeholders.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path, err := app.resolvePath(args)
			if err != nil {
				return err
			}
			doc, err := app.load(path, f, true)
			var invs []config.Invocation
			var problems []string
			if err != nil {
				problems = append(problems, errorList(err)...)
			}
			if doc != nil {
				// Keep going past the first stage's errors: validate
				// reports every problem at once.
				if cerr := safeCheck(doc); cerr != nil {
					problems = append(problems, errorList(cerr)...)
				}
				var xerr error
				if invs, xerr = safeExpand(doc); xerr != nil {
					problems = append(problems, errorList(xerr)...)
				}
				if len(problems) == 0 {
					// Run-time gates (delivery: exactly_once, state keys).
					for _, inv := range invs {
						if err := pipeline.Check(doc, inv, registry()); err != nil {
							problems = append(problems, err.Error())
						}
					}
				}
			}
			problems = dedupe(problems)
			if len(problems) > 0 {
				if asJSON {
					_ = json.NewEncoder(app.Stdout).Encode(map[string]any{"valid": false, "errors": problems})
				} else {
					for _, line := range problems {
						fmt.Fprintf(app.Stderr, "error: %s\n", redactText(line))
					}
				}
				return &ExitError{Code: 1, Err: errPrinted}
			}
			if err != nil {
				if asJSON {
					_ = json.NewEncoder(app.Stdout).Encode(map[string]any{"valid": false, "errors": errorList(err)})
				} else {
					for _, line := range errorList(err) {
						fmt.Fprintf(app.Stderr, "error: %s\n", redactText(line))
					}
				}
				return &ExitError{Code: 1, Err: errPrinted}
			}
			return printValid(app, doc, invs, asJSON)
		},
	}
	f.register(cmd, true)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// safeCheck and safeExpand run on a document that may have failed to
// load completely; a panic there is a bug, reported as one more problem
// instead of hiding the others.
func safeCheck(doc *config.Document) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error while checking components: %v", r)
		}
	}()
	return doc.Check(registry())
}

func safeExpand(doc *config.Document) (invs []config.Invocation, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error while expanding the matrix: %v", r)
		}
	}()
	return doc.Expand()
}

func dedupe(lines []string) []string {
	seen := map[string]bool{}
	out := lines[:0]
	for _, l := range lines {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// errorList splits a config.Errors into one message per problem.
func errorList(err error) []string {
	if es, ok := err.(config.Errors); ok {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.Error()
		}
		return out
	}
	return []string{err.Error()}
}

func printValid(app *App, doc *config.Document, invs []config.Invocation, asJSON bool) error {
	exec := doc.ExecutionSettings()
	if asJSON {
		rows := make([]map[string]any, len(invs))
		for i, inv := range invs {
			rows[i] = map[string]any{
				"id": inv.ID, "source": inv.Source.Type, "sink": inv.Sink.Type,
				"depends_on": nonNil(inv.DependsOn), "state_key": inv.StateKey, "transforms": len(inv.Transforms),
			}
		}
		enc := json.NewEncoder(app.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"valid": true, "name": doc.PipelineName(), "row_count": len(invs), "rows": rows})
	}
	fmt.Fprintf(app.Stdout, "ok: '%s' rows=%d execution=max_concurrent=%d on_error=%s\n",
		doc.PipelineName(), len(invs), exec.MaxConcurrent, exec.OnError)
	for _, inv := range invs {
		line := fmt.Sprintf("  - %s source=%s sink=%s", inv.ID, inv.Source.Type, inv.Sink.Type)
		if len(inv.Transforms) > 0 {
			names := make([]string, len(inv.Transforms))
			for i, t := range inv.Transforms {
				names[i] = t.Type
			}
			line += " transforms=[" + strings.Join(names, ", ") + "]"
		}
		if len(inv.DependsOn) > 0 {
			line += " depends_on=[" + strings.Join(inv.DependsOn, ", ") + "]"
		}
		if inv.State != nil {
			line += " state=" + inv.State.Type + " key=" + inv.StateKey
		}
		if inv.DLQ != nil {
			line += " dlq=" + inv.DLQ.Sink.Type
		}
		fmt.Fprintln(app.Stdout, line)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
