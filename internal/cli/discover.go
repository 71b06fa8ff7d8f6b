package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
)

func init() { addVerb(newDiscoverCmd) }

// discoverFlags are the flags of `faucet discover`.
type discoverFlags struct {
	load        loadFlags
	source      string
	url         string
	include     []string
	exclude     []string
	schemas     []string
	output      string
	force       bool
	format      string
	json        bool
	passwordEnv string
	timeout     time.Duration
}

func newDiscoverCmd(app *App) *cobra.Command {
	f := &discoverFlags{}
	cmd := &cobra.Command{
		Use:   "discover [CONFIG | TYPE --url URL]",
		Short: "List the tables behind a source and print a pipeline file with one matrix row per table",
		Long: `Connect to a source, list its tables (views are left out) with their columns,
types, nullability and primary keys, and print a pipeline file with one matrix
row per table. Each row overrides the source config to read its table.

With CONFIG (default: faucet.yaml, ...), the source template pipeline.source
(or --source NAME of pipeline.sources) is introspected and the file is echoed
with its matrix: replaced; ${env:...} and other references stay as written.
With TYPE --url URL (a connection URL, or a file path for sqlite), a complete
file is generated: a jsonl sink writing out/<row>.jsonl, and a file state
store when some table reads incrementally.

A row gets a replication_key when its table has an obvious one: the first
NOT NULL timestamp column named like updated_at (modified_at, last_modified,
last_updated, updated_on, update_time, date_modified, ...), else a single
NOT NULL integer primary key. Other tables are read whole on every run.
(SQLite: integer primary keys only, see connectors/sqlite/discover.go.)

A password written in a URL is never printed: it is replaced by
${env:PGPASSWORD} (postgres), ${env:MYSQL_PWD} (mysql) or ${env:NAME} with
--password-env NAME, and a note says which variable to set.`,
		Example: `  faucet discover conn.yaml -o pipeline.yaml && faucet validate pipeline.yaml
  faucet discover postgres --url 'postgres://app@db:5432/shop' --schema sales --exclude '*_tmp'
  faucet discover sqlite --url ./app.db --format json
  faucet discover conn.yaml --json        # the datasets as JSON, for scripts`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiscover(cmd.Context(), app, f, args)
		},
	}
	fl := cmd.Flags()
	f.load.register(cmd, false)
	fl.StringVar(&f.source, "source", "", "source template of the config to introspect: a pipeline.sources name (default: pipeline.source)")
	fl.StringVar(&f.url, "url", "", "connect to this URL (or sqlite file) instead of reading a config; the argument is then the source type")
	fl.StringArrayVar(&f.include, "include", nil, "only tables whose name matches this *-pattern, e.g. 'public.*' (repeatable)")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "leave out tables whose name matches this *-pattern (repeatable; applied after --include)")
	fl.StringArrayVar(&f.schemas, "schema", nil, "only tables of this schema (postgres; repeatable; default: every non-system schema)")
	fl.StringVarP(&f.output, "output", "o", "", "write the pipeline file here instead of stdout")
	fl.BoolVar(&f.force, "force", false, "overwrite the --output file if it exists")
	fl.StringVar(&f.format, "format", "", "syntax of the pipeline file: yaml or json (default: from --output's extension, else yaml)")
	fl.BoolVar(&f.json, "json", false, "print the discovered tables as JSON instead of a pipeline file")
	fl.StringVar(&f.passwordEnv, "password-env", "", "environment variable that stands for a password found in a URL (default: PGPASSWORD for postgres, MYSQL_PWD for mysql)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up connecting and listing after this long")
	return cmd
}

// discoverTarget is what discovery connects to and how the output is built.
type discoverTarget struct {
	kind     string           // source type
	template string           // source template name ("default" for pipeline.source)
	cfg      connector.Config // the template's (interpolated) config
	path     string           // config file, "" with --url
	label    string           // for messages: the template or the redacted URL
}

