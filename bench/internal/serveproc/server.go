package serveproc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Client is the HTTP client of the benchmarks (many connections per host).
var Client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// Do sends one request (a JSON body when body is not nil) and reads the
// whole answer.
func Do(method, u string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := Client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, data, err
}

// Server is one `faucet serve` subprocess.
type Server struct {
	Base    string // http://127.0.0.1:port, from its "listening on" line
	Log     string // its stderr, kept in a file
	cmd     *exec.Cmd
	done    chan struct{}
	stopped bool
}

// Start launches `bin serve --no-auth --no-env-file --no-ui --listen
// 127.0.0.1:0 args...` in dir (data directory dir/data-<tag>, log
// dir/serve-<tag>.log) and returns once it answers /readyz with 200. It
// is stopped by RunCleanups if the caller does not stop it first.
func Start(bin, dir, tag string, args ...string) *Server {
	s := &Server{Log: filepath.Join(dir, "serve-"+tag+".log"), done: make(chan struct{})}
	lf, err := os.Create(s.Log)
	Check(err)
	s.cmd = exec.Command(bin, append([]string{"serve", "--no-auth", "--no-env-file", "--no-ui", "--listen", "127.0.0.1:0"}, args...)...)
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "FAUCET_DATA_DIR="+filepath.Join(dir, "data-"+tag))
	s.cmd.Stdout = io.Discard
	pipe, err := s.cmd.StderrPipe()
	Check(err)
	Check(s.cmd.Start())
	AtExit(s.Stop)
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(lf, line)
			if rest, ok := strings.CutPrefix(line, "faucet serve: listening on "); ok {
				select {
				case listening <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
		_ = s.cmd.Wait()
		lf.Close()
		close(s.done)
	}()
	select {
	case addr := <-listening:
		s.Base = "http://" + strings.TrimPrefix(addr, "http://")
	case <-s.done:
		s.stopped = true
		s.Fail(errors.New("server exited before listening"))
	case <-time.After(60 * time.Second):
		s.Fail(errors.New("server not listening after 60s"))
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if code, _, err := Do("GET", s.Base+"/readyz", nil); err == nil && code == http.StatusOK {
			return s
		}
		if time.Now().After(deadline) {
			s.Fail(errors.New("server not ready after 60s"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop sends SIGTERM and waits (SIGKILL after 20 s).
func (s *Server) Stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Fail kills the server, prints the tail of its log and exits through
// Check.
func (s *Server) Fail(err error) {
	if !s.stopped {
		s.stopped = true
		_ = s.cmd.Process.Kill()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
		}
	}
	if b, _ := os.ReadFile(s.Log); len(b) > 0 {
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		fmt.Fprintf(os.Stderr, "--- server log (%s) ---\n%s\n", s.Log, b)
	}
	Check(err)
}
