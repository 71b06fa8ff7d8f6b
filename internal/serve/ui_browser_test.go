package serve

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
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

// dumpDOM loads url in headless Chromium and returns the DOM after the
// page's scripts ran (virtual time lets fetches and the log stream finish).
func dumpDOM(t *testing.T, bin, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=5000", "--dump-dom", url)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

// TestConsoleInChromium opens the console in a real headless Chromium:
// the runs list shows a finished run, its detail page shows the summary,
// the invocation and the log read over SSE up to its end; with auth on the
// token prompt opens.
func TestConsoleInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	hn := newHarness(t, func(c *Config) { c.Auth = NoAuth() })
	cfg, _ := hn.csvPipeline("console", 3)
	id := hn.submit(map[string]any{"config": cfg, "name": "console-run"})["run_id"].(string)
	hn.wait(id)

	list := dumpDOM(t, bin, hn.ts.URL+"/#/runs")
	for _, want := range []string{`data-run="` + id + `"`, "console-run", `class="pill completed"`, "anonymous · admin"} {
		if !strings.Contains(list, want) {
			t.Errorf("runs view lacks %q", want)
		}
	}
	detail := dumpDOM(t, bin, hn.ts.URL+"/#/runs/"+id)
	for _, want := range []string{"Records written", "row-0", "INFO pipeline run starting", "end of log"} {
		if !strings.Contains(detail, want) {
			t.Errorf("run view lacks %q:\n%s", want, detail)
		}
	}
	submit := dumpDOM(t, bin, hn.ts.URL+"/#/submit")
	if !strings.Contains(submit, `id="config"`) || !strings.Contains(submit, `id="submit"`) {
		t.Error("submit view not rendered")
	}

	locked := newHarness(t)
	page := dumpDOM(t, bin, locked.ts.URL+"/#/runs")
	if !strings.Contains(page, `<dialog id="token-dialog" open=""`) {
		t.Errorf("token prompt not open with auth on:\n%s", page)
	}
}

// TestConsoleSubmitInChromium drives the console like a user: type the
// token, submit a pipeline from the editor, watch the run complete on its
// page with its live log, see it in the runs list and in the audit view.
func TestConsoleSubmitInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bin := chromium(t)
	hn := newHarness(t)
	cfg, out := hn.csvPipeline("ui-submit", 4)
	b := newBrowser(t, bin)
	b.navigate(hn.ts.URL + "/#/submit")
	b.waitFor("the token prompt", `document.getElementById("token-dialog").open`)
	b.eval(`document.getElementById("token-input").value = `+jsString(adminTok)+`;
		document.querySelector("#token-form button").click(); true`, nil)
	b.waitFor("signed in", `document.getElementById("whoami").textContent.includes("admin")`)
	b.waitFor("the editor", `document.getElementById("config")`)
	b.eval(`document.getElementById("config").value = `+jsString(cfg)+`;
		document.getElementById("name").value = "from-the-console";
		document.getElementById("labels").value = "via=ui";
		document.getElementById("submit").click(); true`, nil)
	b.waitFor("the run page", `location.hash.startsWith("#/runs/0")`)
	b.waitFor("completion", `document.querySelector(".pill.completed")`)
	b.waitFor("the end of the live log", `document.getElementById("logs").textContent.includes("end of log")`)
	var logText string
	b.eval(`document.getElementById("logs").textContent`, &logText)
	if !strings.Contains(logText, "pipeline run starting") || !strings.Contains(logText, "pipeline run completed") {
		t.Fatalf("log panel: %q", logText)
	}
	var hash string
	b.eval(`location.hash`, &hash)
	id := strings.TrimPrefix(hash, "#/runs/")
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
	b.eval(`document.getElementById("config").value = "version: 1\npipeline:\n  source: {type: nope}\n";
		document.getElementById("submit").click(); true`, nil)
	b.waitFor("the 422 report", `document.getElementById("result").textContent.includes("line 3")`)
	// list and audit
	b.navigate(hn.ts.URL + "/#/runs")
	b.waitFor("the runs list", `document.querySelector('tr[data-run="`+id+`"]')`)
	b.navigate(hn.ts.URL + "/#/audit")
	b.waitFor("the audit entry", `document.getElementById("view").textContent.includes("run.submit")`)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
