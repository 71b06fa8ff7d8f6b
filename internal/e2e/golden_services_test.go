package e2e

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/faucet-hq/faucet/connector/connectortest"
	mysqlconn "github.com/faucet-hq/faucet/connectors/mysql"
)

// The services a case may declare, the environment variable that hands
// the steps the URL of the case's own database, and where the server is
// found (SPEC §4).
const (
	pgService    = "postgres"
	mysqlService = "mysql"

	pgEnv    = "FAUCET_GOLDEN_PG"
	mysqlEnv = "FAUCET_GOLDEN_MYSQL"

	defaultPGURL    = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	defaultMySQLURL = "mysql://root@127.0.0.1:3306/test"
)

// caseDBs holds the URLs of the databases created for one case.
type caseDBs struct {
	pg, mysql string
}

// url returns the URL of the case's database on service db, failing the
// test when the case did not declare that service.
func (d caseDBs) url(t *testing.T, db string) string {
	t.Helper()
	u := map[string]string{pgService: d.pg, mysqlService: d.mysql}[db]
	if u == "" {
		t.Fatalf("db %s: the case does not declare it in services: [%s, %s]", db, pgService, mysqlService)
	}
	return u
}

// env is the environment the steps see: one URL per database.
func (d caseDBs) env() []string {
	var out []string
	if d.pg != "" {
		out = append(out, pgEnv+"="+d.pg)
	}
	if d.mysql != "" {
		out = append(out, mysqlEnv+"="+d.mysql)
	}
	return out
}

// setUpServices creates a fresh database per declared service, named
// after the case (and this process, so that two test runs at once do not
// share one), and drops it when the case ends.
func setUpServices(t *testing.T, caseName string, services []string) caseDBs {
	t.Helper()
	var dbs caseDBs
	name := databaseName(caseName, os.Getpid())
	for _, s := range services {
		switch s {
		case pgService:
			dbs.pg = createPGDatabase(t, name)
		case mysqlService:
			dbs.mysql = createMySQLDatabase(t, name)
		default:
			if !isBrokerService(s) {
				t.Fatalf("case.yaml: services: unknown service %q (known: %s, %s, %s, %s, %s, %s, %s)", s, pgService, mysqlService,
					redisService, natsService, kafkaService, s3Service, httpService)
			}
		}
	}
	return dbs
}

// databaseName is faucet_golden_<case>_<pid>, lower case, with every
// character but letters and digits as _, within Postgres' 63-byte limit.
func databaseName(caseName string, pid int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(caseName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	prefix, suffix := "faucet_golden_", "_"+strconv.Itoa(pid)
	body := b.String()
	if room := 63 - len(prefix) - len(suffix); len(body) > room {
		body = body[:room]
	}
	return prefix + body + suffix
}

func pgServiceURL(t *testing.T) string {
	t.Helper()
	return connectortest.ServiceURL(t, "FAUCET_TEST_POSTGRES_URL", defaultPGURL, func(ctx context.Context, u string) error {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
}

// createPGDatabase creates the database and returns its URL.
func createPGDatabase(t *testing.T, name string) string {
	t.Helper()
	base := pgServiceURL(t)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("FAUCET_TEST_POSTGRES_URL must be a postgres:// URL for the golden cases, got %s", connectortest.Redact(base))
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	q := pgx.Identifier{name}.Sanitize()
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+q+" WITH (FORCE)"); err != nil {
		t.Fatalf("postgres: drop stale database %s: %v", name, err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+q); err != nil {
		t.Fatalf("postgres: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("postgres: drop database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+q+" WITH (FORCE)"); err != nil {
			t.Errorf("postgres: drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// openPG connects to a case database with the session in UTC, so that
// timestamptz values print the same wherever the test runs.
func openPG(ctx context.Context, raw string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	return pgx.ConnectConfig(ctx, cfg)
}

func mysqlServiceURL(t *testing.T) string {
	t.Helper()
	return connectortest.ServiceURL(t, "FAUCET_TEST_MYSQL_URL", defaultMySQLURL, func(ctx context.Context, u string) error {
		db, err := openMySQL(u)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	})
}

// createMySQLDatabase creates the database and returns its URL in the
// spelling of the server URL (mysql://... or a go-sql-driver DSN), both of
// which the mysql connector accepts.
func createMySQLDatabase(t *testing.T, name string) string {
	t.Helper()
	base := mysqlServiceURL(t)
	admin, err := openMySQL(base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	q := "`" + name + "`" // databaseName leaves no backquote
	if _, err := admin.Exec("DROP DATABASE IF EXISTS " + q); err != nil {
		t.Fatalf("mysql: drop stale database %s: %v", name, err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + q + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		t.Fatalf("mysql: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		db, err := openMySQL(base)
		if err != nil {
			t.Errorf("mysql: drop database %s: %v", name, err)
			return
		}
		defer db.Close()
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + q); err != nil {
			t.Errorf("mysql: drop database %s: %v", name, err)
		}
	})
	if u, err := url.Parse(base); err == nil && (u.Scheme == "mysql" || u.Scheme == "mariadb") {
		u.Path = "/" + name
		return u.String()
	}
	cfg, err := mysqlconn.ParseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = name
	return cfg.FormatDSN()
}

// openMySQL opens one connection whose session runs in UTC and accepts
// scripts of several statements.
func openMySQL(raw string) (*sql.DB, error) {
	cfg, err := mysqlconn.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	cfg.MultiStatements = true
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	return db, nil
}
