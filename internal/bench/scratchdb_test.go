package bench

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// The bench fills a database of its own beside the one it is given, and
// removes it after: the one named keeps its rows and gains none.
func TestScratchDatabaseLeavesTheNamedOneAlone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		named := storetest.Open(t, db.URL)
		if _, err := operator.New(named).CreateOrg(ctx, "Kept Motors", "pro"); err != nil {
			t.Fatal(err)
		}
		scratch, drop, err := scratchDatabase(ctx, db.URL, "workshop-bench")
		if err != nil {
			t.Fatalf("scratchDatabase: %v", err)
		}
		if scratch == db.URL {
			t.Fatalf("scratchDatabase gave the named database %s", scratch)
		}
		st, err := store.Open(ctx, scratch)
		if err != nil {
			drop()
			t.Fatalf("open the scratch database: %v", err)
		}
		_, err = operator.New(st).CreateOrg(ctx, "Bench Motors", "pro")
		st.Close()
		drop()
		if err != nil {
			t.Fatal(err)
		}
		orgs, err := named.Orgs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(orgs) != 1 || orgs[0].Name != "Kept Motors" {
			t.Errorf("the named database's orgs after a bench: got %+v, want Kept Motors alone", orgs)
		}
		if exists(t, db, scratch) {
			t.Errorf("the scratch database %s is still there after its drop", scratch)
		}
	})
}

// exists tells whether the database at rawURL is still there.
func exists(t *testing.T, db storetest.Database, rawURL string) bool {
	t.Helper()
	if db.Name == "sqlite" {
		_, err := os.Stat(strings.TrimPrefix(rawURL, "sqlite://"))
		return err == nil
	}
	admin, err := sql.Open("pgx", db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := rawURL[strings.LastIndexByte(rawURL, '/')+1:]
	name, _, _ = strings.Cut(name, "?")
	var n int
	if err := admin.QueryRow(`SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}
