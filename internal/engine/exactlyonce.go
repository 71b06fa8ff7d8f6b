package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/faucet-hq/faucet/connector"
)

// Effectively-once delivery (delivery: exactly_once), as faucet-cli 1.x
// does it with an atomic watermark:
//
//   - every bookmarked page gets the next sequence number and is written
//     with WriteIdempotent together with the token "%020d#<bookmark>", in
//     one sink transaction;
//   - the state store keeps {"__faucet_eo":1,"bookmark":<bm>,"seq":<n>}
//     (a bare bookmark reads as seq 0, so switching modes resumes cleanly);
//   - on start the sink's last token wins when it is ahead of the state:
//     the source starts from the bookmark inside the token, so a crash
//     between the sink commit and the state save re-delivers nothing;
//   - a page whose sequence number the sink already committed is skipped.
//
// The sink is opened before the source for this (its token decides where
// the source starts).

// eoState is the exactly-once envelope in the state store.
type eoState struct {
	Marker   int             `json:"__faucet_eo"`
	Bookmark json.RawMessage `json:"bookmark"`
	Seq      uint64          `json:"seq"`
}

// decodeEOState reads a stored state value: the envelope, or a legacy
// bare bookmark (seq 0).
func decodeEOState(data []byte) (*connector.Value, uint64, error) {
	var env eoState
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && json.Unmarshal(data, &env) == nil && env.Marker == 1 {
		if len(env.Bookmark) == 0 || string(env.Bookmark) == "null" {
			return nil, env.Seq, nil
		}
		v, err := decodeBookmark(env.Bookmark)
		if err != nil {
			return nil, 0, err
		}
		return &v, env.Seq, nil
	}
	v, err := decodeBookmark(data)
	if err != nil {
		return nil, 0, err
	}
	return &v, 0, nil
}

func encodeEOState(bm *connector.Value, seq uint64) []byte {
	out := []byte(`{"__faucet_eo":1,"bookmark":`)
	if bm == nil {
		out = append(out, "null"...)
	} else {
		out = connector.AppendJSON(out, *bm)
	}
	out = append(out, `,"seq":`...)
	out = strconv.AppendUint(out, seq, 10)
	return append(out, '}')
}

// commitToken is the sink-side watermark of page seq.
func commitToken(seq uint64, bm connector.Value) string {
	return fmt.Sprintf("%020d#%s", seq, connector.AppendJSON(nil, bm))
}

// parseToken splits a commit token; the bookmark is absent in tokens
// written without one.
func parseToken(tok string) (uint64, *connector.Value, error) {
	num, rest, hasBM := strings.Cut(tok, "#")
	seq, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("commit token %q: bad sequence number", tok)
	}
	if !hasBM || rest == "" {
		return seq, nil, nil
	}
	v, err := decodeBookmark([]byte(rest))
	if err != nil {
		return 0, nil, fmt.Errorf("commit token %q: %w", tok, err)
	}
	return seq, &v, nil
}

// resumeExactlyOnce decides where an exactly-once row starts: the state's
// bookmark and sequence, unless the sink committed further.
func resumeExactlyOnce(ctx context.Context, row Row, sink connector.IdempotentSink) (start *connector.Value, seq, committed uint64, err error) {
	if row.State != nil {
		data, ok, err := row.State.Get(ctx, row.StateKey)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("read state %q: %w", row.StateKey, err)
		}
		if ok {
			if start, seq, err = decodeEOState(data); err != nil {
				return nil, 0, 0, fmt.Errorf("read state %q: %w", row.StateKey, err)
			}
		}
	}
	tok, ok, err := sink.LastCommittedToken(ctx, row.StateKey)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("sink %s: read commit token: %w", row.SinkType, err)
	}
	if !ok {
		return start, seq, 0, nil
	}
	tseq, tbm, err := parseToken(tok)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("sink %s: %w", row.SinkType, err)
	}
	if tseq > seq && tbm != nil {
		// The sink is ahead of the state (a crash after the commit, before
		// the state save): start after what the sink holds.
		return tbm, tseq, tseq, nil
	}
	return start, seq, tseq, nil
}

// eoRun is the writer's exactly-once bookkeeping.
type eoRun struct {
	sink      connector.IdempotentSink
	seq       uint64 // sequence number of the last bookmarked page handled
	committed uint64 // the sink already holds every page up to this one
	savedSeq  uint64 // sequence number that goes with the pending bookmark
	skipped   int64  // pages not rewritten because the sink had them
}

// checkExactlyOnce refuses a row that cannot be effectively-once, naming
// the side that cannot.
func checkExactlyOnce(row Row) (connector.IdempotentSink, error) {
	sink, ok := row.Sink.(connector.IdempotentSink)
	switch {
	case !ok:
		return nil, fmt.Errorf("delivery: exactly_once: sink %s cannot commit a watermark with its rows (sqlite, postgres, mysql, redis and kafka sinks can)", row.SinkType)
	case row.State == nil:
		return nil, fmt.Errorf("delivery: exactly_once needs a durable state store (state: file, sqlite, postgres or redis)")
	case row.DLQ != nil:
		return nil, fmt.Errorf("delivery: exactly_once cannot be combined with a dlq")
	}
	if err := connector.CheckReplay(row.Source); err != nil {
		return nil, fmt.Errorf("delivery: exactly_once: source %s cannot replay its pages from a bookmark: %w", row.SourceType, err)
	}
	return sink, nil
}
