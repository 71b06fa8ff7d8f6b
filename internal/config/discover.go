package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// discoveryNames are the config files looked for, in priority order.
var discoveryNames = []string{"faucet.yaml", "faucet.yml", "faucet.json"}

// ErrNoConfig is returned by Discover when dir holds no config.
var ErrNoConfig = errors.New("no pipeline config: pass a path or create faucet.yaml")

// Discover finds the config in dir: faucet.yaml, else faucet.yml, else
// faucet.json. When several exist, warning names the ones not used.
func Discover(dir string) (path string, warning string, err error) {
	var found []string
	for _, name := range discoveryNames {
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err == nil && !st.IsDir() {
			found = append(found, p)
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", "", fmt.Errorf("look for %s: %w", name, err)
		}
	}
	if len(found) == 0 {
		return "", "", ErrNoConfig
	}
	if len(found) > 1 {
		others := make([]string, len(found)-1)
		for i, p := range found[1:] {
			others[i] = filepath.Base(p)
		}
		warning = fmt.Sprintf("several configs found; using %s and ignoring %s", filepath.Base(found[0]), strings.Join(others, ", "))
	}
	return found[0], warning, nil
}

// EnvFileFor decides which .env file a run loads: none when disabled, the
// explicit path when given (it must exist), else the .env next to the
// config when there is one.
func EnvFileFor(configPath, explicit string, disabled bool) (string, error) {
	if disabled {
		if explicit != "" {
			return "", errors.New("--env-file and --no-env-file cannot be used together")
		}
		return "", nil
	}
	if explicit != "" {
		st, err := os.Stat(explicit)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("--env-file %s does not exist", explicit)
			}
			return "", fmt.Errorf("--env-file %s: %w", explicit, err)
		}
		if st.IsDir() {
			return "", fmt.Errorf("--env-file %s is a directory", explicit)
		}
		return explicit, nil
	}
	p := filepath.Join(filepath.Dir(configPath), ".env")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, nil
	}
	return "", nil
}
