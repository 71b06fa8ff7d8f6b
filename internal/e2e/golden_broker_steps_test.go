package e2e

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// brokerSteps are the step kinds that seed or check a broker service;
// goldenStep embeds them. A step sets at most one of them and nothing
// else.
type brokerSteps struct {
	// redis runs commands on the case's Redis, each a list of words;
	// {prefix} in a word is the case's prefix (keys must start with
	// "{prefix}:" to be deleted after the case).
	Redis *struct {
		Cmds [][]string `yaml:"cmds"`
	} `yaml:"redis"`
	// kafka_produce sends each non-empty line of file as one message
	// value to topic (of the case's own cluster), in order, to
	// partition 0.
	KafkaProduce *struct {
		Topic string `yaml:"topic"`
		File  string `yaml:"file"`
	} `yaml:"kafka_produce"`
	// kafka_topic creates topic with partitions partitions (default 1).
	KafkaTopic *struct {
		Topic      string `yaml:"topic"`
		Partitions int32  `yaml:"partitions"`
	} `yaml:"kafka_topic"`
	// nats_publish publishes each non-empty line of file to subject
	// <prefix>.<subject> of the case's JetStream stream <prefix>.
	NATSPublish *struct {
		Subject string `yaml:"subject"`
		File    string `yaml:"file"`
	} `yaml:"nats_publish"`
	// s3_put stores file as key of the case's bucket.
	S3Put *struct {
		Key  string `yaml:"key"`
		File string `yaml:"file"`
	} `yaml:"s3_put"`
	// s3_get compares object key with the golden file want; s3_list
	// compares the bucket's keys, one per line in order, with want.
	S3Get *struct {
		Key  string `yaml:"key"`
		Want string `yaml:"want"`
	} `yaml:"s3_get"`
	S3List *struct {
		Want string `yaml:"want"`
	} `yaml:"s3_list"`
	// received compares the bodies the http service accepted so far, one
	// compact JSON per line in arrival order, with want.
	Received *struct {
		Want string `yaml:"want"`
	} `yaml:"received"`
}

// count is how many broker step kinds are set.
func (s brokerSteps) count() int {
	n := 0
	for _, set := range []bool{s.Redis != nil, s.KafkaProduce != nil, s.KafkaTopic != nil, s.NATSPublish != nil,
		s.S3Put != nil, s.S3Get != nil, s.S3List != nil, s.Received != nil} {
		if set {
			n++
		}
	}
	return n
}

// runBrokerStep runs the broker step st (number step) against b; work is
// the case copy, src the case directory (for golden files).
func runBrokerStep(t *testing.T, step int, b *caseBrokers, work, src string, st brokerSteps) {
	t.Helper()
	ctx := context.Background()
	where := func() string { return "step " + itoa(step) }
	switch {
	case st.Redis != nil:
		b.need(t, step, "redis", redisService, b.rdb != nil)
		for _, words := range st.Redis.Cmds {
			args := make([]any, len(words))
			for i, w := range words {
				args[i] = b.expand(w)
			}
			if err := b.rdb.Do(ctx, args...).Err(); err != nil {
				t.Fatalf("step %d: redis %v: %v", step, args, err)
			}
		}
	case st.KafkaProduce != nil:
		b.need(t, step, "kafka_produce", kafkaService, b.kcl != nil)
		var recs []*kgo.Record
		for _, line := range readLines(t, step, filepath.Join(work, st.KafkaProduce.File)) {
			recs = append(recs, &kgo.Record{Topic: b.expand(st.KafkaProduce.Topic), Value: line})
		}
		if err := b.kcl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatalf("step %d: kafka_produce %s: %v", step, st.KafkaProduce.Topic, err)
		}
	case st.KafkaTopic != nil:
		b.need(t, step, "kafka_topic", kafkaService, b.kcl != nil)
		b.createTopic(t, step, b.expand(st.KafkaTopic.Topic), st.KafkaTopic.Partitions)
	case st.NATSPublish != nil:
		b.need(t, step, "nats_publish", natsService, b.js != nil)
		subject := b.prefix + "." + b.expand(st.NATSPublish.Subject)
		for _, line := range readLines(t, step, filepath.Join(work, st.NATSPublish.File)) {
			if _, err := b.js.Publish(ctx, subject, line); err != nil {
				t.Fatalf("step %d: nats_publish %s: %v", step, subject, err)
			}
		}
	case st.S3Put != nil:
		b.need(t, step, "s3_put", s3Service, b.s3 != nil)
		data := readFile(t, step, filepath.Join(work, st.S3Put.File))
		if _, err := b.s3.PutObject(goldenBucket, b.expand(st.S3Put.Key), map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
			t.Fatalf("step %d: s3_put %s: %v", step, st.S3Put.Key, err)
		}
	case st.S3Get != nil:
		b.need(t, step, "s3_get", s3Service, b.s3 != nil)
		key := b.expand(st.S3Get.Key)
		obj, err := b.s3.GetObject(goldenBucket, key, nil)
		if err != nil {
			t.Fatalf("step %d: s3_get %s: %v (keys: %s)", step, key, err, strings.Join(b.s3Keys(t), ", "))
		}
		got, err := io.ReadAll(obj.Contents)
		obj.Contents.Close()
		if err != nil {
			t.Fatalf("step %d: s3_get %s: %v", step, key, err)
		}
		compareFile(t, where, filepath.Join(src, st.S3Get.Want), got)
	case st.S3List != nil:
		b.need(t, step, "s3_list", s3Service, b.s3 != nil)
		var got []byte
		for _, k := range b.s3Keys(t) {
			got = append(got, k+"\n"...)
		}
		compareFile(t, where, filepath.Join(src, st.S3List.Want), got)
	case st.Received != nil:
		b.need(t, step, "received", httpService, b.api != nil)
		compareFile(t, where, filepath.Join(src, st.Received.Want), b.api.received())
	}
}

// s3Keys lists the keys of the case's bucket in order.
func (b *caseBrokers) s3Keys(t *testing.T) []string {
	t.Helper()
	list, err := b.s3.ListBucket(goldenBucket, nil, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatalf("s3: list %s: %v", goldenBucket, err)
	}
	var keys []string
	for _, c := range list.Contents {
		keys = append(keys, c.Key)
	}
	return keys
}

// createTopic creates a topic on the case's Kafka.
func (b *caseBrokers) createTopic(t *testing.T, step int, name string, partitions int32) {
	t.Helper()
	if partitions == 0 {
		partitions = 1
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions, 1
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), b.kcl)
	if err == nil && len(resp.Topics) == 1 {
		err = kerr.ErrorForCode(resp.Topics[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("step %d: kafka_topic %s: %v", step, name, err)
	}
}
