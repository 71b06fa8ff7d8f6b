// Package state keeps bookmarks: the resume position of each pipeline row,
// stored under a state key (`{pipeline}::{row}`) as the bookmark's JSON text,
// byte-compatible with faucet-cli 1.x (see doc.go for the protocol).
package state

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Store is a durable key/value store for bookmarks. Put must be durable when
// it returns. Get of a missing key returns ok=false and no error; a value
// that exists but cannot be read is an error, never "no bookmark".
type Store interface {
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	Put(ctx context.Context, key string, value []byte) error
	Delete(ctx context.Context, key string) error
	Close() error
}

// Kind describes a state store type for `faucet list` and the schema.
type Kind struct {
	Name    string
	Summary string
	Config  any
	Open    func(cfg connector.Config) (Store, error)
}

var kinds = map[string]Kind{}

// Register adds a store kind; called from init of each backend file.
func Register(k Kind) { kinds[k.Name] = k }

// Kinds lists the store kinds by name.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the kind called name or an error listing the valid ones.
func Lookup(name string) (Kind, error) {
	k, ok := kinds[name]
	if !ok {
		names := make([]string, 0, len(kinds))
		for _, k := range Kinds() {
			names = append(names, k.Name)
		}
		return Kind{}, fmt.Errorf("unknown state type %q (valid: %s)", name, strings.Join(names, ", "))
	}
	return k, nil
}

// Open builds the store of kind name from its config block.
func Open(name string, cfg connector.Config) (Store, error) {
	k, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return k.Open(cfg)
}

// ErrInvalidKey is returned for keys outside the allowed grammar.
var ErrInvalidKey = errors.New("invalid state key")

// ValidateKey checks the key grammar shared with faucet-cli 1.x: 1 to 256
// characters of ASCII letters, digits, '_', '-', ':' and '.', not starting
// with '.'.
func ValidateKey(key string) error {
	if key == "" || len(key) > 256 || key[0] == '.' {
		return fmt.Errorf("%w %q: must be 1-256 characters and not start with '.'", ErrInvalidKey, key)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '-' || c == ':' || c == '.'
		if !ok {
			return fmt.Errorf("%w %q: character %q is not allowed (letters, digits, _ - : .)", ErrInvalidKey, key, c)
		}
	}
	return nil
}
