package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/workshop-platform/workshop/internal/store"
)

// backupCmd is `workshop backup --database sqlite://PATH --to FILE`: a
// consistent copy of a SQLite database, taken while servers write to it,
// checked before it is reported ({"path","bytes","takenAt"}).
func backupCmd(ctx context.Context, args []string, getenv env, stdout io.Writer) error {
	fs := newFlags("backup")
	db := databaseFlag(fs, getenv)
	to := fs.String("to", "", "the backup file to write (must not exist)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", rest[0])}
	}
	if *to == "" {
		return usageError{errors.New("give the backup file with --to FILE")}
	}
	st, err := store.Open(ctx, *db, store.ExistingOnly())
	if err != nil {
		return err
	}
	defer st.Close()
	f, err := st.Backup(ctx, *to)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(f)
}

// restoreCmd is `workshop restore --from FILE --database sqlite://PATH`:
// the backup, checked, in place of the database, which no process may
// have open ({"path","restoredFrom"}).
func restoreCmd(ctx context.Context, args []string, getenv env, stdout io.Writer) error {
	fs := newFlags("restore")
	db := databaseFlag(fs, getenv)
	from := fs.String("from", "", "the backup file to restore")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", rest[0])}
	}
	if *from == "" {
		return usageError{errors.New("give the backup file with --from FILE")}
	}
	if err := store.Restore(ctx, *from, *db); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]string{"database": *db, "restoredFrom": *from})
}
