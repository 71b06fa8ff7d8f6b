package historytest_test

import (
	"testing"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/history/historytest"
	"github.com/faucet-hq/faucet/internal/history/memory"
)

func TestMemoryConformance(t *testing.T) {
	historytest.Run(t, func(t *testing.T) historytest.Backend {
		shared := memory.New(history.Options{})
		return historytest.Backend{Open: func(t *testing.T, opts history.Options) history.RunHistory {
			return shared.Instance(opts)
		}}
	})
}
