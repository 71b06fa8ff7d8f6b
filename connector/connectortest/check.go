package connectortest

import (
	"context"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/connector"
)

// CheckSummary runs c's doctor probes and renders them as
// "name:pass name:fail(message) name:skip" for table tests.
func CheckSummary(t testing.TB, c any) string {
	t.Helper()
	ch, ok := c.(connector.Checker)
	if !ok {
		t.Fatalf("%T has no doctor probes (connector.Checker)", c)
	}
	var parts []string
	for _, r := range ch.Check(context.Background()) {
		switch {
		case r.Err != nil:
			parts = append(parts, r.Name+":fail("+r.Err.Error()+")")
		case r.Skipped != "":
			parts = append(parts, r.Name+":skip")
		default:
			parts = append(parts, r.Name+":pass")
		}
	}
	return strings.Join(parts, " ")
}
