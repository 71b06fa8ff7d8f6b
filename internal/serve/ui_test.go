package serve

import (
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/faucet-hq/faucet/internal/serve/ui"
)

func TestConsoleServed(t *testing.T) {
	hn := newHarness(t)
	r := hn.do("GET", "/", "", nil)
	if r.code != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(r.body), "/assets/app.js") || r.header.Get("Content-Security-Policy") == "" {
		t.Fatalf("index: %d %v", r.code, r.header)
	}
	for path, ct := range map[string]string{"/assets/app.js": "javascript", "/assets/style.css": "text/css"} {
		if r := hn.do("GET", path, "", nil); r.code != 200 || !strings.Contains(r.header.Get("Content-Type"), ct) ||
			r.header.Get("Cache-Control") != "no-cache" {
			t.Fatalf("%s: %d %v", path, r.code, r.header)
		}
	}
	if r := hn.do("GET", "/assets/nope.js", "", nil); r.code != 404 || r.errCode(t) != CodeNotFound {
		t.Fatalf("missing asset: %d", r.code)
	}
	if r := hn.do("GET", "/assets/../ui.go", "", nil); r.code != 404 {
		t.Fatalf("traversal: %d", r.code)
	}
	// deep links from a browser get the shell; API clients the envelope
	req, _ := http.NewRequest("GET", hn.ts.URL+"/runs/abc", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	res, err := hn.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("deep link: %d", res.StatusCode)
	}
	// no external CDN: every URL in the assets is same-origin
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`)
	_ = fs.WalkDir(ui.Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(ui.Files(), p)
		if ext.Match(b) || strings.Contains(string(b), "cdn.") {
			t.Errorf("%s references an external resource", p)
		}
		return nil
	})
}

func TestConsoleOff(t *testing.T) {
	hn := newHarness(t, func(c *Config) { c.NoUI = true })
	for _, p := range []string{"/", "/assets/app.js"} {
		if r := hn.do("GET", p, "", nil); r.code != 404 {
			t.Fatalf("%s with --no-ui: %d", p, r.code)
		}
	}
}
