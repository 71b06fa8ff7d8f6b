// Package ui is the web console of faucet serve: a small single-page app
// (plain ES modules, no build step, no external CDN) embedded in the binary.
// It talks to the same /v1 API as any client, with the bearer token the user
// enters (kept in localStorage "faucet.token").
package ui

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assets embed.FS

// Files is the embedded console.
func Files() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err)
	}
	return sub
}

// Index serves index.html (the shell; deep links land here too).
func Index(w http.ResponseWriter, _ *http.Request) {
	b, err := fs.ReadFile(Files(), "index.html")
	if err != nil {
		http.Error(w, "console missing", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}

// Asset serves /assets/{path...}; it reports false when there is no such
// file, so the caller can answer its own 404.
func Asset(w http.ResponseWriter, name string) bool {
	name = path.Clean("/" + name)[1:]
	if name == "" || strings.HasPrefix(name, ".") {
		return false
	}
	b, err := fs.ReadFile(Files(), name)
	if err != nil {
		return false
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
	return true
}
