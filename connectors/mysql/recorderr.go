package mysql

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/faucet-hq/faucet/connector"
	"github.com/faucet-hq/faucet/connectors/internal/sqlutil"
	mysqldriver "github.com/go-sql-driver/mysql"
)

// atRow is how the server ends a message about one row of a multi-row
// statement ("Incorrect integer value: 'abc' for column `db`.`t`.`n` at
// row 345").
var atRow = regexp.MustCompile(` at row (\d+)$`)

// badRow names the record that err blames in an INSERT of rows; first is
// the page index of rows[0]. It returns "" when the server did not say.
func (s *Sink) badRow(err error, rows []connector.Record, first int) string {
	var me *mysqldriver.MySQLError
	if !errors.As(err, &me) {
		return ""
	}
	m := atRow.FindStringSubmatch(me.Message)
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[1])
	if n < 1 || n > len(rows) {
		return ""
	}
	return fmt.Sprintf(": record %d of the page (%s)", first+n, sqlutil.RecordHint(rows[n-1], s.cfg.Key))
}
