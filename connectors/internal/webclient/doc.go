// Package webclient is the HTTP machinery shared by the `rest` source and
// the `http` sink: the `auth:` block and its credentials, one request with
// retries, and the scrubbing of secrets from everything either connector
// prints.
//
// # Auth
//
// `auth: {type, config}` as faucet-cli 1.x wrote it: none, bearer{token},
// basic{username, password}, api_key{header, value},
// api_key_query{param, value}, oauth2{token_url, client_id, client_secret,
// scopes, expiry_ratio} and custom{headers}. An oauth2 token comes from the
// client-credentials grant (a form POST to token_url); it is cached and
// fetched again once expiry_ratio (default 0.9) of its expires_in has
// passed, so a long pagination renews it before the server would refuse
// it. Concurrent requests share one fetch. A token without expires_in is
// kept until a request is refused with 401.
//
// # One request
//
// Client.Do sends a request and reads the whole response, retrying:
//
//   - a transport error (connection refused or reset, timeout) and a 5xx
//     status: after base·2^n (capped at MaxBackoff) times a jitter factor
//     in [0.5, 1.5), or the server's Retry-After when that is longer, at
//     most MaxRetries times;
//   - 429 Too Many Requests: after its Retry-After (delta-seconds or an
//     HTTP date; 60 s when absent). These waits do not use up MaxRetries,
//     but more than MaxRateLimited 429s in a row give up;
//   - 401 Unauthorized with a cached oauth2 token: once, at once, with a
//     freshly fetched token.
//
// Every other status is returned as a *StatusError at once. The error
// returned after the retries are used up is not connector.Retryable: the
// connectors have retried already, and the engine retrying the whole page
// would multiply the attempts (and, for a sink, repeat deliveries).
// Waits go through a Clock, so tests observe them without sleeping.
//
// # Secrets
//
// Tokens, passwords, api keys, client secrets, fetched oauth2 tokens, URL
// passwords and the values (of 8 characters or more) of sensitive-looking
// headers and query parameters are registered with the client's Redactor. URLs in errors and logs have
// their userinfo password and every sensitive query parameter (by name:
// api_key, token, access_token, secret, password, signature...; and the
// api_key_query parameter) replaced by ***, and response bodies quoted in
// errors are truncated to 1 KiB and scrubbed of every registered value.
package webclient
