// Command faucet moves data declaratively: see internal/cli.
package main

import (
	"context"
	"os"

	"github.com/faucet-hq/faucet/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
