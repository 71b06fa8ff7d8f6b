// Package kafka is the `kafka` source and sink, on franz-go (kgo). The
// config keys of faucet-cli 1.x keep their meaning where they exist here
// (brokers as a comma-separated list, topics, group_id,
// auto_offset_reset, max_messages, idle_timeout, batch_size,
// on_decode_error; topic {type, name | path}, key_path, partition_path,
// headers_path, acks, idempotent, compression, linger, message_timeout,
// transactional_id_prefix, commit_token_topic*). Not supported yet: auth
// (SASL/TLS), schema registry formats, key_format, extra_client_config,
// on_key_error, member-slot sharding.
//
// # Source: the bookmark is the position
//
// The source reads every partition of the configured topics itself (it
// joins no consumer group and never commits offsets to one; group_id only
// names the client). Its bookmark is faucet-cli 1.x's:
//
//	{"partition_offsets": [{"topic": "t", "partition": 0, "offset": 42}, ...]}
//
// with, for every partition of the topics, the offset of the next message
// to read, sorted by topic then partition. Every page carries the full
// bookmark, partitions that had no message included, so a partition that
// was quiet in one run keeps its position for the next.
//
// Open settles where each partition starts, before anything is read:
//
//   - a partition in the start bookmark starts at its offset. If retention
//     deleted that offset the partition starts at its earliest offset, with
//     a warning naming how many messages were lost; an offset beyond the
//     partition's end (a recreated topic) fails Open;
//   - on a first run (no bookmark) every partition starts at
//     auto_offset_reset: its end (latest, the default) or its start;
//   - a partition missing from a bookmark (created since it was saved)
//     starts at its earliest offset, so nothing written to it is skipped.
//
// Bookmark entries of topics no longer configured are dropped.
//
// Offsets are asked for explicitly (ListOffsets), so the first page's
// bookmark already holds an exact position for every partition. Messages
// are read read_committed: records of aborted transactions are never
// emitted. Because positions come only from the bookmark, a run started
// from a given bookmark emits exactly the messages after it, each
// partition in order (how partitions interleave, and so where pages are
// cut, may differ between runs). That is what delivery: exactly_once
// needs, since every page and so every commit token carries a full
// bookmark: the source implements connector.ReplayChecker and accepts.
//
// A run ends after max_messages, or after idle_timeout seconds without a
// message (at least one is required). A page is handed on when
// batch_size messages arrived or a second after its first message.
//
// Records are {key, value, topic, partition, offset, timestamp (ms),
// headers}: key as text (null when absent), value per value_format (json,
// string or base64 bytes; a tombstone is null), headers as an object (a
// repeated header becomes a list). With value_format json a value that is
// not JSON is a failed record (dead-lettered, or failing the run) or,
// with on_decode_error: skip, dropped with a warning; either way the
// bookmark moves past it.
//
// # Sink: at-least-once
//
// Each record becomes one message: its value is the record as JSON, the
// topic fixed or read from the record, key, partition and headers from
// the *_path options (a $.a.b JSONPath subset). A page's records are all
// turned into messages before any is produced, so a bad record fails its
// page before anything of it is sent. Write hands the messages to the
// producer (idempotent, acks all, by default); Flush waits for every
// acknowledgement and returns the first delivery failure, which then
// sticks: the run fails, and a rerun produces again from the last saved
// bookmark (a page can be duplicated, none is lost).
//
// # Memory
//
// franz-go's defaults let a client hold tens of MiB: fetches of up to 50
// MiB, and a producer buffer of 50,000 messages with no byte limit. The
// source asks for fetches of at most fetch_max_bytes and
// fetch_max_partition_bytes per partition (a broker still returns at
// least one batch, so a larger batch arrives whole). franz-go
// decompresses and decodes a whole fetch at once, so for compressed JSON
// it holds several times fetch_max_bytes until the fetch is polled. Left
// at 0 (the default), both follow the round trip to the brokers, the
// shortest of three small metadata requests at open (fetchsize.go): 256
// KiB and 128 KiB when it is under 5 ms (a LAN: a fetch need not carry
// much to keep up, and on the bench's loopback broker this is the same
// speed as 1 MiB at 9 MiB less), else 1 MiB and 256 KiB.
//
// A page copies the keys, values and header values of its messages while
// they are polled (pagemem.go), so no page keeps a fetched batch alive,
// and it is cut at batch_size messages or batch_bytes (default 128 KiB)
// of keys, values and header values, whichever comes first: the engine's
// four pages in flight, each also decoded and encoded, stay within a few
// MiB whatever the message size (128 KiB is some 600 messages of 200
// bytes; a Java consumer polls 500). A page's copies are reused once the
// engine has released it, and its decoded records (fields and JSON
// parser, pooled apart) once it has encoded them for a sink that writes
// only the bytes (jsonl, csv): the engine then trims the page
// (connector.Page.Trim) and the whole page's memory goes back before it
// waits for the writer.
//
// The sink bounds the producer's buffer by
// max_buffered_bytes (default 1 MiB) and max_buffered_records (default
// 10,000): Write waits while it is full. Batches are of at most
// batch_max_bytes (default 64 KiB): several of them pipeline within the
// buffer where one 1 MB batch would fill it, and the request buffers
// franz-go keeps are as small. A message larger than that (up to
// max_message_bytes, Kafka's 1,000,012 by default) would be refused by
// the producer, so the first one moves the sink, for the rest of the run,
// to a producer with batches of max_message_bytes: Write first waits for
// every message produced so far to be acknowledged, so each partition
// keeps the order of its messages (widen in sink.go). Under delivery:
// exactly_once the transactional producer uses max_message_bytes from the
// start. A page's messages and their JSON values are cut
// from one slab and one buffer per part of 256 messages, reused once every
// message of the part is acknowledged, so the sink's memory follows the
// producer's buffer instead of whole pages waiting for their slowest
// partition. Client metrics (KIP-714), which franz-go sends by default
// and compresses with buffers of several MiB, are off unless
// client_metrics is set.
//
// What is in flight is also what a high-latency link needs: franz-go
// sends the next fetch only once the buffered one is polled, and the
// producer's buffer holds every message until it is acknowledged, so a
// consumer moves at most about fetch_max_bytes and a producer
// max_buffered_bytes per round trip. bench/connectors measures both at a
// 20 ms round trip (BENCH_KAFKA_RTT): the consumer's near fetch sizes
// take 2.7 times as long there, which is why they are for near brokers
// only. The README has the figures.
//
// # Sink: effectively-once
//
// The sink is a connector.IdempotentSink. Under delivery: exactly_once
// each bookmarked page is produced together with its commit token in one
// Kafka transaction: the token is a message keyed by the scope (the row's
// state key) in the compacted commit_token_topic (created when missing),
// and the transactional id is <transactional_id_prefix>.<scope>.
//
//   - LastCommittedToken first starts the transactional producer: loading
//     its producer id fences any earlier producer with the same id (a run
//     that died or hangs) and aborts its open transaction. It then reads
//     the token topic read_committed up to its last stable offset and
//     returns the scope's newest token.
//   - WriteIdempotent begins a transaction, produces the page and the
//     token, flushes and commits; on any failure it aborts, so a
//     read_committed consumer sees a page and its token together or not
//     at all.
//
// Consumers of the destination topic must read read_committed (the
// source here does) to get the guarantee; read_uncommitted consumers can
// see messages of aborted transactions.
package kafka
