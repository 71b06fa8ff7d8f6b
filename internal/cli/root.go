// Package cli implements the faucet command line: one file per verb, wired
// together here. Main is the only entry point; cmd/faucet calls it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
)

// App carries what every verb needs: the standard streams and the global
// flags. Verbs never touch os.Stdout or os.Exit directly, so tests can run
// them in-process.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	LogLevel   string
	LogFormat  string
	Quiet      bool
	CPUProfile string
	MemProfile string

	Logger *slog.Logger

	stopProfile func()
}

// verbs lists the constructors of every subcommand; each verb file adds
// itself from an init function.
var verbs []func(app *App) *cobra.Command

func addVerb(f func(app *App) *cobra.Command) { verbs = append(verbs, f) }

// ExitError carries a specific exit status out of a verb. Its message, if
// any, has already been printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// Main runs the faucet command line and returns the process exit status.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &App{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	root := newRoot(app)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil && !errors.Is(ee.Err, errPrinted) {
			printError(stderr, ee.Err)
		}
		return ee.Code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "error: %v\n", ue.err)
		return 2
	}
	printError(stderr, err)
	return 1
}

// errPrinted marks an error whose report the verb already printed.
var errPrinted = errors.New("reported")

// printError prints err as "error: ..." lines: one per problem for
// config error lists.
func printError(w io.Writer, err error) {
	for _, line := range errorList(err) {
		fmt.Fprintf(w, "error: %s\n", redactText(line))
	}
}

type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }

func newRoot(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:           "faucet",
		Short:         "Move data declaratively: source -> transforms -> sink",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := app.setupLogging(); err != nil {
				return err
			}
			stop, err := app.startProfile()
			if err != nil {
				return err
			}
			app.stopProfile = stop
			return nil
		},
		PersistentPostRun: func(*cobra.Command, []string) {
			if app.stopProfile != nil {
				app.stopProfile()
			}
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&app.LogLevel, "log-level", envOr("FAUCET_LOG", "info"), "log level: debug, info, warn, error (env FAUCET_LOG)")
	pf.StringVar(&app.LogFormat, "log-format", "text", "log format: text or json")
	pf.BoolVarP(&app.Quiet, "quiet", "q", false, "no progress line and no informational logs")
	pf.StringVar(&app.CPUProfile, "cpuprofile", "", "write a CPU profile of the command to this file")
	_ = pf.MarkHidden("cpuprofile")
	pf.StringVar(&app.MemProfile, "memprofile", "", "write an allocation profile of the command to this file")
	_ = pf.MarkHidden("memprofile")
	// -V as in faucet-cli 1.x (cobra would pick -v).
	root.Flags().BoolP("version", "V", false, "print the version")
	for _, v := range verbs {
		root.AddCommand(v(app))
	}
	return root
}
