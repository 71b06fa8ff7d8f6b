package state

import (
	"context"
	"sync"

	"github.com/faucet-hq/faucet/connector"
)

func init() {
	Register(Kind{
		Name:    "memory",
		Summary: "in-process map; bookmarks last only as long as the process",
		Config:  &struct{}{},
		Open: func(cfg connector.Config) (Store, error) {
			if err := cfg.Decode(&struct{}{}); err != nil {
				return nil, err
			}
			return NewMemory(), nil
		},
	})
}

// Memory is a process-local store.
type Memory struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemory returns an empty memory store.
func NewMemory() *Memory { return &Memory{m: map[string][]byte{}} }

// Get implements Store.
func (s *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	if err := ValidateKey(key); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return append([]byte(nil), v...), ok, nil
}

// Put implements Store.
func (s *Memory) Put(_ context.Context, key string, value []byte) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), value...)
	return nil
}

// Delete implements Store.
func (s *Memory) Delete(_ context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Close implements Store.
func (s *Memory) Close() error { return nil }
