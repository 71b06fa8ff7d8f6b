package postgres

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	"github.com/jackc/pgx/v5/pgconn"
)

// A value the column cannot take fails a whole statement. The server says
// which bind parameter ("unnamed portal parameter $N") or which COPY line
// ("COPY t, line N") it was; these helpers turn that into the record of
// the page and its column, so the error names what to fix.

var (
	portalParam = regexp.MustCompile(`portal parameter \$(\d+)\b`)
	copyLine    = regexp.MustCompile(`^COPY [^,]*, line (\d+)`)
)

// whereNumber is the number the pattern captures in the error's context.
func whereNumber(err error, re *regexp.Regexp) int {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return 0
	}
	m := re.FindStringSubmatch(pe.Where)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// badParam names the record and column of the bind parameter err blames in
// an INSERT of rows (cols per row); first is the page index of rows[0].
// It returns "" when the server did not say.
func (s *Sink) badParam(err error, cs *colSet, cols []int, rows []connector.Record, first int) string {
	n := whereNumber(err, portalParam) - 1
	if n < 0 || len(cols) == 0 || n/len(cols) >= len(rows) {
		return ""
	}
	r := n / len(cols)
	return fmt.Sprintf(": record %d of the page (%s), column %q", first+r+1, sqlutil.RecordHint(rows[r], s.cfg.Key), cs.cols[cols[n%len(cols)]].name)
}

// badLine adds the record that a failed COPY of page p blames.
func (s *Sink) badLine(err error, p *connector.Page) error {
	n := whereNumber(err, copyLine)
	if n < 1 || n > len(p.Records) {
		return err
	}
	return fmt.Errorf("%w (record %d of the page: %s)", err, n, sqlutil.RecordHint(p.Records[n-1], s.cfg.Key))
}

// serverError keeps a driver error for errors.As while it reads as
// pgMessage renders it.
type serverError struct{ err error }

func (e *serverError) Error() string { return pgMessage(e.err) }
func (e *serverError) Unwrap() error { return e.err }
