package kafka

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/faucet-hq/faucet/connector"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// tp names one partition of a topic.
type tp struct {
	topic     string
	partition int32
}

func (t tp) String() string { return fmt.Sprintf("%s/%d", t.topic, t.partition) }

// positions maps each partition to the offset of the next message to read.
type positions map[tp]int64

// bookmark renders p as the 1.x bookmark: {"partition_offsets": [{topic,
// partition, offset}]} sorted by topic, then partition.
func (p positions) bookmark() connector.Value {
	keys := slices.SortedFunc(maps.Keys(p), func(a, b tp) int {
		return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	list := make([]connector.Value, len(keys))
	for i, k := range keys {
		list[i] = connector.Object(connector.Record{Fields: []connector.Field{
			{Key: "topic", Value: connector.String(k.topic)},
			{Key: "partition", Value: connector.Int(int64(k.partition))},
			{Key: "offset", Value: connector.Int(p[k])},
		}})
	}
	return connector.Object(connector.Record{Fields: []connector.Field{
		{Key: "partition_offsets", Value: connector.Array(list)},
	}})
}

// parseBookmark reads a bookmark this source (or faucet-cli 1.x) saved.
func parseBookmark(v connector.Value) (positions, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("kafka: start bookmark %s is not a kafka bookmark: %s", v, fmt.Sprintf(format, args...))
	}
	list, ok := v.AsObject().Get("partition_offsets")
	if v.Kind() != connector.KindObject || !ok || list.Kind() != connector.KindArray {
		return nil, bad("want {\"partition_offsets\": [...]}")
	}
	out := positions{}
	for i, e := range list.AsArray() {
		o := e.AsObject()
		topic, _ := o.Get("topic")
		part, _ := o.Get("partition")
		off, _ := o.Get("offset")
		if e.Kind() != connector.KindObject || topic.Kind() != connector.KindString ||
			part.Kind() != connector.KindInt || off.Kind() != connector.KindInt ||
			part.AsInt() < 0 || part.AsInt() > 1<<31-1 || off.AsInt() < 0 {
			return nil, bad("entry %d wants {topic: string, partition: int, offset: int >= 0}", i)
		}
		out[tp{topic.AsString(), int32(part.AsInt())}] = off.AsInt()
	}
	return out, nil
}

// startPositions decides where each partition of parts starts: at its
// bookmark offset, else at auto_offset_reset on a first run (no bookmark),
// else (a partition created since the bookmark was saved) at earliest, so
// that nothing written to it is skipped. A bookmark offset below the
// partition's earliest offset (retention deleted those messages) moves up
// to it with a warning; one beyond the partition's end is an error.
func (s *Source) startPositions(ctx context.Context, parts map[string][]int32, saved positions) (positions, error) {
	earliest, err := listOffsets(ctx, s.cl, parts, -2)
	if err != nil {
		return nil, err
	}
	latest, err := listOffsets(ctx, s.cl, parts, -1)
	if err != nil {
		return nil, err
	}
	out := positions{}
	for t, lo := range earliest {
		hi := latest[t]
		off, ok := saved[t]
		switch {
		case !ok && saved == nil && s.cfg.AutoOffsetReset == "latest":
			off = hi
		case !ok:
			off = lo
		case off < lo:
			s.log.Warn("kafka: bookmark offset was deleted by retention; resuming at the partition's earliest offset",
				"topic", t.topic, "partition", t.partition, "bookmark", off, "earliest", lo, "skipped", lo-off)
			off = lo
		case off > hi:
			return nil, fmt.Errorf("kafka: bookmark offset %d of topic %q partition %d is beyond its end (%d): was the topic recreated? Delete the row's state to start over", off, t.topic, t.partition, hi)
		}
		out[t] = off
	}
	return out, nil
}

// listOffsets asks for the earliest (-2) or latest (-1, last stable under
// read_committed) offset of every partition.
func listOffsets(ctx context.Context, cl *kgo.Client, parts map[string][]int32, at int64) (positions, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	req.IsolationLevel = 1 // read_committed, as the consumer reads
	for topic, ps := range parts {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = topic
		for _, p := range ps {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition = p
			rp.CurrentLeaderEpoch = -1
			rp.Timestamp = at
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("kafka: list offsets: %w", err)
	}
	out := positions{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return nil, fmt.Errorf("kafka: list offsets of topic %q partition %d: %w", t.Topic, p.Partition, err)
			}
			out[tp{t.Topic, p.Partition}] = p.Offset
		}
	}
	for topic, ps := range parts {
		for _, p := range ps {
			if _, ok := out[tp{topic, p}]; !ok {
				return nil, fmt.Errorf("kafka: list offsets: no answer for topic %q partition %d", topic, p)
			}
		}
	}
	return out, nil
}
