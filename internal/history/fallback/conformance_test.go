package fallback_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/fallback"
	"github.com/faucet-hq/faucet/internal/history/historytest"
	"github.com/faucet-hq/faucet/internal/history/sqlstore"
)

// A healthy wrapper is transparent: the whole suite passes through it.
func TestHealthyWrapperConformance(t *testing.T) {
	historytest.Run(t, func(t *testing.T) historytest.Backend {
		url := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
		return historytest.Backend{Open: func(t *testing.T, opts history.Options) history.RunHistory {
			s, err := sqlstore.OpenOptions(context.Background(), url, opts)
			if err != nil {
				t.Fatal(err)
			}
			fb := fallback.Healthy(s, opts, "sqlite")
			t.Cleanup(func() { fb.Close() })
			return fb
		}}
	})
}
