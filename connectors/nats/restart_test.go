package nats

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/internal/engine"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// privateServer is a nats-server with JetStream of the test's own, on a
// free port with its store in a temp dir, so it can be killed and
// restarted without touching the shared server.
type privateServer struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	cmd  *exec.Cmd
}

func startPrivateServer(t testing.TB) *privateServer {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nats-server"); serr != nil {
			msg := "nats-server binary not found (the restart fault test starts a private one)"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		bin = "/usr/sbin/nats-server"
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &privateServer{t: t, bin: bin, port: port, dir: t.TempDir()}
	s.start()
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			t.Logf("private nats-server log:\n%s", log)
		}
	})
	return s
}

func (s *privateServer) url() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// start runs the server and waits until its JetStream answers.
func (s *privateServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.dir,
		"-l", filepath.Join(s.dir, "server.log"))
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := s.ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("private nats-server on port %d not ready: %v", s.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *privateServer) ready() error {
	nc, err := natsgo.Connect(s.url(), natsgo.Timeout(time.Second), natsgo.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// kill ends the server with SIGKILL: no shutdown, no flush.
func (s *privateServer) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// gate is a transform that holds record `at` until released, so the test
// acts at a known point of the run.
type gate struct {
	at      int64
	reached chan struct{}
	release chan struct{}
	once    sync.Once
}

func newGate(at int64) *gate {
	return &gate{at: at, reached: make(chan struct{}), release: make(chan struct{})}
}

func (g *gate) Apply(r *connector.Record) (bool, error) {
	if v, _ := r.Get("id"); v.AsInt() == g.at {
		g.once.Do(func() { close(g.reached) })
		<-g.release
	}
	return true, nil
}

// restartFixture fills a durable stream on a private server.
func restartFixture(t *testing.T, n int) (*privateServer, *env) {
	if testing.Short() {
		t.Skip("starts and kills a private nats-server")
	}
	srv := startPrivateServer(t)
	e := (&env{}).connect(t, srv.url()).withStream(t, true)
	e.ids(t, e.subject+".a", 1, n)
	return srv, e
}

// TestJetStreamServerKilledAndRestartedMidRun kills -9 the server while
// pages are in flight (written, being written, read ahead, not yet
// acknowledged), restarts it, and lets the run go on: it must complete
// with every message exactly once in the file, or fail with a clear error
// and leave nothing lost for the rerun.
func TestJetStreamServerKilledAndRestartedMidRun(t *testing.T) {
	const n = 20_000
	srv, e := restartFixture(t, n)
	c := e.jsSource("restart", "batch_size", 200, "idle_timeout_secs", 6, "ack_wait_secs", 2, "reconnect_timeout_secs", 30)
	out := filepath.Join(t.TempDir(), "out.jsonl")

	g := newGate(n / 3)
	type outcome struct {
		res engine.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := run(t, c, out, func(r *engine.Row) {
			r.Transforms = []engine.Step{{Name: "gate", Transform: g}}
			// Commit after every page, so that at the kill some pages are
			// acknowledged, one is being written and others are read ahead.
			r.CheckpointEvery = -1
		})
		done <- outcome{res, err}
	}()
	select {
	case <-g.reached:
	case o := <-done:
		t.Fatalf("the run ended before the gate: %+v %v", o.res, o.err)
	}
	committedBefore := e.consumerFloor(t, "restart")
	if committedBefore == 0 || committedBefore >= n/3 {
		t.Fatalf("ack floor %d at the kill, want some but not all pages before record %d acknowledged", committedBefore, n/3)
	}
	srv.kill()
	srv.start()
	close(g.release)
	first := <-done
	t.Logf("first run: %+v, err %v; ack floor at the kill %d", first.res, first.err, committedBefore)

	ids := fileIDs(t, out)
	missing, dups := tally(ids, n)
	if first.err == nil {
		if len(missing)+len(dups) > 0 {
			t.Fatalf("the run completed but the file is wrong: %d lines, missing %v, duplicated %v", len(ids), head(missing), head(dups))
		}
	} else {
		if !strings.Contains(first.err.Error(), "nats:") {
			t.Fatalf("the run failed without a clear nats error: %v", first.err)
		}
		res, err := run(t, c, out)
		if err != nil {
			t.Fatalf("rerun: %v", err)
		}
		t.Logf("rerun: %+v", res)
		ids = fileIDs(t, out)
		if missing, _ := tally(ids, n); len(missing) > 0 {
			t.Fatalf("after the rerun %d messages are missing: %v", len(missing), head(missing))
		}
	}
	fresh(t, srv, e).waitAllAcked(t, "restart", n)
}

// TestJetStreamServerDownFailsClearlyThenRerunCompletes keeps the killed
// server down past reconnect_timeout_secs: the run must fail naming the
// lost connection, and a rerun once the server is back must lose nothing.
func TestJetStreamServerDownFailsClearlyThenRerunCompletes(t *testing.T) {
	const n = 5_000
	srv, e := restartFixture(t, n)
	c := e.jsSource("down", "batch_size", 100, "idle_timeout_secs", 6, "ack_wait_secs", 2, "reconnect_timeout_secs", 1)
	out := filepath.Join(t.TempDir(), "out.jsonl")

	g := newGate(n / 2)
	done := make(chan error, 1)
	go func() {
		_, err := run(t, c, out, func(r *engine.Row) {
			r.Transforms = []engine.Step{{Name: "gate", Transform: g}}
		})
		done <- err
	}()
	<-g.reached
	srv.kill()
	close(g.release)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "nats: connection to "+srv.url()+" lost and not re-established within reconnect_timeout_secs") {
		t.Fatalf("err = %v, want the lost connection named", err)
	}
	srv.start()
	e = fresh(t, srv, e)
	if _, err := run(t, c, out); err != nil {
		t.Fatalf("rerun: %v", err)
	}
	ids := fileIDs(t, out)
	missing, dups := tally(ids, n)
	t.Logf("%d lines after the rerun, %d ids written twice (at-least-once: pages in the sink but not acknowledged when the server went away)", len(ids), len(dups))
	if len(missing) > 0 {
		t.Fatalf("%d messages lost: %v", len(missing), head(missing))
	}
	e.waitAllAcked(t, "down", n)
}

// fresh is e on a new connection to the restarted server.
func fresh(t testing.TB, srv *privateServer, e *env) *env {
	f := (&env{}).connect(t, srv.url())
	f.stream, f.subject = e.stream, e.subject
	return f
}

// consumerFloor is the consumer's ack floor (stream sequence).
func (e *env) consumerFloor(t testing.TB, name string) uint64 {
	return e.consumer(t, name).AckFloor.Stream
}

// waitAllAcked checks that the consumer acknowledged all n messages; its
// state may lag the last acknowledgement briefly after a restart.
func (e *env) waitAllAcked(t testing.TB, name string, n uint64) {
	t.Helper()
	var info *jetstream.ConsumerInfo
	for range 100 {
		info = e.consumer(t, name)
		if info.AckFloor.Stream == n && info.NumAckPending == 0 && info.NumPending == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("consumer %s: ack floor %d, %d pending acks, %d pending; want %d, 0, 0", name, info.AckFloor.Stream, info.NumAckPending, info.NumPending, n)
}

func head(xs []int64) string {
	if len(xs) > 10 {
		return fmt.Sprint(xs[:10]) + fmt.Sprintf("... (%d)", len(xs))
	}
	return fmt.Sprint(xs)
}
