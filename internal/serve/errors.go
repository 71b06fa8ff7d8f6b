package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/faucet-hq/faucet/internal/history"
	"github.com/faucet-hq/faucet/internal/redact"
)

// Error codes of the envelope {"error":{"code","message","details"?}}
// (reference §1.1). bad_request and payload_too_large are ours: the original
// let its framework answer malformed bodies in plain text; we always answer
// with the envelope.
const (
	CodeBadRequest      = "bad_request"
	CodeBadConfig       = "bad_config"
	CodeUnauthorized    = "unauthorized"
	CodeForbidden       = "forbidden"
	CodeNotFound        = "not_found"
	CodeConflict        = "conflict"
	CodePayloadTooLarge = "payload_too_large"
	CodeUnprocessable   = "unprocessable"
	CodeQueueFull       = "queue_full"
	CodeUnavailable     = "unavailable"
	CodeInternal        = "internal"
)

// RetryAfterSecs is the Retry-After of a 429.
const RetryAfterSecs = 5

// APIError is an error with its HTTP status and envelope code.
type APIError struct {
	Status  int
	Code    string
	Message string
	Details any
	// Err is the cause, kept for logs.
	Err error
}

func (e *APIError) Error() string { return e.Message }
func (e *APIError) Unwrap() error { return e.Err }

func apiErr(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func errBadRequest(format string, args ...any) *APIError {
	return apiErr(http.StatusBadRequest, CodeBadRequest, format, args...)
}
func errBadConfig(format string, args ...any) *APIError {
	return apiErr(http.StatusBadRequest, CodeBadConfig, format, args...)
}
func errUnauthorized() *APIError {
	return apiErr(http.StatusUnauthorized, CodeUnauthorized, "missing or invalid bearer token")
}
func errForbidden(format string, args ...any) *APIError {
	return apiErr(http.StatusForbidden, CodeForbidden, format, args...)
}
func errNotFound() *APIError { return apiErr(http.StatusNotFound, CodeNotFound, "not found") }
func errConflict(format string, args ...any) *APIError {
	return apiErr(http.StatusConflict, CodeConflict, format, args...)
}
func errUnprocessable(details any, format string, args ...any) *APIError {
	e := apiErr(http.StatusUnprocessableEntity, CodeUnprocessable, format, args...)
	e.Details = details
	return e
}
func errQueueFull() *APIError {
	return apiErr(http.StatusTooManyRequests, CodeQueueFull, "run queue is full; retry later")
}
func errUnavailable(format string, args ...any) *APIError {
	return apiErr(http.StatusServiceUnavailable, CodeUnavailable, format, args...)
}

// toAPIError is the one place an error becomes a status and an envelope.
func toAPIError(err error) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apiErr(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "request body exceeds %d bytes", mbe.Limit)
	}
	if history.IsDegraded(err) {
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: err.Error(), Err: err}
	}
	if history.IsUnreachable(err) {
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "run history unavailable: " + err.Error(), Err: err}
	}
	return &APIError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error(), Err: err}
}

type envelope struct {
	Error envelopeBody `json:"error"`
}

type envelopeBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// writeError renders err as the JSON envelope; message and details pass
// through the secret redactor.
func writeError(w http.ResponseWriter, err error) {
	ae := toAPIError(err)
	body := envelopeBody{Code: ae.Code, Message: redact.String(ae.Message)}
	if ae.Details != nil {
		body.Details = redactDetails(ae.Details)
	}
	if ae.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", fmt.Sprint(RetryAfterSecs))
	}
	writeJSON(w, ae.Status, envelope{Error: body})
}

func redactDetails(d any) any {
	b, err := json.Marshal(d)
	if err != nil {
		return map[string]bool{"redacted": true}
	}
	var out any
	if err := json.Unmarshal([]byte(redact.String(string(b))), &out); err != nil {
		return map[string]bool{"redacted": true}
	}
	return out
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"cannot encode response"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
