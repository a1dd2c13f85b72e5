package main

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// TestServePortInUse: a serve whose port is taken fails with a message
// naming the address before it opens the database: no SQLite file is
// made, no PostgreSQL table is created.
func TestServePortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() }) // after the parallel subtests, not when this function returns
	storetest.EachEmpty(t, func(t *testing.T, db storetest.Database) {
		r := runCmd(t, nil, "serve", "--addr", ln.Addr().String(), "--database", db.URL)
		if r.code != 1 || !strings.Contains(r.stderr, "--addr "+ln.Addr().String()+": cannot listen there") {
			t.Errorf("got exit %d, stderr %q; want 1 and a message naming the address", r.code, r.stderr)
		}
		if path, ok := strings.CutPrefix(db.URL, "sqlite://"); ok {
			wantNoFile(t, path)
			return
		}
		var tables int
		if err := storetest.RawDB(t, db.URL).QueryRowContext(t.Context(),
			`SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables); err != nil || tables != 0 {
			t.Errorf("the database holds %d tables (%v), want none", tables, err)
		}
	})
}

// TestCommandsRefuseMissingDatabase: workshop mcp and workshop admin act
// on an existing database; a path with no file fails clearly and creates
// none (a typo must not answer {"data":[]} from an empty new database).
// Only the first commands of a new install, org create and demo, make one.
func TestCommandsRefuseMissingDatabase(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"mcp", "--token", "wsm_whatever"},
		{"admin", "org", "list"},
		{"admin", "location", "create", "--org", "org_x", "--name", "Berlin", "--timezone", "Europe/Berlin"},
		{"admin", "key", "create", "--user", "usr_x"},
		{"admin", "settings", "set", "--location", "loc_x", "--bay-buffer", "5"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "typo.db")
			r := runCmd(t, nil, append(args, "--database", "sqlite://"+path)...)
			if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "does not exist") {
				t.Errorf("got exit %d, stdout %q, stderr %q; want 1, nothing, a message that the database does not exist", r.code, r.stdout, r.stderr)
			}
			wantNoFile(t, path)
			if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
				t.Errorf("the directory holds %v (%v), want nothing", entries, err)
			}
		})
	}
}

// TestAdminMissingRequiredFlag: a required flag left out is a mistake in
// the command line (exit 2, naming it), checked before the database is.
func TestAdminMissingRequiredFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		missing string
	}{
		{[]string{"org", "create"}, "--name"},
		{[]string{"location", "create", "--org", "org_x", "--name", "Berlin"}, "--timezone"},
		{[]string{"key", "create"}, "--user"},
		{[]string{"technician", "list"}, "--location"},
		{[]string{"settings", "set", "--hours", "mon=08:00-17:00"}, "--location"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runCmd(t, nil, append(append([]string{"admin"}, tc.args...), "--database", "sqlite://"+filepath.Join(t.TempDir(), "none.db"))...)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.missing) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want 2 naming %s", r.code, r.stdout, r.stderr, tc.missing)
			}
		})
	}
}

func wantNoFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: stat error %v, want the file not to exist", path, err)
	}
}