func runDiscover(ctx context.Context, app *App, f *discoverFlags, args []string) error {
	format, err := f.outputFormat()
	if err != nil {
		return err
	}
	var t discoverTarget
	if f.url != "" {
		t, err = urlTarget(f, args)
	} else {
		t, err = configTarget(app, f, args)
	}
	if err != nil {
		return err
	}
	spec, err := connector.DefaultDiscoverers.Lookup(t.kind)
	if err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	all, err := spec.Discover(dctx, t.cfg, connector.DiscoverOptions{Schemas: f.schemas})
	if err != nil {
		// The connectors' messages do not always wrap the context error.
		if errors.Is(dctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return fmt.Errorf("discover %s: no answer within --timeout %s: %w", t.label, f.timeout, err)
		}
		if t.path == "" { // the connector's message names the URL
			return fmt.Errorf("discover: %w", err)
		}
		return fmt.Errorf("discover %s: %w", t.label, err)
	}
	datasets := filterDatasets(all, f.include, f.exclude)
	if len(datasets) == 0 {
		return noDatasetsError(t, f, all)
	}
	if f.json {
		out, err := datasetsJSON(t.kind, datasets)
		if err != nil {
			return err
		}
		return emit(app, f, out, nil, countOf(len(datasets), "table")+" from '"+t.kind+"' source, as JSON")
	}

	var root *yamlDoc
	if t.path != "" {
		raw, err := os.ReadFile(t.path)
		if err != nil {
			return fmt.Errorf("read config: %w", err)
		}
		root, err = parseRawDoc(t.path, raw)
		if err != nil {
			return err
		}
	} else {
		root = generatedDoc(t.kind, spec.ConnectionKey, f.url, hasIncremental(datasets))
	}
	notes := hidePasswords(root.node, f.passwordEnv)
	root.setMatrix(matrixNode(datasets, t, t.path == ""))
	out, err := root.render(format)
	if err != nil {
		return err
	}
	selfCheck(app, format, out)
	return emit(app, f, out, notes, countOf(len(datasets), "table")+" from '"+t.kind+"' source")
}

// emit writes out to --output (saying so on stderr) or to stdout, then
// the notes.
func emit(app *App, f *discoverFlags, out []byte, notes []string, what string) error {
	if f.output == "" {
		if _, err := app.Stdout.Write(out); err != nil {
			return err
		}
	} else {
		if err := writeNew(f.output, out, f.force); err != nil {
			return err
		}
		fmt.Fprintf(app.Stderr, "wrote %s (%s)\n", f.output, what)
	}
	for _, n := range notes {
		fmt.Fprintf(app.Stderr, "note: %s\n", n)
	}
	return nil
}

func (f *discoverFlags) outputFormat() (config.Format, error) {
	switch strings.ToLower(f.format) {
	case "yaml", "yml":
		return config.FormatYAML, nil
	case "json":
		return config.FormatJSON, nil
	case "":
		if strings.EqualFold(filepath.Ext(f.output), ".json") {
			return config.FormatJSON, nil
		}
		return config.FormatYAML, nil
	}
	return "", &usageError{fmt.Errorf("--format must be yaml or json, got %q", f.format)}
}

// urlTarget is `faucet discover TYPE --url URL`.
func urlTarget(f *discoverFlags, args []string) (discoverTarget, error) {
	if len(args) != 1 {
		return discoverTarget{}, &usageError{fmt.Errorf("--url needs the source type as the argument: faucet discover postgres --url URL (types: %s)",
			strings.Join(connector.DefaultDiscoverers.Names(), ", "))}
	}
	if f.source != "" {
		return discoverTarget{}, &usageError{errors.New("--source picks a template of a config file; it does not go with --url")}
	}
	kind := args[0]
	spec, err := connector.DefaultDiscoverers.Lookup(kind)
	if err != nil {
		return discoverTarget{}, &usageError{err}
	}
	r := connector.NewRecord(1)
	r.Set(spec.ConnectionKey, connector.String(f.url))
	return discoverTarget{
		kind: kind, template: "default",
		cfg:   connector.Config{Path: "--url", Value: connector.Object(r)},
		label: redactURL(f.url),
	}, nil
}

