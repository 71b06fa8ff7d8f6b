package kafka

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connector/connectortest"
)

// TestSourcePartitionsMoveWhileConsuming reads a 4-partition topic of a
// 3-broker cluster while kfake moves the partitions' leadership around
// (MoveTopicPartition: "simulates the rebalancing of a partition to an
// alternative broker"), adds a broker (which reshuffles every leader) and
// removes one, while messages keep arriving. The source joins no consumer
// group, so this is the rebalance it lives through: every message must
// arrive exactly once, in order within its partition, and the last
// bookmark must hold every partition's end.
//
// After each change every partition gets a message, as a topic being
// written does. That also matters to kfake: asked for the end of an
// epoch no later batch was written in, its OffsetForLeaderEpoch answers
// "unknown" (-1) where Kafka answers the log end, and franz-go then
// reports lost records. A consumer that checks its position between a
// change and that write still meets it (a plain franz-go consumer does
// too, about one run in thirty): the source then fails the run with that
// error, and the test does what a user would, running again from the last
// bookmark. Any other error fails the test.
func TestSourcePartitionsMoveWhileConsuming(t *testing.T) {
	const perPartition, parts, nchanges = 2500, 4, 5
	const total = parts*perPartition + parts*nchanges
	k := startCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(parts, "t"))
	c := k.c
	for p := range int32(parts) {
		k.ids(t, "t", p, int(p)*perPartition+1, int(p+1)*perPartition)
	}
	next := parts*perPartition + 1
	write := func() { // one more message on every partition
		for p := range int32(parts) {
			k.ids(t, "t", p, next, next)
			next++
		}
	}

	move := func() { // every partition to the next broker
		for p := range int32(parts) {
			if err := c.MoveTopicPartition("t", p, (c.LeaderFor("t", p)+1)%3); err != nil {
				t.Fatal(err)
			}
		}
		write()
	}
	changes := map[int]func(){
		5: move, 15: move, 25: move,
		35: func() {
			if _, _, err := c.AddNode(-1, 0); err != nil {
				t.Fatal(err)
			}
			write()
		},
		50: func() {
			// Take a broker away: its partitions are led elsewhere.
			if err := c.RemoveNode(c.LeaderFor("t", 0)); err != nil {
				t.Fatal(err)
			}
			write()
		},
	}
	seen := map[int64]bool{}
	last := map[int64]int64{} // partition -> last offset read
	var bookmark *connector.Value
	page := 0
	// A run that fails is run again from its last bookmark, as the engine
	// would on the next faucet run; every run must end one way or the
	// other, and together they must read every message once.
	for runs := 1; len(seen) < total; runs++ {
		if runs > 5 {
			t.Fatalf("%d runs and still %d of %d messages", runs-1, len(seen), total)
		}
		// Small fetches, so a run takes many of them and spans the changes.
		src := openSource(t, k.source(t, "topics", []any{"t"}, "auto_offset_reset", "earliest",
			"max_messages", total-len(seen), "batch_size", 100,
			"fetch_max_bytes", 4096, "fetch_max_partition_bytes", 2048), bookmark)
		if err := readMoving(t, src, &page, changes, func(p *connector.Page) {
			ids := valueIDs(t, p.Records)
			for i, r := range p.Records {
				part, off := r.Fields[3].Value.AsInt(), r.Fields[4].Value.AsInt()
				if seen[ids[i]] {
					t.Fatalf("id %d read twice", ids[i])
				}
				seen[ids[i]] = true
				if prev, ok := last[part]; ok && off != prev+1 {
					t.Fatalf("partition %d: offset %d after %d", part, off, prev)
				}
				last[part] = off
			}
			bookmark = p.Bookmark
		}); err != nil {
			if !strings.Contains(err.Error(), "lost records") {
				t.Fatalf("run %d: %v", runs, err)
			}
			t.Logf("run %d failed after %d messages, run again from its bookmark: %v", runs, len(seen), err)
		}
		_ = src.Close()
	}
	if len(seen) != total {
		t.Fatalf("read %d distinct messages, want %d", len(seen), total)
	}
	want := `{"partition_offsets":[{"topic":"t","partition":0,"offset":2505},{"topic":"t","partition":1,"offset":2505},{"topic":"t","partition":2,"offset":2505},{"topic":"t","partition":3,"offset":2505}]}`
	if bookmark == nil || string(connector.AppendJSON(nil, *bookmark)) != want {
		t.Fatalf("last bookmark = %v, want %s", bookmark, want)
	}
}

// readMoving reads src to its end, making each cluster change before the
// page it is scheduled for (page counts over all runs; a change is made
// once).
func readMoving(t *testing.T, src connector.Source, page *int, changes map[int]func(), got func(*connector.Page)) error {
	for ; ; *page++ {
		if change, ok := changes[*page]; ok {
			delete(changes, *page)
			change()
		}
		p, err := connectortest.NextPage(t.Context(), src)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		got(p)
		p.Done()
	}
}
