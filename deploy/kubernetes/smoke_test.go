package kubernetes

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

const defaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// TestManifestStartsAClusterIntegration starts two real `faucet serve`
// processes with the Deployment's container args and environment (Secret
// values from a fresh database and a random token, mounts mapped to temp
// dirs, --listen moved to a free loopback port), and checks what the
// manifest promises: both become ready on the readiness path, count each
// other as cluster members, answer the liveness path, refuse the API
// without the Secret's token, and stop on SIGTERM within the pod's
// termination grace period.
func TestManifestStartsAClusterIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real faucet processes: skipped with -short")
	}
	base := connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", defaultPostgres, func(ctx context.Context, u string) error {
		db, err := sql.Open("pgx", u)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return db.PingContext(ctx)
	})
	b, err := load(".")
	if err != nil {
		t.Fatal(err)
	}
	c, err := serveContainer(b.deployment.Spec.Template.Spec.Containers)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildFaucet(t)
	historyURL := freshDatabase(t, base)
	token := randomHex(t)
	secretValues := map[string]string{"history-url": historyURL, "auth-token": token}

	type proc struct {
		cmd    *exec.Cmd
		base   string
		exited chan struct{}
	}
	var procs []*proc
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		args := append([]string(nil), c.Args...)
		for j, a := range args {
			if strings.HasPrefix(a, "--listen") {
				args[j] = "--listen=127.0.0.1:0"
			}
		}
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		for _, e := range c.Env {
			v := e.Value
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				var ok bool
				if v, ok = secretValues[e.ValueFrom.SecretKeyRef.Key]; !ok {
					t.Fatalf("env %s: no test value for Secret key %q", e.Name, e.ValueFrom.SecretKeyRef.Key)
				}
			}
			for _, m := range c.VolumeMounts {
				if v == m.MountPath || strings.HasPrefix(v, m.MountPath+"/") {
					v = filepath.Join(dir, m.Name) + strings.TrimPrefix(v, m.MountPath)
				}
			}
			env = append(env, e.Name+"="+v)
		}
		for _, m := range c.VolumeMounts {
			if err := os.MkdirAll(filepath.Join(dir, m.Name), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdout = dir, env, io.Discard
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, exited: make(chan struct{})}
		procs = append(procs, p)
		t.Cleanup(func() {
			select {
			case <-p.exited:
			default:
				_ = cmd.Process.Kill()
				<-p.exited
			}
		})
		listening := make(chan string, 1)
		var logMu sync.Mutex
		var logHead []string
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				line := sc.Text()
				logMu.Lock()
				if len(logHead) < 50 {
					logHead = append(logHead, line)
				}
				logMu.Unlock()
				if rest, ok := strings.CutPrefix(line, "faucet serve: listening on "); ok {
					listening <- strings.Fields(rest)[0]
				}
			}
			_ = cmd.Wait()
			close(p.exited)
		}()
		select {
		case addr := <-listening:
			p.base = "http://" + strings.TrimPrefix(addr, "http://")
		case <-p.exited:
			logMu.Lock()
			defer logMu.Unlock()
			t.Fatalf("replica %d exited before listening:\n%s", i, strings.Join(logHead, "\n"))
		case <-time.After(60 * time.Second):
			t.Fatalf("replica %d not listening after 60s", i)
		}
	}

	hc := &http.Client{Timeout: 10 * time.Second}
	get := func(u, tok string) (int, []byte) {
		req, err := http.NewRequest("GET", u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := hc.Do(req)
		if err != nil {
			return 0, []byte(err.Error())
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, body
	}
	ready, live := c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path
	for i, p := range procs {
		deadline := time.Now().Add(60 * time.Second)
		for {
			code, body := get(p.base+ready, "")
			var r struct {
				Cluster struct {
					Enabled   bool `json:"enabled"`
					Instances int  `json:"instances"`
				} `json:"cluster"`
			}
			if code == http.StatusOK && json.Unmarshal(body, &r) == nil && r.Cluster.Enabled && r.Cluster.Instances == len(procs) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d: %s never showed a ready %d-member cluster; last %d %s", i, ready, len(procs), code, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if code, body := get(p.base+live, ""); code != http.StatusOK {
			t.Fatalf("replica %d: %s answered %d %s", i, live, code, body)
		}
		if code, _ := get(p.base+"/v1/cluster", ""); code != http.StatusUnauthorized {
			t.Fatalf("replica %d: /v1/cluster without a token answered %d, want 401", i, code)
		}
		if code, body := get(p.base+"/v1/cluster", token); code != http.StatusOK {
			t.Fatalf("replica %d: /v1/cluster with the Secret's token answered %d %s", i, code, body)
		}
	}

	grace := time.Duration(*b.deployment.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
	for i, p := range procs {
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.exited:
			if code := p.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("replica %d exited %d after SIGTERM, want 0", i, code)
			}
		case <-time.After(grace):
			t.Fatalf("replica %d still running %v after SIGTERM (terminationGracePeriodSeconds)", i, grace)
		}
	}
}

// buildFaucet builds the binary of this module into a temp dir.
func buildFaucet(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "faucet")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/faucet")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build faucet: %v\n%s", err, out)
	}
	return bin
}

// freshDatabase creates a database for this test and drops it afterwards.
func freshDatabase(t *testing.T, base string) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("faucet_deploy_k8s_%d", os.Getpid())
	if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
