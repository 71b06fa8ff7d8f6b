//go:build tools

// Package tools pins modules that packages under construction will import,
// so that go.mod stays stable while several people work in parallel.
package tools

import (
	_ "github.com/expr-lang/expr"
	_ "github.com/google/uuid"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/spf13/cobra"
	_ "go.uber.org/goleak"
	_ "golang.org/x/term"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)
