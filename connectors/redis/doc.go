// Package redis is the `redis` source and sink, on go-redis (RESP2, so
// that hash and stream fields keep their order). The config shape is
// faucet-cli 1.x's: `source_type: {type: List|Stream|Keys, ...}` and
// `sink_type: {type: List|Stream|KeyValue, ...}` (snake_case type names are
// accepted too).
//
// # Source
//
// Every mode pages by batch_size (0: everything in one page), stops after
// max_records, and ends when the data ends: it never blocks waiting for
// more. Pages also end near batch_bytes (default 1 MiB): Redis sends a
// whole reply at once, so a page is read in chunks sized from the
// elements read before (chunk.go), and an element larger than the limit
// is a page of its own.
//
//   - List reads LRANGE windows. It is not destructive: the list is left as
//     it is, and a rerun reads it again from the start (no bookmark). Paging
//     by index is only stable while nobody pushes to or pops from the head
//     of the list during the read. An element that is a JSON object is the
//     record; any other element becomes {"value": element}.
//   - Stream reads XRANGE pages in id order. Records are {id, fields{}}
//     with the entry's fields in order. Every page's bookmark is its last
//     entry id, so with a state store a rerun resumes after the last
//     committed entry (faucet-cli 1.x re-read the whole stream every run).
//     Reads are deterministic from a bookmark, so a stream feeds a
//     delivery: exactly_once row. group/consumer are accepted and ignored,
//     as the 1.x streaming path did: the saved bookmark plays the role of
//     the group's acknowledged position, advanced only after the sink
//     committed.
//   - Keys SCANs the pattern and reads each page of keys with one MGET;
//     keys MGET cannot read are read by type: a hash becomes an object, a
//     list an array, a set a sorted array, a sorted set [{member, score}].
//     Records are {key, value}. A key deleted between SCAN and the read is
//     dropped; a key of another type (a stream) is a failed record naming
//     it. SCAN may return a key twice when the keyspace is resized during
//     the scan (Redis's guarantee is "at least once"); no bookmark.
//
// Strings (list elements, field values, key values) become their JSON
// value when they parse as JSON, else stay strings.
//
// # Sink
//
//   - List: RPUSH of each record's JSON (one RPUSH per pipeline chunk).
//   - Stream: XADD key * with the record's top-level fields, or the fields
//     mapping {entry field: record path}; strings as they are, other values
//     as JSON; a record with no field is written as _data = its JSON.
//   - KeyValue: SET <key_prefix><value of key_field> <record JSON> [EX ttl].
//
// Commands go out in pipelines of batch_size. A record that cannot be
// written (no key_field) fails the page before anything of it is sent.
// A failed round trip is not retried: part of the page may be there, and
// repeating RPUSH or XADD would duplicate it.
//
// # Exactly-once
//
// Under delivery: exactly_once every bookmarked page is one MULTI/EXEC
// holding all of its commands and `SET _faucet_commit_token:{scope}
// {token}` (faucet-cli 1.x's key), run under WATCH of the token key after
// reading it (token.go):
//
//  1. token already there: an earlier attempt committed and only the reply
//     was lost; nothing is rewritten. So a lost connection is retryable.
//  2. token other than the one this sink last saw: the server lost
//     committed pages (a restart without persistence, FLUSHALL) or
//     another writer uses the scope. The write fails with a fatal error
//     and the bookmark stays where it was, instead of the run carrying on
//     over a hole.
//  3. otherwise EXEC applies the page and the token together, or nothing.
//
// Redis does not roll back the other commands when one fails inside EXEC
// (a key of the wrong type). Open refuses a list or stream key of another
// type for that reason; if it happens anyway the error says so and is
// fatal. Durability is the server's: the guarantee holds across server
// restarts with AOF (appendfsync always, or everysec for at most a second
// of loss that rule 2 then detects).
package redis
