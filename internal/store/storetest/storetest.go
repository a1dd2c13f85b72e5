// Package storetest gives tests real databases: a fresh SQLite file, and a
// fresh PostgreSQL database on the server named by WORKSHOP_TEST_POSTGRES_URL.
// There are no database mocks in this project: every store test runs on both.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
)

// PostgresEnv names the variable with the URL of a PostgreSQL server for tests.
const PostgresEnv = "WORKSHOP_TEST_POSTGRES_URL"

// Database is one database a test runs on.
type Database struct {
	Name string // "sqlite" or "postgres"
	URL  string
	// Options open the test's store as the test is to run it (see
	// EachGrouping); Open does not add them by itself.
	Options []store.Option
}

// SQLiteURL is a fresh SQLite file in the test's temp dir.
func SQLiteURL(t testing.TB) string {
	return "sqlite://" + filepath.Join(t.TempDir(), "workshop.db")
}

// PostgresURL creates a fresh database on the server of
// WORKSHOP_TEST_POSTGRES_URL, migrated, dropped when the test ends; the
// test is skipped, saying so, when the variable is unset or under -short
// (the quick run tests SQLite; the full run, and CI, both). The database is
// a copy of a template migrated once (postgresTemplate): a copy takes a
// third of what migrating a new database does.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := postgresBase(t)
	tpl, err := postgresTemplate(base)
	if err != nil {
		t.Fatalf("the migrated template database: %v", err)
	}
	return newPostgres(t, base, tpl)
}

// EmptyPostgresURL is PostgresURL's database without its schema: for the
// tests of migrating a new database.
func EmptyPostgresURL(t testing.TB) string {
	t.Helper()
	return newPostgres(t, postgresBase(t), "")
}

// postgresBase is the server's URL, or skips the test.
func postgresBase(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skipf("PostgreSQL not tested: set %s (e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); .ci/run sets it", PostgresEnv)
	}
	if testing.Short() {
		t.Skip("PostgreSQL not tested under -short: the full run tests it")
	}
	return base
}

// newPostgres creates a database for the test, a copy of template unless
// it is "", dropped when the test ends.
func newPostgres(t testing.TB, base, template string) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open %s: %v", PostgresEnv, err)
	}
	defer admin.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "wstest_" + hex.EncodeToString(b[:])
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := admin.Exec(create); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return databaseURL(t, base, name)
}

// databaseURL is base naming the database name instead.
func databaseURL(t testing.TB, base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	u.Path = "/" + name
	// A commit need not wait for its WAL to reach the disk: the tests kill
	// the service's processes, never the database server, and a commit is
	// still visible to every connection at once.
	q := u.Query()
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return u.String()
}

// templates is the migrated template of the server, once per process.
var templates struct {
	once sync.Once
	name string
	err  error
}

// postgresTemplate is a database on the server migrated to the embedded
// schema, named by its digest, marked a template that takes no
// connections. It stays on the server for the next runs; the first
// process to need it builds it under an advisory lock, into a database of
// another name renamed once migrated, so no process ever copies a half-made
// one (a build that died is dropped by the next).
func postgresTemplate(base string) (string, error) {
	templates.once.Do(func() { templates.name, templates.err = buildPostgresTemplate(base) })
	return templates.name, templates.err
}

func buildPostgresTemplate(base string) (string, error) {
	digest, err := store.SchemaDigest("postgres")
	if err != nil {
		return "", err
	}
	name := "wstpl_" + digest
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	const lockKey = 0x77737470 // "wstp"
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return "", err
	}
	defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck // the connection closes anyway
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		return "", err
	}
	if n == 1 {
		return name, nil
	}
	building := name + "_building"
	for _, q := range []string{"DROP DATABASE IF EXISTS " + building + " WITH (FORCE)", "CREATE DATABASE " + building} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return "", err
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + building
	st, err := store.Open(ctx, u.String())
	if err != nil {
		return "", fmt.Errorf("migrate %s: %w", building, err)
	}
	st.Close()
	for _, q := range []string{
		"ALTER DATABASE " + building + " RENAME TO " + name,
		"ALTER DATABASE " + name + " WITH IS_TEMPLATE true ALLOW_CONNECTIONS false",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return "", err
		}
	}
	return name, nil
}

// Each runs fn as a subtest on a fresh database of every kind: "sqlite"
// always, "postgres" when WORKSHOP_TEST_POSTGRES_URL is set (skipped with a
// message otherwise).
func Each(t *testing.T, fn func(t *testing.T, db Database)) {
	t.Helper()
	each(t, PostgresURL, fn)
}

// EachEmpty is Each on databases without the schema (the SQLite file does
// not exist yet): for the tests of migrating a new database.
func EachEmpty(t *testing.T, fn func(t *testing.T, db Database)) {
	t.Helper()
	each(t, EmptyPostgresURL, fn)
}

func each(t *testing.T, postgresURL func(testing.TB) string, fn func(t *testing.T, db Database)) {
	t.Helper()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var u string
			if name == "sqlite" {
				u = SQLiteURL(t)
			} else {
				u = postgresURL(t)
			}
			fn(t, Database{Name: name, URL: u})
		})
	}
}

// EachGrouping runs fn as Each does, each database twice: with the store's
// concurrent writes grouped ("grouped", the default) and written one at a
// time ("one-by-one"), in db.Options. The store's write tests run so.
func EachGrouping(t *testing.T, fn func(t *testing.T, db Database)) {
	t.Helper()
	Each(t, func(t *testing.T, db Database) {
		fn(t, Database{Name: db.Name, URL: db.URL, Options: []store.Option{store.WithGroupedWrites(true)}})
	})
	t.Run("one-by-one", func(t *testing.T) {
		t.Parallel()
		Each(t, func(t *testing.T, db Database) {
			fn(t, Database{Name: db.Name, URL: db.URL, Options: []store.Option{store.WithGroupedWrites(false)}})
		})
	})
}

// Open opens and migrates a store, closed when the test ends.
func Open(t testing.TB, rawURL string, opts ...store.Option) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), rawURL, opts...)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// RawDB opens the database of a URL of this package without the store (no
// migrations, no pool settings): for tests that look under it.
func RawDB(t testing.TB, rawURL string) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", rawURL
	if path, ok := strings.CutPrefix(rawURL, "sqlite://"); ok {
		// a server of the test writes meanwhile (last uses of keys, the
		// dispatcher): wait for its lock as the store does
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		driver, dsn = "sqlite", path+sep+"_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("open %s: %v", rawURL, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Main runs a package's tests (from its TestMain) with parallel tests run
// testParallel at a time unless -test.parallel says otherwise. Tests on
// databases and servers wait far more than they compute (a PostgreSQL
// database made per test, fsyncs, a killed process's leases), so the
// default of one per core left the cores mostly idle.
func Main(m *testing.M) int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(testParallel, runtime.GOMAXPROCS(0))))
	}
	return m.Run()
}

// testParallel is Main's parallel tests at once.
const testParallel = 8
