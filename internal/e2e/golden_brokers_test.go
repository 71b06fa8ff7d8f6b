package e2e

import (
	"bufio"
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/faucet-hq/faucet/connector/connectortest"
)

// The broker services a case may declare besides its databases, and the
// environment they hand the steps (see the package comment).
const (
	redisService = "redis"
	natsService  = "nats"
	kafkaService = "kafka"
	s3Service    = "s3"
	httpService  = "http"

	defaultRedisURL = "redis://127.0.0.1:6379/0"
	defaultNATSURL  = "nats://127.0.0.1:4222"

	// goldenBucket is the bucket created in each case's own S3 server.
	goldenBucket = "golden"
)

// isBrokerService reports whether s is one of the services
// setUpBrokers provides.
func isBrokerService(s string) bool {
	switch s {
	case redisService, natsService, kafkaService, s3Service, httpService:
		return true
	}
	return false
}

// caseBrokers holds the brokers of one case: shared Redis and NATS
// servers (under the case's prefix) and in-process Kafka, S3 and HTTP
// servers of its own.
type caseBrokers struct {
	prefix   string
	redisURL string
	rdb      *redis.Client
	natsURL  string
	js       jetstream.JetStream
	kafka    string
	kcl      *kgo.Client
	s3URL    string
	s3       *s3mem.Backend
	api      *goldenAPI
}

// brokerPrefix is fg_<case>_<pid>: letters, digits and _ only, so that it
// is a Redis key prefix, a NATS subject token and a JetStream stream name.
func brokerPrefix(caseName string, pid int) string {
	return "fg_" + strings.TrimPrefix(databaseName(caseName, pid), "faucet_golden_")
}

// setUpBrokers starts or connects to every broker service the case
// declares and registers their cleanup. work is the case copy, whose
// api/ folder the http service serves.
func setUpBrokers(t *testing.T, work, caseName string, services []string) *caseBrokers {
	t.Helper()
	b := &caseBrokers{prefix: brokerPrefix(caseName, os.Getpid())}
	for _, s := range services {
		switch s {
		case redisService:
			b.setUpRedis(t)
		case natsService:
			b.setUpNATS(t)
		case kafkaService:
			b.setUpKafka(t)
		case s3Service:
			b.setUpS3(t)
		case httpService:
			b.api = newGoldenAPI(t, filepath.Join(work, "api"))
		}
	}
	return b
}

// env is the environment the steps see.
func (b *caseBrokers) env() []string {
	out := []string{"FAUCET_GOLDEN_PREFIX=" + b.prefix}
	if b.redisURL != "" {
		out = append(out, "FAUCET_GOLDEN_REDIS_URL="+b.redisURL)
	}
	if b.natsURL != "" {
		out = append(out, "FAUCET_GOLDEN_NATS="+b.natsURL)
	}
	if b.kafka != "" {
		out = append(out, "FAUCET_GOLDEN_KAFKA="+b.kafka)
	}
	if b.s3URL != "" {
		out = append(out, "FAUCET_GOLDEN_S3="+b.s3URL, "FAUCET_GOLDEN_S3_BUCKET="+goldenBucket)
	}
	if b.api != nil {
		out = append(out, "FAUCET_GOLDEN_HTTP="+b.api.url)
	}
	return out
}

// expand replaces {prefix} in a step's names with the case's prefix.
func (b *caseBrokers) expand(s string) string {
	return strings.ReplaceAll(s, "{prefix}", b.prefix)
}

func (b *caseBrokers) setUpRedis(t *testing.T) {
	t.Helper()
	b.redisURL = connectortest.ServiceURL(t, "FAUCET_TEST_REDIS_URL", defaultRedisURL, func(ctx context.Context, u string) error {
		opt, err := redis.ParseURL(u)
		if err != nil {
			return err
		}
		c := redis.NewClient(opt)
		defer c.Close()
		return c.Ping(ctx).Err()
	})
	opt, err := redis.ParseURL(b.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	b.rdb = redis.NewClient(opt)
	b.deleteRedisKeys(t) // left over from a crashed run of this pid
	t.Cleanup(func() {
		b.deleteRedisKeys(t)
		b.rdb.Close()
	})
}

// deleteRedisKeys deletes the keys <prefix>:*.
func (b *caseBrokers) deleteRedisKeys(t *testing.T) {
	ctx := context.Background()
	iter := b.rdb.Scan(ctx, 0, b.prefix+":*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Errorf("redis: scan %s:*: %v", b.prefix, err)
		return
	}
	if len(keys) > 0 {
		if err := b.rdb.Del(ctx, keys...).Err(); err != nil {
			t.Errorf("redis: delete %s:*: %v", b.prefix, err)
		}
	}
}

func (b *caseBrokers) setUpNATS(t *testing.T) {
	t.Helper()
	b.natsURL = connectortest.ServiceURL(t, "FAUCET_TEST_NATS_URL", defaultNATSURL, func(ctx context.Context, u string) error {
		nc, err := nats.Connect(u, nats.Timeout(2*time.Second))
		if err != nil {
			return err
		}
		nc.Close()
		return nil
	})
	nc, err := nats.Connect(b.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	b.js = js
	ctx := context.Background()
	_ = js.DeleteStream(ctx, b.prefix) // left over from a crashed run of this pid
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: b.prefix, Subjects: []string{b.prefix + ".>"}}); err != nil {
		t.Fatalf("nats: create stream %s: %v", b.prefix, err)
	}
	t.Cleanup(func() {
		if err := js.DeleteStream(context.Background(), b.prefix); err != nil {
			t.Errorf("nats: delete stream %s: %v", b.prefix, err)
		}
		nc.Close()
	})
}

func (b *caseBrokers) setUpKafka(t *testing.T) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	b.kafka = strings.Join(c.ListenAddrs(), ",")
	b.kcl, err = kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.kcl.Close)
}

func (b *caseBrokers) setUpS3(t *testing.T) {
	t.Helper()
	b.s3 = s3mem.New()
	if err := b.s3.CreateBucket(goldenBucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(b.s3, gofakes3.WithAutoBucket(false), gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	b.s3URL = srv.URL
}

// need fails the step when the case did not declare service s.
func (b *caseBrokers) need(t *testing.T, step int, kind, s string, ok bool) {
	t.Helper()
	if !ok {
		t.Fatalf("step %d: %s needs services: [%s] in case.yaml", step, kind, s)
	}
}

// readLines returns the non-empty lines of a file of the case copy.
func readLines(t *testing.T, step int, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// readFile reads a file of the case copy for step.
func readFile(t *testing.T, step int, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
	return data
}
