package cli

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/faucet-hq/faucet/internal/redact"
)

// Version is the faucet version; release builds set it with -ldflags.
var Version = "0.1.0-dev"

func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

// setupLogging builds the logger from the global flags. Logs go to stderr
// through the secret-scrubbing writer.
func (app *App) setupLogging() error {
	var level slog.Level
	switch strings.ToLower(app.LogLevel) {
	case "debug", "trace":
		level = slog.LevelDebug
	case "info", "":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return &usageError{fmt.Errorf("--log-level: unknown level %q (debug, info, warn, error)", app.LogLevel)}
	}
	if app.Quiet && level < slog.LevelWarn {
		level = slog.LevelWarn
	}
	w := redact.NewWriter(app.Stderr, nil)
	opts := &slog.HandlerOptions{Level: level}
	switch app.LogFormat {
	case "text", "":
		app.Logger = slog.New(slog.NewTextHandler(w, opts))
	case "json":
		app.Logger = slog.New(slog.NewJSONHandler(w, opts))
	default:
		return &usageError{fmt.Errorf("--log-format: must be text or json, got %q", app.LogFormat)}
	}
	return nil
}

func redactText(s string) string { return redact.String(s) }
