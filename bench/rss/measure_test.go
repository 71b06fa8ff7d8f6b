//go:build linux

package main

import "testing"

func TestIsInit(t *testing.T) {
	for name, want := range map[string]bool{
		"runtime.init":                       true,
		"runtime.init.0":                     true,
		"github.com/a/b.init":                true,
		"github.com/a/b.init.12":             true,
		"gopkg.in/yaml%2ev3.init":            true,
		"github.com/a/b.init.0.func1":        false,
		"github.com/a/b.(*T).init":           false,
		"github.com/a/b.initialize":          false,
		"github.com/a/b.T.init":              false,
		"github.com/a/b.(*T).init.func2":     false,
		"github.com/a/b.init.0.func1.gowrap": false,
	} {
		if got := isInit(name); got != want {
			t.Errorf("isInit(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPkgOf(t *testing.T) {
	for name, want := range map[string]string{
		"runtime.mallocgc":                   "runtime",
		"github.com/a/b.(*T).Write":          "github.com/a/b",
		"gopkg.in/yaml%2ev3.(*parser).parse": "gopkg.in/yaml%2ev3",
		"github.com/a/b/c.init.0":            "github.com/a/b/c",
		"type:.eq.github.com/a/b.T":          "github.com/a/b",
	} {
		if got := pkgOf(name); got != want {
			t.Errorf("pkgOf(%q) = %q, want %q", name, got, want)
		}
	}
}
