package main

import (
	"context"
	"database/sql"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestLongRequestsStopWhenTheClientLeaves: a read that can run long (a
// list scan, a search, the board, the timesheet CSV, an MCP tool) stops
// when its client goes away (issue 43, F1). The test holds an exclusive
// lock on the table the request reads, so the request's query waits in
// PostgreSQL for as long as the lock is held; once that query is seen
// waiting, the client cancels. The observable is the server's own log
// line of the request, written when its handler returns: it must come,
// with status 499 (abandoned), while the lock is still held, so the
// query was cancelled in the database and nothing waited on. A handler
// deaf to its context would log nothing until the lock is released.
//
// PostgreSQL only: nothing outside the server can make a SQLite read wait
// (readers of a WAL database never wait for a lock). On SQLite the same
// handlers run the same store code under the same context, and
// store.TestReadsStopWhenCancelled shows the driver interrupting a
// running statement.
func TestLongRequestsStopWhenTheClientLeaves(t *testing.T) {
	t.Parallel()
	dbURL := storetest.PostgresURL(t)
	w := newWorld(t, dbURL)
	a := w.org("Alpha Motors", workshop.PlanPro, 1)
	loc := a.Locations[0].ID
	appUser(t, w, a.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	token, err := w.op.CreateMCPToken(t.Context(), a.Owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	job := w.job(a.ID, loc)
	srv := startServer(t, dbURL)
	staff := newBrowser(t, srv.URL)
	staff.login("advisor@example.com", testPassword, "").want(t, "sign in", http.StatusSeeOther, "")
	bearer := func(key string) func(r *http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+key) }
	}
	mcpCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_jobs","arguments":{"locationId":"` + loc + `"}}}`
	for _, tc := range []struct {
		name, table  string
		method, path string
		body         string
		client       *http.Client
		prepare      func(r *http.Request)
	}{
		{"API job list", "jobs", "GET", "/v1/scheduler/jobs?locationId=" + loc, "", http.DefaultClient, bearer(a.Key.Key)},
		{"API board", "jobs", "GET", "/v1/scheduler/board?locationId=" + loc, "", http.DefaultClient, bearer(a.Key.Key)},
		{"API attendance", "attendance", "GET", "/v1/scheduler/attendance?locationId=" + loc, "", http.DefaultClient, bearer(a.Key.Key)},
		{"API job detail", "jobs", "GET", "/v1/scheduler/jobs/" + job.ID + "/detail", "", http.DefaultClient, bearer(a.Key.Key)},
		{"app job page", "jobs", "GET", "/jobs/" + job.ID, "", staff.c, nil},
		{"app job search", "jobs", "GET", "/locations/" + loc + "/jobs?q=B-DM", "", staff.c, nil},
		{"app board", "jobs", "GET", "/locations/" + loc + "/board", "", staff.c, nil},
		{"app timesheet CSV", "attendance", "GET", "/locations/" + loc + "/timesheets.csv?period=week", "", staff.c, nil},
		{"MCP list_jobs", "jobs", "POST", "/mcp", mcpCall, http.DefaultClient, func(r *http.Request) {
			bearer(token.Token)(r)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lock := storetest.RawDB(t, dbURL)
			tx, err := lock.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback() //nolint:errcheck // releases the lock
			if _, err := tx.Exec("LOCK TABLE " + tc.table + " IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			before := lockWaiters(t, lock, tc.table)
			ctx, leave := context.WithCancel(t.Context())
			defer leave()
			req, err := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.prepare != nil {
				tc.prepare(req)
			}
			answered := make(chan string, 1)
			go func() {
				res, err := tc.client.Do(req)
				if err == nil {
					res.Body.Close()
					answered <- res.Status
					return
				}
				answered <- err.Error()
			}()
			path, _, _ := strings.Cut(tc.path, "?")
			within := func(what string, cond func() bool) {
				t.Helper()
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				if !waitUntil(ctx, cond) {
					t.Fatalf("waited 30 s for %s", what)
				}
			}
			// The request's query is a waiter that was not there before.
			// The server's own background work (the promise watch, the
			// retention sweep) may read the same table and wait too, so
			// queries are told apart by backend and start time, and the
			// request's one query must leave the waiters first seen here
			// while the others keep waiting for the lock.
			var mine []lockWaiter
			within("the request's query waiting for the lock on "+tc.table, func() bool {
				mine = newWaiters(before, lockWaiters(t, lock, tc.table))
				return len(mine) > 0
			})
			leave()
			if got := <-answered; !strings.Contains(got, "context canceled") {
				t.Fatalf("the client got %q, want its own cancellation", got)
			}
			var line map[string]any
			within("the request's log line (its handler returned) while the lock is held", func() bool {
				line = logLineOf(t, srv.Log.Lines, path)
				return line != nil
			})
			if line["status"] != float64(499) || line["msg"] != "request abandoned: the client went away" || line["level"] != "INFO" {
				t.Errorf("log line %v, want status 499, abandoned, at info", line)
			}
			within("no query of the request left waiting in the database", func() bool {
				now := lockWaiters(t, lock, tc.table)
				return slices.ContainsFunc(mine, func(w lockWaiter) bool { return !slices.Contains(now, w) })
			})
		})
	}
}

// lockWaiter is one query waiting for a lock: its backend and when the
// query began, which together tell one query from the next on a pooled
// connection.
type lockWaiter struct {
	pid   int
	since time.Time
}

// lockWaiters are the database's queries waiting for a lock that name
// table.
func lockWaiters(t *testing.T, db *sql.DB, table string) []lockWaiter {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT pid, query_start FROM pg_stat_activity WHERE datname = current_database()
		AND wait_event_type = 'Lock' AND query ILIKE '%' || $1 || '%' ORDER BY pid`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var waiters []lockWaiter
	for rows.Next() {
		var w lockWaiter
		if err := rows.Scan(&w.pid, &w.since); err != nil {
			t.Fatal(err)
		}
		waiters = append(waiters, w)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return waiters
}

// newWaiters are the waiters in now that were not in before.
func newWaiters(before, now []lockWaiter) []lockWaiter {
	var fresh []lockWaiter
	for _, w := range now {
		if !slices.Contains(before, w) {
			fresh = append(fresh, w)
		}
	}
	return fresh
}

// logLineOf is the server's log line of the request to path, nil before
// there is one.
func logLineOf(t *testing.T, lines func() ([]map[string]any, error), path string) map[string]any {
	t.Helper()
	all, err := lines()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range all {
		if l["path"] == path && l["status"] != nil {
			return l
		}
	}
	return nil
}
