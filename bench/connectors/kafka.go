package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafkaTopic is the topic of both Kafka cases, with kafkaPartitions
// partitions.
const (
	kafkaTopic      = "bench"
	kafkaPartitions = 4
)

// fakeKafka is kfake (the Kafka protocol over an in-memory log) in this
// process, one broker on a loopback port.
type fakeKafka struct {
	c       *kfake.Cluster
	brokers string
}

func startKafka() (*fakeKafka, error) {
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(kafkaPartitions, kafkaTopic)}
	rtt, err := kafkaRTT()
	if err != nil {
		return nil, fmt.Errorf("BENCH_KAFKA_RTT: %w", err)
	}
	if rtt > 0 {
		opts = append(opts, kfake.ListenFn(func(network, addr string) (net.Listener, error) {
			l, err := net.Listen(network, addr)
			if err != nil {
				return nil, err
			}
			return delayListener{l, rtt}, nil
		}))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, err
	}
	return &fakeKafka{c: c, brokers: strings.Join(c.ListenAddrs(), ",")}, nil
}

func (k *fakeKafka) close() {
	if k != nil {
		k.c.Close()
	}
}

// endOffsets sums the topic's end offsets: the messages it holds.
func (k *fakeKafka) endOffsets() (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrListOffsetsRequest()
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = kafkaTopic
	for p := range int32(kafkaPartitions) {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = p
		rp.Timestamp = -1 // latest
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return 0, fmt.Errorf("partition %d: %w", p.Partition, err)
			}
			n += p.Offset
		}
	}
	return n, nil
}

// load produces every line of the JSON Lines file as one message (no key),
// the input of the consume case.
func (k *fakeKafka) load(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.brokers), kgo.DefaultProduceTopic(kafkaTopic),
		kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(100000))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var n int64
	var mu sync.Mutex
	var perr error
	ctx := context.Background()
	for sc.Scan() {
		v := append([]byte(nil), sc.Bytes()...)
		cl.Produce(ctx, &kgo.Record{Value: v}, func(_ *kgo.Record, err error) {
			mu.Lock()
			if err != nil && perr == nil {
				perr = err
			}
			mu.Unlock()
		})
		n++
	}
	if err := cl.Flush(ctx); err != nil {
		return n, err
	}
	if perr != nil {
		return n, fmt.Errorf("produce: %w", perr)
	}
	return n, sc.Err()
}
