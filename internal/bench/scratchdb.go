package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// scratchDatabase is a database of the bench's own, made beside the one
// named and removed after: the bench migrates and fills what it is given
// (100,000 jobs for the search), so the database a URL names is never
// written into, nor the figures of one scenario weighed down by the rows
// of the one before. With no URL it is a SQLite file in a temporary
// directory; with sqlite://PATH one in a new directory beside PATH (to
// measure on that disk); with postgres://… a new database on that
// server, the one named serving only to connect with.
func scratchDatabase(ctx context.Context, base, prefix string) (string, func(), error) {
	switch {
	case base == "", strings.HasPrefix(base, "sqlite://"):
		dir := "" // the system's temporary directory
		if base != "" {
			dir = filepath.Dir(strings.TrimPrefix(base, "sqlite://"))
		}
		// A directory of its own holds the file and what SQLite and the
		// migrations put beside it (-wal, -shm, the migration lock).
		own, err := os.MkdirTemp(dir, prefix+"-")
		if err != nil {
			return "", nil, err
		}
		return "sqlite://" + filepath.Join(own, prefix+".db"), func() { os.RemoveAll(own) }, nil
	case strings.HasPrefix(base, "postgres://"), strings.HasPrefix(base, "postgresql://"):
		// An id is lower-case letters and digits: a name PostgreSQL takes unquoted.
		return scratchPostgres(ctx, base, strings.ReplaceAll(prefix, "-", "_")+"_"+workshop.NewID(""))
	}
	return "", nil, fmt.Errorf("bench: database URL %q: want sqlite://PATH or postgres://…", base)
}

// scratchPostgres creates database name on base's server and returns its
// URL and what drops it.
func scratchPostgres(ctx context.Context, base, name string) (string, func(), error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("bench: database URL: %w", err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("bench: a database of its own on that server: %w", err)
	}
	u.Path = "/" + name
	return u.String(), func() {
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	}, nil
}
