package history

import "math"

// RunLogTruncatedSeq is the sentinel line written when a run hits its log cap;
// never returned in a page, its presence sets Truncated.
const RunLogTruncatedSeq uint64 = math.MaxUint64

// RunLogLine is one captured (already redacted) log line.
type RunLogLine struct {
	Seq   uint64 `json:"seq"`
	TS    string `json:"ts"` // RFC 3339 as captured
	Level string `json:"level"`
	Line  string `json:"line"`
}

// RunLogPage is a page of lines, oldest first.
type RunLogPage struct {
	Lines     []RunLogLine `json:"lines"`
	Truncated bool         `json:"truncated"`
}
