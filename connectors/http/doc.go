// Package http is the `http` sink: it sends records to an HTTP endpoint
// as JSON, with faucet-cli 1.x's config keys. The HTTP plumbing it shares
// with the `rest` source (auth, retries, redaction) is in
// connectors/internal/webclient.
//
// # Requests
//
// batch_mode Individual (the default) sends each record as a JSON object
// in its own request, up to `concurrency` requests in flight; the order
// in which the endpoint receives them is therefore not the page order.
// batch_mode Array sends JSON arrays of up to batch_size records (0: the
// whole page), one request after the other, in page order. Every request
// carries the configured headers (Content-Type: application/json unless
// set) and credentials (`auth:` as in the rest source: bearer, basic,
// api_key, api_key_query, oauth2 client credentials, custom headers).
//
// # Retries and failures
//
// A transport error or 5xx is retried max_retries times with exponential
// backoff and jitter (longer when the server sent Retry-After); a 429
// waits its Retry-After without using up max_retries (up to ten in a
// row); a 401 with an oauth2 token is retried once with a new token.
// Then:
//
//   - a 4xx other than 401, 407 and 429 is the endpoint refusing the
//     record (or the array): it is reported as a connector.RecordError in
//     the page's Failed list, which the engine sends to the dead-letter
//     queue (or fails the run with, naming the record, when there is
//     none); the other records of the page are still sent;
//   - anything else (the endpoint down, 5xx after the retries, 401) fails
//     the write, and with it the run; the page's bookmark is not saved.
//
// The sink is not idempotent: a page whose write failed half way is sent
// again in full by the next run, and a request retried after a transport
// error may have been received the first time (at-least-once). Flush has
// nothing to do: a record is delivered when its request returned 2xx.
// Write errors are never connector.Retryable, since the engine retrying
// the page would send the records already delivered again.
package http
