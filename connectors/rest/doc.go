// Package rest is the `rest` source: it reads a paginated JSON API, one
// page per HTTP response, with faucet-cli 1.x's config keys. The HTTP
// plumbing it shares with the `http` sink (auth, retries, redaction) is
// in connectors/internal/webclient.
//
// # Requests
//
// Every request goes to base_url+path with query_params (sorted by name),
// query_params_multi (repeated keys) and the pagination parameters, the
// configured headers (Accept: application/json unless set) and, when
// `body` is set, that JSON body. Open sends the first request, so a wrong
// URL, bad credentials or a missing resource fail before anything is
// written; a status in tolerated_http_errors there means "no records"
// (later in the run it is an error, as a gap in the middle of a read
// would otherwise pass for its end). A 204 or a blank body is a page
// without records. request_delay waits between two page requests.
//
// # Pagination
//
//   - none: one request.
//   - link_header: follow the rel="next" target of the Link header.
//   - next_link_in_body: follow the URL at next_link_path.
//   - cursor: send the value at next_token_path as query parameter
//     param_name; cursor_in_body: as field body_cursor_field of the body.
//     Null, "" or no value ends the read.
//   - page_number: param_name = start_page (1), start_page+1, ... (with
//     page_size_param = page_size when set) until a page has no records.
//   - offset: offset_param/limit_param = 0/limit, limit/limit, ... until
//     a page is shorter than limit, or the offset reaches the number at
//     total_path.
//
// Relative links resolve against the request's URL. A next link is
// requested as the server wrote it (query_params are not added to it;
// api_key_query credentials are); one that leads to another host than
// base_url's is an error when the source has credentials to send. Loop guards, as faucet-cli 1.x: a
// cursor or link already requested in this run, or (page_number, offset
// without total_path) a response identical to the previous one, ends the
// read with a warning; the repeated response is dropped. max_pages ends
// it after that many responses, also with a warning.
//
// Records are the values records_path (JSONPath subset: $, .name,
// ['name'], [N], [*], .*) selects; a path that selects one array yields
// its elements; without it an array body is the records and an object
// body one record. A value that is not an object is a failed record
// (dead-lettered with its JSON text, or failing the run without a DLQ).
//
// # Retries
//
// A transport error or 5xx is retried max_retries times after
// retry_backoff·2^n seconds (at most 60, jitter ×[0.5, 1.5), longer if
// the server sent Retry-After); 429s wait their Retry-After (seconds or
// an HTTP date; 60 s without) and do not use up max_retries, up to ten in
// a row; a 401 with an oauth2 token is retried once with a new token
// (tokens are also renewed before they expire: expiry_ratio). What
// remains an error after that fails the run; it is not handed to the
// engine's retry, which would multiply the attempts.
//
// # Incremental reads and bookmarks
//
// With replication_key (replication_method Incremental, the default
// when the key is set), records whose key is not above the start (the
// saved bookmark, else start_replication_value) are filtered out, client
// side; see incremental.go for missing keys and keys of another type.
// The bookmark is the highest key read in the run, and which pages carry
// it depends on what the API promises:
//
//   - By default (faucet-cli 1.x) only the last page of the run carries
//     it (an empty page when the last response was dropped or max_pages
//     stopped the read). Records come in any order; a run that fails or
//     is stopped before the end saves nothing, and the next run reads
//     everything since the previous complete one again (at-least-once).
//   - With replication_key_ascending: true the API returns records in
//     strictly ascending key order, so every page whose records moved the
//     maximum carries it. The engine saves it once the page is in the
//     sink (write, flush, save), so a stopped or crashed run resumes
//     after the last committed page: the next run requests the pages
//     again from the start and the filter drops what was committed.
//     Pages left with no record after the filter are not emitted.
//     Records sharing a key across a page boundary are the one hazard:
//     resuming between them skips the second, so the key must be unique
//     (an id, a sequence, a timestamp with enough precision).
//
// # Exactly-once
//
// Under delivery: exactly_once the engine writes each bookmarked page
// with a commit token in the sink's transaction and, after a crash,
// restarts the source from the token's bookmark. That is only right when
// replaying from a page's bookmark yields exactly the records after that
// page, which holds in the ascending mode and nowhere else: CheckReplay
// (connector.ReplayChecker) refuses the row otherwise, naming the
// setting. The API must also be stable: records at or below a committed
// key must not appear later.
//
// # Secrets
//
// Credentials never print: tokens, passwords, api keys and client
// secrets are connector.Secret in the config; URLs in errors and logs
// mask userinfo passwords and sensitive query parameters (the
// api_key_query parameter, and names like api_key, token, secret); quoted
// response bodies are scrubbed of every credential, fetched oauth2
// tokens included. The config's `state_key` is accepted for 1.x configs;
// the engine keeps the bookmark under {pipeline}::{row}.
package rest
