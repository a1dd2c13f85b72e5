package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/workshop-platform/workshop/internal/store"
)

// migrate applies the schema (opening the store does) and prints the
// version reached.
func migrate(ctx context.Context, args []string, getenv env, stdout io.Writer) error {
	fs := newFlags("migrate")
	db := databaseFlag(fs, getenv)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"database": st.Dialect(), "schemaVersion": v})
}
