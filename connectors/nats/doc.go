// Package nats is the `nats` source and sink, on nats.go and its jetstream
// package. The config keys of faucet-cli 1.x (servers, auth {type, config},
// tls, name, subject, queue_group, jetstream_stream, jetstream_consumer,
// max_messages, idle_timeout_secs, batch_size; subject_field on the sink)
// keep their meaning; the rest are additions.
//
// # Source: core NATS
//
// With subject (and no jetstream_stream) the source subscribes, optionally
// in a queue group, and reads until max_messages or idle_timeout_secs (at
// least one is required: a subscription has no end). A page is handed on
// when batch_size messages arrived, when the next message would take it
// past batch_bytes (that message starts the next page), or a second after
// its first message.
// Core NATS keeps nothing for subscribers that are absent or slow, so this
// is at-most-once: only what is published while the run is subscribed is
// read, messages the client drops for a slow pipeline are counted in a
// warning, and pages carry no bookmark.
//
// # Source: JetStream, acknowledged after commit
//
// With jetstream_stream and jetstream_consumer the source pulls from that
// durable pull consumer, one fetch of up to batch_size messages and
// batch_bytes per page. The server leaves a message that does not fit for
// the next fetch; one larger than batch_bytes is fetched alone, without
// the limit, so it makes a page of its own instead of stopping the run.
// A missing consumer is created with ack policy explicit, the filter
// subject `subject`, deliver_policy (+ start_sequence / start_time),
// ack_wait_secs and max_ack_pending; an existing one is used as it is (its
// filter governs) but must be a pull consumer with explicit acks.
//
// The consumer, not a bookmark, is the resume position. The source
// implements connector.Committer and acknowledges a page's messages only
// when the engine reports the page committed: written, sink (and DLQ)
// flushed, state saved. Until then the messages stay pending on the
// server, so a crash, a kill or a failed run leaves them to be redelivered
// to the next run: at-least-once, and a duplicate is possible only for a
// page that reached the sink but whose acknowledgement did not reach the
// server. Within one run no message is emitted twice: the source keeps the
// stream sequences it holds (pending) and those it acknowledged (as
// ranges), drops a redelivery of the first kind (a page still on its way
// holds it, or ack_wait expired) and acknowledges again one of the second
// kind (the server lost the acknowledgement, e.g. in a restart).
//
// Acknowledgements are plain publishes to each message's reply subject,
// closed by one request on the last: the server answers it after it
// processed the acknowledgements before it on the connection. A failed
// acknowledgement fails the run after the engine's retries; the messages
// stay pending.
//
// Because pages wait for their commit, the consumer's max_ack_pending
// bounds how far the source can read ahead. When it is reached, or when
// nothing new arrives while pages wait, Next returns an empty page now and
// then: the engine checkpoints while pages flow, so the empty page gives it
// the chance to commit (and the source room to fetch). A dry run or a
// --limit run commits nothing; Close hands every message the run holds
// back with a negative acknowledgement, so the next run gets them at once
// rather than after ack_wait_secs.
//
// While the connection is down the source waits (the idle clock stands
// still) for up to reconnect_timeout_secs, then fails naming the servers.
//
// Records: a JSON object payload is the record; any other payload becomes
// {"value": ...}. value_format json keeps payloads that are not JSON as
// text, string takes the text, bytes base64. include adds metadata in the
// kafka connector's envelope style: {subject, sequence, timestamp (ms),
// headers {name: value | [values]}, value}.
//
// # Sink
//
// Each record becomes one message: the subject is `subject` or the record's
// subject_field, headers come from headers_field, the payload is the whole
// record as JSON or value_field in value_format. Every record of a page is
// turned into a message before any is published, so a bad record fails the
// page without publishing part of it.
//
// mode core publishes and flushes every batch_size messages: the server
// has them, subscribers that are not there miss them. mode jetstream
// publishes asynchronously (at most batch_size unacknowledged) and returns
// from Write only when a stream stored every message: at-least-once. Each
// message carries a Nats-Msg-Id made of a per-run id, the page's write
// number and the record's index; the engine retries a failed write with the
// same page, which keeps its number, so the stream drops what the first
// attempt already stored (within its duplicate window, 2 minutes by
// default).
//
// The sink is not effectively-once (it is no connector.IdempotentSink):
// JetStream before 2.12 has no atomic multi-message publish, so a page and
// a commit token cannot be stored together, and Nats-Msg-Id de-duplication
// holds only within the stream's duplicate window. A page half published
// when a run died would be deduplicated on resume only if the rerun came
// within that window and cut the very same page; a rerun an hour later
// duplicates it. That is no guarantee, so `delivery: exactly_once` refuses
// this sink and it promises at-least-once.
package nats
