package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BackupFile is a backup written: where, how large, when it was taken.
type BackupFile struct {
	Path    string    `json:"path"`
	Bytes   int64     `json:"bytes"`
	TakenAt time.Time `json:"takenAt"`
}

// errPostgresBackup answers a backup or restore asked of PostgreSQL, which
// has its own tools.
var errPostgresBackup = errors.New("backup and restore are for SQLite; back PostgreSQL up with pg_dump (and restore with pg_restore)")

// Backup writes a consistent copy of the SQLite database to path, which
// must not exist, while the database stays in use: VACUUM INTO copies one
// read transaction's snapshot (writers go on, under WAL), into a file
// beside path that is renamed to path only once PRAGMA integrity_check
// found it sound. A backup holds every write committed before it began.
func (s *Store) Backup(ctx context.Context, path string) (BackupFile, error) {
	if s.dialect != sqliteDialect {
		return BackupFile{}, errPostgresBackup
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return BackupFile{}, err
	}
	if _, err := os.Stat(abs); !errors.Is(err, fs.ErrNotExist) {
		return BackupFile{}, fmt.Errorf("backup to %s: the file exists; give a new name", abs)
	}
	taken := s.now().UTC()
	partial := abs + ".partial"
	_ = os.Remove(partial) // a previous attempt's, never a backup
	if err := s.vacuumInto(ctx, partial); err != nil {
		_ = os.Remove(partial)
		return BackupFile{}, fmt.Errorf("backup to %s: %w", abs, err)
	}
	if err := CheckSQLiteFile(ctx, partial); err != nil {
		_ = os.Remove(partial)
		return BackupFile{}, err
	}
	if err := os.Rename(partial, abs); err != nil {
		return BackupFile{}, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return BackupFile{}, err
	}
	return BackupFile{Path: abs, Bytes: info.Size(), TakenAt: taken}, nil
}

// vacuumInto copies the database into a new file on a connection of its
// own: the readers are query_only, which VACUUM INTO is refused on, and
// the writer must go on writing meanwhile.
func (s *Store) vacuumInto(ctx context.Context, to string) error {
	var main string
	if err := s.reader.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&main); err != nil {
		return err
	}
	if main == "" {
		return errors.New("an in-memory database has no file to back up")
	}
	db, err := sql.Open("sqlite", sqliteFileURI(main)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, to)
	return err
}

// CheckSQLiteFile runs PRAGMA integrity_check on a database file, read
// only: nil when SQLite finds it sound.
func CheckSQLiteFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", sqliteFileURI(path)+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("%s is not a SQLite database: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s is not a sound SQLite database: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s failed its integrity check: %s", path, strings.Join(problems, "; "))
	}
	return nil
}

// Restore puts the backup from in place of the SQLite database of
// databaseURL, refusing one in use: a process that has it open (a serve)
// holds a lock that an exclusive transaction cannot take. The backup is
// checked first, copied beside the database and renamed over it; the old
// database's write-ahead log goes with it, so that none of it is replayed
// into the restored one.
func Restore(ctx context.Context, from, databaseURL string) error {
	path, ok := strings.CutPrefix(databaseURL, "sqlite://")
	if !ok {
		if strings.HasPrefix(databaseURL, "postgres") {
			return errPostgresBackup
		}
		return fmt.Errorf("database URL %q: want sqlite://PATH", redact(databaseURL))
	}
	if path == "" || path == ":memory:" {
		return errors.New("restore needs a database file: sqlite://PATH")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := CheckSQLiteFile(ctx, from); err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	if err := refuseInUse(ctx, abs); err != nil {
		return err
	}
	partial := abs + ".partial"
	if err := copyFile(from, partial); err != nil {
		_ = os.Remove(partial)
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(abs + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return os.Rename(partial, abs)
}

// refuseInUse fails when another connection has the database at path open.
func refuseInUse(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil // nothing there to be in use
	}
	db, err := sql.Open("sqlite", sqliteFileURI(path)+"?_pragma=busy_timeout(0)&_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		return fmt.Errorf("%s is in use (a workshop serve or another process has it open): stop it before restoring over it (%w)", path, err)
	}
	_, err = conn.ExecContext(ctx, `COMMIT`)
	return err
}

// copyFile copies from to a new file to, synced to disk.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// sqliteFileURI is the file: URI of a path, escaped.
func sqliteFileURI(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath()
}
