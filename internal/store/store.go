package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations
var migrations embed.FS

type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// Store is the database of the service.
type Store struct {
	dialect dialect
	writer  *sql.DB // SQLite: the one writer connection; PostgreSQL: the pool
	reader  *sql.DB // SQLite: read-only pool; PostgreSQL: the same pool
	now     func() time.Time

	rebound sync.Map // query with ? -> query with $n (PostgreSQL)

	readStmts, writeStmts *stmtCache               // SQLite only
	batcher               *batcher                 // SQLite only: group commit of writes
	creates               *groupWriter[*createReq] // job creates (jobwrite.go)
	patches               *groupWriter[*patchReq]  // step patches (stepwrite.go)
	groupWrites           bool                     // concurrent creates and patches are written in groups
	mustExist             bool                     // a SQLite file must be there already (ExistingOnly)

	eventHooks eventHooks // called after commits that recorded events (webhooks_dispatch.go)

	steps     *stepCache                // jobs' steps by steps version (stepcache.go)
	settings  *settingsCache            // parsed workshop settings by their text (settingscache.go)
	durations *durationCache            // learned durations by location and duration version (durations.go)
	grants    *memo[string, epochGrant] // credentials by secret hash, with the auth epoch read at (credentials.go)
	epochs    epochReads                // reads of the auth epoch, one for all waiting (authepoch.go)
	uses      *memo[string, time.Time]  // when this process last recorded each credential's use (credentials_list.go)
}

// Option adjusts a Store.
type Option func(*Store)

// WithClock replaces time.Now (tests of time-dependent rules).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithGroupedWrites says whether concurrent job creates and step patches
// are written in groups (the default) or each as it comes. Both ways run
// the same rules and statements (groupWriter); the store's tests run both.
func WithGroupedWrites(on bool) Option { return func(s *Store) { s.groupWrites = on } }

// ExistingOnly refuses to create a SQLite database file that is not there
// (Open fails with ErrNoDatabase and creates nothing): for commands that
// only read a database made before, where a mistyped path would otherwise
// make an empty one.
func ExistingOnly() Option { return func(s *Store) { s.mustExist = true } }

// ErrNoDatabase is Open's error for a missing file under ExistingOnly.
var ErrNoDatabase = errors.New("no such database")

