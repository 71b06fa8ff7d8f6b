// Command faucet moves data declaratively: see internal/cli.
package main

import (
	"context"
	"os"

	"github.com/faucet-hq/faucet/internal/cli"
	"github.com/faucet-hq/faucet/internal/imagepages"
)

func main() {
	// Start-up left most of the executable resident; give back what the
	// command does not use (see internal/imagepages).
	imagepages.Release()
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
