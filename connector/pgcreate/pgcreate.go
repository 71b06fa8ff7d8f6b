// Package pgcreate runs Postgres CREATE ... IF NOT EXISTS statements that
// several sessions may run at once.
//
// IF NOT EXISTS is not atomic in Postgres: of two sessions creating one
// name together (the shards of a run, matrix rows, instances opening one
// state table), the loser fails on pg_type's unique index (23505), with
// duplicate_table (42P07) or with duplicate_object (42710). Run again, the
// statement finds the winner's object and does nothing, so IfNotExists
// runs it again on those codes; a real conflict fails every time and is
// returned.
package pgcreate

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// Execer is what runs the statement: a *pgx.Conn or a *pgxpool.Pool.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// attempts is how often a statement that lost the race is run.
const attempts = 3

// IfNotExists runs ddl, a CREATE ... IF NOT EXISTS, outside a transaction,
// again when it lost a race with another session creating the same name.
func IfNotExists(ctx context.Context, db Execer, ddl string) error {
	var err error
	for range attempts {
		if _, err = db.Exec(ctx, ddl); !lostRace(err) {
			return err
		}
	}
	return err
}

func lostRace(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P07" || pe.Code == "42710")
}
