// Package s3 is the `s3` source and sink: records in the objects of an
// Amazon S3 bucket or of an S3-compatible store (MinIO, R2, Ceph; set
// endpoint_url and usually force_path_style).
//
// # Credentials
//
// access_key_id with secret_access_key (and session_token for temporary
// credentials) sign every request; without them the default AWS chain is
// used (AWS_* environment, shared config and credentials files, SSO,
// container and instance roles). The secrets are connector.Secret: they
// never appear in errors, logs or the run history. Refusals name the
// bucket: `bucket "b" does not exist`, `the credentials were rejected for
// bucket "b" (InvalidAccessKeyId)`, `access to bucket "b" denied`.
//
// # Source
//
// Open lists the bucket under prefix with ListObjectsV2, following
// continuation tokens (list_max_keys keys per request), keeps the keys
// matching glob (Go's path.Match, so * stops at /) and not ending in "/",
// sorts them and keeps the first max_objects. The key list is held in
// memory (about 100 bytes per object); the objects are not. An empty
// selection is an error naming it, except for a cluster shard, which may
// own no object.
//
// The objects are then read one after the other in key order, each
// decoded by the file connector of its format: jsonl, csv (has_headers,
// delimiter) and json (records_path) are streamed from the GET response
// through the same decoders as local files (fileio.Inputs), so memory
// stays bounded whatever the object size and record locations read
// "s3://bucket/key:line". Parquet needs random access to its footer: each
// object is downloaded to a temporary file, decoded, and the file removed
// before the next one. format: auto goes by each key's extension (.jsonl,
// .ndjson, .csv, .json, .parquet before .gz or .zst) and all objects must
// agree. compression: auto decompresses .gz (gzip) and .zst (zstd) keys.
//
// Pages carry no bookmark: the source is not incremental, and it does not
// implement connector.ReplayChecker, so it cannot feed delivery:
// exactly_once. Every run reads the whole selection; objects written
// between the listing and the end of the run are not read, objects
// replaced meanwhile are read in their new version. (A bookmark on the
// last key read would be deterministic only for stores whose writers add
// keys in increasing order, which S3 does not promise.)
//
// # Shards
//
// The source is a connector.Sharder (cluster mode B): EnumerateShards
// lists once and returns at most target shards {shards, index}, each
// owning the objects whose key (without bucket) has
// FNV-1a-64(key) mod shards == index, with the owned objects' bytes as
// size estimate; indexes no key hashes to are left out. ApplyShard filters
// the listing by the same hash, so the shards together read every object
// exactly once.
//
// # Sink
//
// Records are encoded into a local temporary file by the format's file
// encoder (jsonl, csv, parquet; json writes one JSON array per object)
// and the file is uploaded when the object is complete, with the SDK's
// upload manager: one PUT up to part_size_mb, a multipart upload above.
// An object is therefore visible only once complete, never in part.
// The staging files live in the system temporary directory (TMPDIR) and
// are removed once uploaded; between flushes without max_records_per_file
// the current one grows with the records written. Each object is a
// self-contained file: a csv object has its own header and a parquet
// object its own schema, both from the object's first records.
//
// An object is complete after max_records_per_file records (when set) and
// at every Flush. Flush uploads every complete object, in order: when it
// returns nil, every record written is in a visible object, which is what
// the engine needs before it saves a bookmark. Each flush thus ends an
// object: the engine flushing at every checkpoint makes one object per
// checkpoint interval at least. Close drops what was written but not
// flushed (a failed or cancelled run): nothing half-written is uploaded.
// Objects completed by max_records_per_file are uploaded at the start of
// the next Write (or at Flush); when that upload fails the Write fails
// before touching its page, with a retryable error for server errors and
// lost connections, so the engine's retry writes the page once.
//
// Keys are prefix + key_template, whose {run_id}, {seq} and {ext} are
// replaced: {seq} numbers the objects of one sink from 000000, {ext} is
// file_extension (default from format and compression, e.g. .jsonl.gz),
// {run_id} is run_id or, by default, the sink's start time and a random
// suffix. A key is fixed when its object starts, so any retried upload
// overwrites the same key rather than adding one. Across runs, the
// default run_id gives each run its own keys (a rerun after a failure may
// then store records again under new keys: at-least-once); a fixed run_id
// (a partition id, say) makes a rerun overwrite the keys of the earlier
// run from 000000 on, leaving any higher-numbered objects of that run in
// place.
//
// The sink has no write modes (append only), no upsert and no
// exactly-once. Check (doctor) probes the bucket with HeadBucket; write
// permission is not probed, as that would create an object.
package s3