// configTarget is `faucet discover [CONFIG] [--source NAME]`.
func configTarget(app *App, f *discoverFlags, args []string) (discoverTarget, error) {
	path, err := app.resolvePath(args)
	if err != nil {
		return discoverTarget{}, err
	}
	// Placeholders for required params: discovery needs the connection,
	// not values that only matter when the pipeline runs.
	doc, err := app.load(path, &f.load, true)
	if err != nil {
		return discoverTarget{}, err
	}
	name := f.source
	if name == "" {
		name = "default"
	}
	spec, err := sourceTemplate(doc, name)
	if err != nil {
		return discoverTarget{}, err
	}
	return discoverTarget{
		kind: spec.Type, template: name, cfg: spec.Config, path: path,
		label: fmt.Sprintf("source '%s' (%s) of %s", name, spec.Type, path),
	}, nil
}

// sourceTemplate finds pipeline.sources[name], or pipeline.source for
// "default".
func sourceTemplate(doc *config.Document, name string) (*config.ComponentSpec, error) {
	var names []string
	for i := range doc.Pipeline.Sources {
		s := &doc.Pipeline.Sources[i]
		if s.Name == name {
			return &s.Spec.ComponentSpec, nil
		}
		names = append(names, s.Name)
	}
	if doc.Pipeline.Source != nil {
		if name == "default" {
			return &doc.Pipeline.Source.ComponentSpec, nil
		}
		names = append(names, "default")
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("%s has no pipeline.source or pipeline.sources to discover", doc.File)
	}
	return nil, fmt.Errorf("%s has no source template named '%s' (available: %s)", doc.File, name, strings.Join(names, ", "))
}

func noDatasetsError(t discoverTarget, f *discoverFlags, all []connector.Dataset) error {
	where := ""
	if len(f.schemas) > 0 {
		where = " in schema " + strings.Join(f.schemas, ", ")
	}
	if len(all) == 0 {
		return fmt.Errorf("discover %s: the database has no tables%s (views are not listed)", t.label, where)
	}
	names := make([]string, 0, 10)
	for i, d := range all {
		if i == 10 {
			names = append(names, "...")
			break
		}
		names = append(names, d.Name)
	}
	return fmt.Errorf("discover %s: none of its %s%s matches --include/--exclude (tables: %s)",
		t.label, countOf(len(all), "table"), where, strings.Join(names, ", "))
}

func hasIncremental(ds []connector.Dataset) bool {
	for _, d := range ds {
		if d.ReplicationKey != "" {
			return true
		}
	}
	return false
}

// selfCheck loads the generated file as `faucet validate` would (unset
// ${env:...} variables stand in with a placeholder) and warns when it
// would not pass, which for a config file given as input can come from the
// rest of that file.
func selfCheck(app *App, format config.Format, out []byte) {
	getenv := func(k string) (string, bool) {
		if v, ok := os.LookupEnv(k); ok {
			return v, true
		}
		return "placeholder", true
	}
	name := "discovered.yaml"
	if format == config.FormatJSON {
		name = "discovered.json"
	}
	doc, err := config.LoadBytes(name, out, config.Options{Getenv: getenv, Placeholders: true})
	if err == nil {
		err = doc.Check(registry())
	}
	if err != nil {
		app.Logger.Warn("the generated pipeline file does not validate; review it before running", "problems", strings.Join(errorList(err), "; "))
	}
}

// writeNew writes data to path, refusing to replace a file unless force.
func writeNew(path string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	fh, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists (use --force to overwrite)", path)
	}
	if err != nil {
		return err
	}
	if _, err := fh.Write(data); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
