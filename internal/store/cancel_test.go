package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"modernc.org/sqlite"
)

// rowsStepped counts the rows a statement calling workshop_test_step(x)
// went through, on every SQLite connection opened after the function was
// registered.
var (
	rowsStepped  atomic.Int64
	registerStep sync.Once
)

// A read whose context ends while its statement runs on SQLite stops at
// once, the statement interrupted (the driver calls sqlite3_interrupt),
// rather than running to its end: what lets every long request stop when
// its client leaves (cmd/workshop's TestLongRequestsStopWhenTheClientLeaves
// shows it end to end on PostgreSQL). The statement counts to a billion,
// minutes of work; it is seen running by the rows it counts, and the read
// must return, cancelled, while it is far from done.
func TestSQLiteReadsStopWhenCancelled(t *testing.T) {
	t.Parallel()
	registerStep.Do(func() {
		sqlite.MustRegisterScalarFunction("workshop_test_step", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			rowsStepped.Add(1)
			return args[0], nil
		})
	})
	s, err := Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "cancel.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const billion = 1_000_000_000
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	start := rowsStepped.Load()
	go func() {
		var n int64
		err := s.read().queryRow(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
			SELECT count(workshop_test_step(x)) FROM c`, billion).Scan(&n)
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for rowsStepped.Load()-start < 1000 {
		if time.Now().After(deadline) {
			t.Fatal("the statement did not start within 30 s")
		}
		time.Sleep(time.Millisecond) // polling a condition: the count rises once the statement runs
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled read returned %v, want it cancelled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled read still runs after 30 s")
	}
	if n := rowsStepped.Load() - start; n >= billion {
		t.Errorf("the statement counted %d rows: it ran to its end", n)
	}
}