// Open connects to the database named by a URL (sqlite://PATH or
// postgres://...) and migrates its schema.
func Open(ctx context.Context, rawURL string, opts ...Option) (*Store, error) {
	s := &Store{now: time.Now, groupWrites: true, steps: newStepCache(), settings: newSettingsCache(), durations: newDurationCache(), grants: newMemo[string, epochGrant](grantCacheSize),
		uses: newMemo[string, time.Time](grantCacheSize)}
	for _, o := range opts {
		o(s)
	}
	var err error
	switch {
	case strings.HasPrefix(rawURL, "sqlite://"):
		err = s.openSQLite(ctx, strings.TrimPrefix(rawURL, "sqlite://"))
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		err = s.openPostgres(ctx, rawURL)
	default:
		return nil, fmt.Errorf("database URL %q: want sqlite://PATH or postgres://…", redact(rawURL))
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	s.creates, s.patches = newCreateWriter(s), newPatchWriter(s)
	return s, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	if s.creates != nil {
		s.creates.close()
		s.patches.close()
	}
	if s.batcher != nil {
		s.batcher.close()
	}
	var errs []error
	if s.writer != nil {
		errs = append(errs, s.writer.Close())
	}
	if s.reader != nil && s.reader != s.writer {
		errs = append(errs, s.reader.Close())
	}
	return errors.Join(errs...)
}

// Ping checks that the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error { return s.reader.PingContext(ctx) }

// Dialect names the database: "sqlite" or "postgres".
func (s *Store) Dialect() string {
	if s.dialect == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

func (s *Store) openSQLite(ctx context.Context, path string) error {
	s.dialect = sqliteDialect
	if path == "" {
		return errors.New("sqlite:// needs a path (or :memory:)")
	}
	// synchronous(FULL): a commit returns once its log frames are on disk,
	// so a job or event that was answered survives a power cut, not only
	// the process's crash (NORMAL). Writes commit in groups (see batcher),
	// so the sync is paid once a group.
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)"
	if path == ":memory:" {
		// A private in-memory database lives in one connection, so reads and
		// writes share it (tests only).
		db, err := sql.Open("sqlite", "file::memory:?_txlock=immediate&"+pragmas)
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		db.SetConnMaxLifetime(0)
		s.writer, s.reader = db, db
		s.writeStmts = &stmtCache{db: db}
		s.readStmts = s.writeStmts
		if err := s.migrate(ctx, ""); err != nil {
			return err
		}
		s.batcher = newBatcher(s)
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); s.mustExist && errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sqlite://%s: %w (the file %s does not exist)", path, ErrNoDatabase, abs)
	}
	file := "file:" + (&url.URL{Path: abs}).EscapedPath()
	// The writer's temporary storage is in memory: each write of a group
	// runs in a savepoint (see batcher), and the savepoints' sub-journal
	// would otherwise spill to a temporary file past 64 KiB, a pwrite per
	// page: a fifth of the writer's time in a create.
	w, err := sql.Open("sqlite", file+"?_txlock=immediate&_pragma=journal_mode(WAL)&_pragma=temp_store(MEMORY)&"+pragmas)
	if err != nil {
		return err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	s.writer = w
	if err := s.migrate(ctx, abs+".migrate.lock"); err != nil {
		return err
	}
	r, err := sql.Open("sqlite", file+"?_pragma=query_only(1)&"+pragmas)
	if err != nil {
		return err
	}
	n := max(16, runtime.GOMAXPROCS(0)*8)
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	s.reader = r
	s.writeStmts, s.readStmts = &stmtCache{db: w}, &stmtCache{db: r}
	s.batcher = newBatcher(s)
	return nil
}

func (s *Store) openPostgres(ctx context.Context, rawURL string) error {
	s.dialect = postgresDialect
	db, err := sql.Open("pgx", rawURL)
	if err != nil {
		return err
	}
	n := max(16, runtime.GOMAXPROCS(0)*8)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s.writer, s.reader = db, db
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("connect to PostgreSQL %s: %w", redact(rawURL), err)
	}
	return s.migrate(ctx, "")
}

// migrate applies the embedded migrations of the dialect. Several processes
// may start at once: PostgreSQL serialises them with goose's advisory lock,
// SQLite with an exclusive lock on a file beside the database.
func (s *Store) migrate(ctx context.Context, lockFile string) error {
	sub, err := fs.Sub(migrations, "migrations/"+s.Dialect())
	if err != nil {
		return err
	}
	var opts []goose.ProviderOption
	gd := goose.DialectSQLite3
	if s.dialect == postgresDialect {
		gd = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	if lockFile != "" {
		unlock, err := lockPath(lockFile)
		if err != nil {
			return fmt.Errorf("lock %s: %w", lockFile, err)
		}
		defer unlock()
	}
	p, err := goose.NewProvider(gd, s.writer, sub, opts...)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate the %s schema: %w", s.Dialect(), err)
	}
	return nil
}

// Migrate is what `workshop migrate` runs: Open already migrated, so it
// reports the version reached.
func (s *Store) Migrate(ctx context.Context) (int64, error) {
	var v int64
	err := s.reader.QueryRowContext(ctx, "SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied").Scan(&v)
	return v, err
}

func lockPath(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// redact hides a password in a database URL.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// q rewrites ? placeholders to $1, $2, ... for PostgreSQL (once per query
// text). The queries of this package have no ? inside string literals.
func (s *Store) q(query string) string {
	if s.dialect != postgresDialect {
		return query
	}
	if v, ok := s.rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	s.rebound.Store(query, out)
	return out
}

// VacuumAnalyze vacuums PostgreSQL's tables and refreshes its planner
// statistics at once, as autovacuum does as tables grow and change
// (nothing on SQLite, whose plans take no statistics here). A bench calls
// it after seeding: on a server with autovacuum off, a table seeded with
// 120,000 rows is still planned as if it had none (the step write's count
// of a group's steps read every step instead of the job_id index), and
// the index of the open jobs still holds every delivered job's open
// version.
func (s *Store) VacuumAnalyze(ctx context.Context) error {
	if s.dialect != postgresDialect {
		return nil
	}
	_, err := s.writer.ExecContext(ctx, `VACUUM ANALYZE`)
	return err
}
