package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// browser drives headless Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4), enough to
// navigate and evaluate scripts without a websocket client.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File // our write end (chromium's fd 3)
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	session string
	done    chan struct{}
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func newBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	cmdR, cmdW, err := os.Pipe() // we write commands, chromium reads fd 3
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe() // chromium writes fd 4, we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	resW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, waiting: map[int]chan cdpReply{}, done: make(chan struct{})}
	go b.read(resR)
	t.Cleanup(b.close)
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	return b
}

func (b *browser) read(r *os.File) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue // an event
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(data, 0)); err != nil {
		b.t.Fatalf("cdp write: %v", err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			b.t.Fatalf("cdp %s: %s", method, r.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				b.t.Fatalf("cdp %s result: %v", method, err)
			}
		}
	case <-time.After(30 * time.Second):
		b.t.Fatalf("cdp %s: no answer", method)
	}
}

func (b *browser) navigate(url string) {
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// eval evaluates a script in the page (promises awaited) and decodes its
// JSON-able value into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	if err := b.tryEval(expr, out); err != nil {
		b.t.Fatal(err)
	}
}

// tryEval is eval returning a script exception as an error.
func (b *browser) tryEval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res)
	if res.ExceptionDetails != nil {
		return fmt.Errorf("script %q: %s %s", expr, res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			return fmt.Errorf("script %q value %s: %v", expr, res.Result.Value, err)
		}
	}
	return nil
}

// waitFor polls a boolean expression until it is true.
func (b *browser) waitFor(what, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var ok bool
		if err := b.tryEval(fmt.Sprintf("Boolean(%s)", expr), &ok); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	var body string
	_ = b.tryEval("document.body.innerText", &body)
	b.t.Fatalf("waiting for %s: timed out; page:\n%s", what, body)
}

func (b *browser) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, _ := json.Marshal(map[string]any{"id": 1 << 30, "method": "Browser.close"})
	_, _ = b.in.Write(append(msg, 0))
	exited := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-ctx.Done():
		_ = b.cmd.Process.Kill()
		<-exited
	}
	b.in.Close()
	<-b.done
}
