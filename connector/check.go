package connector

import "context"

// Checker is implemented by sources and sinks that can tell, before a run
// and without changing anything, whether it would get going: the file or
// table is there, the server answers, the credentials are accepted
// (`faucet doctor`, `POST /v1/doctor`, `doctor_first`). Check is called on
// a configured, unopened connector and returns one result per probe, in
// the order they ran; a probe that cannot run because an earlier one
// failed is reported as skipped.
type Checker interface {
	Check(ctx context.Context) []CheckResult
}

// CheckResult is the outcome of one named probe ("read", "connect",
// "table", "permissions"...). Err nil and Skipped empty is a pass; Hint,
// when set, tells the user what to do about a failure.
type CheckResult struct {
	Name    string
	Err     error
	Skipped string
	Hint    string
}

// Passed is a passing result of probe name.
func Passed(name string) CheckResult { return CheckResult{Name: name} }

// Failed is a failed result of probe name with a hint (may be empty).
func Failed(name string, err error, hint string) CheckResult {
	return CheckResult{Name: name, Err: err, Hint: hint}
}

// SkippedCheck is a probe that did not run, and why.
func SkippedCheck(name, reason string) CheckResult {
	return CheckResult{Name: name, Skipped: reason}
}
