package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserTimeout bounds everything one test does in the browser: start,
// every action and every wait.
const browserTimeout = 60 * time.Second

// tab is one page of a headless Chromium that chromedp drives over its
// DevTools pipe.
type tab struct {
	t   *testing.T
	ctx context.Context
}

// newTab starts Debian's chromium (found on PATH by chromium(t), which
// skips — or fails under CI=true — without one) with its own temporary
// profile, and returns its first tab. The whole browser lives at most
// browserTimeout; the cleanup closes it, waits for the process to exit and
// fails the test if any process of that profile is still alive.
func newTab(t *testing.T) *tab {
	t.Helper()
	bin := chromium(t)
	profile := t.TempDir() // removed after the browser cleanup below (cleanups run last-in first-out)
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(profile),
	)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		// Ask the browser to close (Browser.close), then cancel the tab and
		// the allocator: acancel returns once the process has been reaped.
		cctx, ccancel := context.WithTimeout(bctx, 10*time.Second)
		_ = chromedp.Cancel(cctx)
		ccancel()
		bcancel()
		acancel()
		cancel()
		checkNoChromium(t, profile)
	})
	// Start the browser now, so that a browser that cannot start is
	// reported as such and not as a failed page action.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	return &tab{t: t, ctx: bctx}
}

// checkNoChromium fails the test if a process started with the profile
// directory is still running (Linux: read from /proc), and kills it.
func checkNoChromium(t *testing.T, profile string) {
	t.Helper()
	want := []byte("--user-data-dir=" + profile)
	find := func() []int {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return nil
		}
		var pids []int
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err != nil {
				continue
			}
			for _, arg := range bytes.Split(cmdline, []byte{0}) {
				if bytes.Equal(arg, want) {
					pids = append(pids, pid)
					break
				}
			}
		}
		return pids
	}
	// Chromium's helper processes notice their parent's exit on their own;
	// give them a moment.
	deadline := time.Now().Add(3 * time.Second)
	pids := find()
	for len(pids) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		pids = find()
	}
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
	if len(pids) > 0 {
		t.Errorf("chromium processes left running after the test: %v", pids)
	}
}

// do runs chromedp actions in the tab and fails the test on an error.
func (b *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v%s", what, err, b.page())
	}
}

// navigate loads url (a fragment change of the same page is a same-document
// navigation, which chromedp also waits for).
func (b *tab) navigate(url string) {
	b.t.Helper()
	b.do("navigate to "+url, chromedp.Navigate(url))
}

// eval evaluates a script in the page and returns its value.
func eval[T any](b *tab, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("script %q: %v%s", expr, err, b.page())
	}
	return v
}

// waitFor polls a JavaScript expression until it is truthy; an expression
// that throws (an element not rendered yet) counts as false.
func (b *tab) waitFor(what, expr string) {
	b.t.Helper()
	pred := fmt.Sprintf(`(() => { try { return Boolean(%s); } catch (e) { return false; } })()`, expr)
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](pred,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		if errors.Is(err, chromedp.ErrPollingTimeout) {
			err = errors.New("timed out")
		}
		b.t.Fatalf("waiting for %s: %v%s", what, err, b.page())
	}
}

// html returns the serialized DOM of the page as it is now.
func (b *tab) html() string {
	b.t.Helper()
	return eval[string](b, `document.documentElement.outerHTML`)
}

// page returns the visible text of the page for a failure message, if the
// browser can still answer.
func (b *tab) page() string {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return ""
	}
	return "; page:\n" + strings.TrimSpace(text)
}
