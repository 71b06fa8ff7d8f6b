package serve

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// chromium returns the path of a Chromium binary, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH under CI=true (scripts/services.sh installs Debian's chromium)")
	}
	t.Skip("no chromium on PATH (Debian: apt-get install chromium)")
	return ""
}

// TestConsoleInChromium opens the console in a real headless Chromium:
// the runs list shows a finished run (and renders to a real screenshot),
// its detail page shows the summary, the invocation and the log read over
// SSE up to its end; with auth on the token prompt opens.
func TestConsoleInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	hn := newHarness(t, func(c *Config) { c.Auth = NoAuth() })
	locked := newHarness(t)
	b := newTab(t) // after the harnesses: closed before they shut down
	cfg, _ := hn.csvPipeline("console", 3)
	id := hn.submit(map[string]any{"config": cfg, "name": "console-run"})["run_id"].(string)
	hn.wait(id)

	b.navigate(hn.ts.URL + "/#/runs")
	b.waitFor("the finished run in the list", `document.querySelector('tr[data-run="`+id+`"] .pill.completed')`)
	b.waitFor("the principal", `document.getElementById("whoami").textContent.includes("admin")`)
	list := b.html()
	for _, want := range []string{`data-run="` + id + `"`, "console-run", `class="pill completed"`, "anonymous · admin"} {
		if !strings.Contains(list, want) {
			t.Errorf("runs view lacks %q", want)
		}
	}
	shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	checkScreenshot(t, shot)

	b.navigate(hn.ts.URL + "/#/runs/" + id)
	b.waitFor("the summary", `document.getElementById("view").textContent.includes("Records written")`)
	b.waitFor("the end of the log", `document.getElementById("logs").textContent.includes("end of log")`)
	b.waitFor("the invocation", `document.getElementById("view").textContent.includes("row-0")`)
	detail := b.html()
	for _, want := range []string{"Records written", "row-0", "INFO pipeline run starting", "end of log"} {
		if !strings.Contains(detail, want) {
			t.Errorf("run view lacks %q:\n%s", want, detail)
		}
	}

	b.navigate(hn.ts.URL + "/#/submit")
	b.waitFor("the editor", `document.getElementById("config") && document.getElementById("submit")`)
	submit := b.html()
	if !strings.Contains(submit, `id="config"`) || !strings.Contains(submit, `id="submit"`) {
		t.Error("submit view not rendered")
	}

	// another origin, no token stored: the prompt opens
	b.navigate(locked.ts.URL + "/#/runs")
	b.waitFor("the token prompt", `document.getElementById("token-dialog").open`)
	if page := b.html(); !strings.Contains(page, `<dialog id="token-dialog" open=""`) {
		t.Errorf("token prompt not open with auth on:\n%s", page)
	}
}

// checkScreenshot writes the PNG to a temporary file, reads it back and
// checks that it is a window-sized picture with something drawn on it.
func checkScreenshot(t *testing.T, shot []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", path, err)
	}
	r := img.Bounds()
	if len(data) < 4<<10 || r.Dx() < 640 || r.Dy() < 400 {
		t.Fatalf("screenshot too small: %d bytes, %dx%d", len(data), r.Dx(), r.Dy())
	}
	colors := map[[4]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y && len(colors) < 16; y += 4 {
		for x := r.Min.X; x < r.Max.X; x += 4 {
			c0, c1, c2, c3 := img.At(x, y).RGBA()
			colors[[4]uint32{c0, c1, c2, c3}] = true
		}
	}
	if len(colors) < 16 {
		t.Fatalf("screenshot is nearly blank: %d colours", len(colors))
	}
	t.Logf("runs view screenshot: %s, %d bytes, %dx%d", path, len(data), r.Dx(), r.Dy())
}

// TestConsoleSubmitInChromium drives the console like a user: type the
// token, submit a pipeline from the editor, watch the run complete on its
// page with its live log, see it in the runs list and in the audit view.
func TestConsoleSubmitInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	hn := newHarness(t)
	b := newTab(t)
	cfg, out := hn.csvPipeline("ui-submit", 4)
	b.navigate(hn.ts.URL + "/#/submit")
	b.waitFor("the token prompt", `document.getElementById("token-dialog").open`)
	b.do("sign in",
		chromedp.SendKeys(chromedp.ID("token-input"), adminTok),
		chromedp.Click(chromedp.CSS("#token-form button")))
	b.waitFor("signed in", `document.getElementById("whoami").textContent.includes("admin")`)
	b.waitFor("the editor", `document.getElementById("config")`)
	b.do("fill in and submit the form",
		chromedp.SetValue(chromedp.ID("config"), cfg),
		chromedp.SendKeys(chromedp.ID("name"), "from-the-console"),
		chromedp.SendKeys(chromedp.ID("labels"), "via=ui"),
		chromedp.Click(chromedp.ID("submit")))
	b.waitFor("the run page", `location.hash.startsWith("#/runs/0")`)
	b.waitFor("completion", `document.querySelector(".pill.completed")`)
	b.waitFor("the end of the live log", `document.getElementById("logs").textContent.includes("end of log")`)
	logText := eval[string](b, `document.getElementById("logs").textContent`)
	if !strings.Contains(logText, "pipeline run starting") || !strings.Contains(logText, "pipeline run completed") {
		t.Fatalf("log panel: %q", logText)
	}
	id := strings.TrimPrefix(eval[string](b, `location.hash`), "#/runs/")
	rec := hn.do("GET", "/v1/runs/"+id, readTok, nil).json(t)
	if rec["name"] != "from-the-console" || rec["labels"].(map[string]any)["via"] != "ui" || rec["records_written"] != float64(4) {
		t.Fatalf("record: %v", rec)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	// an invalid pipeline shows its positions
	b.navigate(hn.ts.URL + "/#/submit")
	b.waitFor("the editor", `document.getElementById("config")`)
	b.do("submit an invalid pipeline",
		chromedp.SetValue(chromedp.ID("config"), "version: 1\npipeline:\n  source: {type: nope}\n"),
		chromedp.Click(chromedp.ID("submit")))
	b.waitFor("the 422 report", `document.getElementById("result").textContent.includes("line 3")`)
	// list and audit
	b.navigate(hn.ts.URL + "/#/runs")
	b.waitFor("the runs list", `document.querySelector('tr[data-run="`+id+`"]')`)
	b.navigate(hn.ts.URL + "/#/audit")
	b.waitFor("the audit entry", `document.getElementById("view").textContent.includes("run.submit")`)
}
