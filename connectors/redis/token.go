package redis

import (
	"context"
	"errors"
	"fmt"

	"github.com/faucet-hq/faucet/connector"
	goredis "github.com/redis/go-redis/v9"
)

// tokenPrefix is the key prefix of commit tokens, shared with faucet-cli
// 1.x and the SQL sinks' table name: scope s lives at
// _faucet_commit_token:s.
const tokenPrefix = "_faucet_commit_token:"

func tokenKey(scope string) string { return tokenPrefix + scope }

// errCommitted ends the WATCH callback when the token is already there.
var errCommitted = errors.New("page already committed")

// WriteIdempotent writes the whole page and SET _faucet_commit_token:scope
// token in one MULTI/EXEC (batch_size does not split it), under WATCH of
// the token key:
//
//   - the token already equal to token means an earlier attempt committed
//     and only its reply was lost: nothing is written again;
//   - a token other than the one this sink last saw committed means the
//     server lost committed pages (restarted without persistence, flushed)
//     or another writer uses the scope: the run stops with a fatal error
//     rather than save a bookmark past data the server no longer holds;
//   - a lost connection is retryable: the retry starts by reading the token.
func (s *Sink) WriteIdempotent(ctx context.Context, p *connector.Page, scope, token string) error {
	cmds, err := s.commands(p.Records)
	if err != nil {
		return err
	}
	key := tokenKey(scope)
	execSent := false // a Redis error after this is one of the queued commands
	err = s.client.Watch(ctx, func(tx *goredis.Tx) error {
		cur, err := tx.Get(ctx, key).Result()
		if errors.Is(err, goredis.Nil) {
			cur, err = "", nil
		}
		if err != nil {
			return err
		}
		if cur == token {
			return errCommitted
		}
		if known, ok := s.known[scope]; ok && cur != known {
			return connector.Fatal(fmt.Errorf("redis: commit token %s is %s, but this run last committed %s: the server lost committed pages (restarted without persistence?) or another writer uses this scope; stopping so that no bookmark is saved past data the server does not hold", key, quoteOrNone(cur), quoteOrNone(known)))
		}
		execSent = true
		_, err = tx.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
			if len(cmds) > 0 {
				s.queue(ctx, pipe, cmds)
			}
			pipe.Set(ctx, key, token, 0)
			return nil
		})
		return err
	}, key)
	switch {
	case err == nil, errors.Is(err, errCommitted):
		s.known[scope] = token
		return nil
	case connector.IsFatal(err):
		return err
	case errors.Is(err, goredis.TxFailedErr):
		return connector.Fatal(fmt.Errorf("redis: %s changed while this page was being committed: another writer uses scope %q", key, scope))
	case isConnError(err) && ctx.Err() == nil:
		return connector.Retryable(s.fail("commit page with token "+key+" to", err))
	}
	var re goredis.Error
	if execSent && errors.As(err, &re) && !goredis.IsExecAbortError(err) && !goredis.IsOOMError(err) {
		// A command failed inside EXEC: Redis does not roll the others back.
		// (A command refused while queueing aborts the whole EXEC instead:
		// nothing was applied, the plain error below.)
		return connector.Fatal(s.fail("commit page with token "+key+" (a command inside MULTI/EXEC failed; the others were applied) to", err))
	}
	return s.fail("commit page with token "+key+" to", err)
}

// LastCommittedToken returns the token last committed for scope.
func (s *Sink) LastCommittedToken(ctx context.Context, scope string) (string, bool, error) {
	tok, err := s.client.Get(ctx, tokenKey(scope)).Result()
	if errors.Is(err, goredis.Nil) {
		s.known[scope] = ""
		return "", false, nil
	}
	if err != nil {
		return "", false, s.fail("read commit token "+tokenKey(scope)+" from", err)
	}
	s.known[scope] = tok
	return tok, true, nil
}

func quoteOrNone(tok string) string {
	if tok == "" {
		return "absent"
	}
	return fmt.Sprintf("%q", tok)
}
