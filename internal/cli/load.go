package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/config"
)

// loadFlags are the flags shared by the verbs that read a pipeline file.
type loadFlags struct {
	envFile   string
	noEnvFile bool
	params    []string
	paramEnv  []string
	clock     string
}

func (f *loadFlags) register(cmd *cobra.Command, withParams bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.envFile, "env-file", "", "load variables from this .env file (default: .env next to the config, if present)")
	fl.BoolVar(&f.noEnvFile, "no-env-file", false, "do not load any .env file")
	cmd.MarkFlagsMutuallyExclusive("env-file", "no-env-file")
	if withParams {
		fl.StringArrayVar(&f.params, "param", nil, "set a declared param: NAME=VALUE (repeatable)")
		fl.StringArrayVar(&f.paramEnv, "param-env", nil, "make NAME visible to ${env:NAME} for this run only: NAME copies it from the environment, NAME=VALUE sets it (repeatable)")
		fl.StringVar(&f.clock, "clock", "", "run clock for ${now.*}: RFC 3339 or YYYY-MM-DD (default: now, UTC)")
	}
}

// resolvePath returns the config path from the arguments or by discovery.
func (app *App) resolvePath(args []string) (string, error) {
	if len(args) > 0 {
		return args[0], nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	path, warning, err := config.Discover(wd)
	if err != nil {
		return "", err
	}
	if warning != "" {
		app.Logger.Warn(warning)
	}
	return path, nil
}

// load reads, interpolates and decodes the pipeline file. placeholders is
// validate's mode when no --param is given.
func (app *App) load(path string, f *loadFlags, placeholders bool) (*config.Document, error) {
	envPath, err := config.EnvFileFor(path, f.envFile, f.noEnvFile)
	if err != nil {
		return nil, err
	}
	if envPath != "" {
		if err := config.LoadEnvFile(envPath, setenvIfUnset); err != nil {
			return nil, err
		}
	}
	opts := config.Options{Placeholders: placeholders && len(f.params) == 0}
	if opts.Params, err = parseParams(f.params); err != nil {
		return nil, err
	}
	if opts.ParamEnv, err = parseParamEnv(f.paramEnv); err != nil {
		return nil, err
	}
	if f.clock != "" {
		if opts.Clock, err = parseClock(f.clock); err != nil {
			return nil, err
		}
	}
	return config.Load(path, opts)
}

func setenvIfUnset(k, v string) {
	if _, ok := os.LookupEnv(k); !ok {
		_ = os.Setenv(k, v)
	}
}

func parseParams(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range list {
		name, value, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return nil, &usageError{fmt.Errorf("--param %q: expected NAME=VALUE", p)}
		}
		if _, dup := out[name]; dup {
			return nil, &usageError{fmt.Errorf("--param %s given twice", name)}
		}
		out[name] = value
	}
	return out, nil
}

func parseParamEnv(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range list {
		name, value, ok := strings.Cut(p, "=")
		if !ok {
			v, set := os.LookupEnv(name)
			if !set {
				return nil, &usageError{fmt.Errorf("--param-env %s: variable is not set in the environment", name)}
			}
			value = v
		}
		if _, dup := out[name]; dup {
			return nil, &usageError{fmt.Errorf("--param-env %s given twice", name)}
		}
		out[name] = value
	}
	return out, nil
}

func parseClock(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Time{}, &usageError{fmt.Errorf("--clock %q: expected RFC 3339 or YYYY-MM-DD", s)}
}

// registry is the set of connectors and transforms this binary links.
func registry() *connector.Registry { return connector.Default }
