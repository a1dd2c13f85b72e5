package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/backup"
	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A backup taken while jobs are being written holds every job whose
// create was answered before the backup began; restored into a new file it
// is served. A restore over a database a server has open is refused.
func TestBackupUnderWriteLoadRestores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	liveURL := "sqlite://" + filepath.Join(dir, "live.db")
	w := newWorld(t, liveURL)
	a := w.org("Alpha Motors", workshop.PlanPro, 1)
	srv := startServer(t, liveURL)

	// The load: writers creating a bounded number of jobs each.
	const writers, jobsEach = 4, 40
	var mu sync.Mutex
	var acked []string
	firstAcks := make(chan struct{})
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range jobsEach {
				r, err := apitest.Send(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: a.Key.Key,
					Body: fmt.Sprintf(`{"locationId":%q,"vehiclePlate":"B-BK %d-%d"}`, a.Locations[0].ID, i, n)})
				if err != nil || r.Status != 201 {
					t.Errorf("create: %v %v", err, r)
					return
				}
				var job struct{ ID string }
				r.Decode(t, &job)
				mu.Lock()
				acked = append(acked, job.ID)
				if len(acked) == writers*jobsEach/2 { // the backup begins mid-load
					close(firstAcks)
				}
				mu.Unlock()
			}
		}()
	}
	<-firstAcks
	mu.Lock()
	before := append([]string(nil), acked...) // every job answered before the backup began
	mu.Unlock()
	backupFile := filepath.Join(dir, "backup.db")
	out := runCmd(t, nil, "backup", "--database", liveURL, "--to", backupFile).object(t)
	wg.Wait()
	if b, _ := out["bytes"].(float64); out["path"] != backupFile || b <= 0 {
		t.Errorf("backup printed %v, want its path %s and size", out, backupFile)
	}
	mu.Lock()
	total := len(acked)
	mu.Unlock()

	if r := runCmd(t, nil, "restore", "--from", backupFile, "--database", liveURL); r.code != 1 || !strings.Contains(r.stderr, "in use") {
		t.Errorf("restore over the served database: exit %d, stderr %q; want 1, in use", r.code, r.stderr)
	}
	restoredURL := "sqlite://" + filepath.Join(dir, "restored.db")
	runCmd(t, nil, "restore", "--from", backupFile, "--database", restoredURL).object(t)
	restored := startServer(t, restoredURL)
	missing := 0
	for _, id := range before {
		if r := apitest.Call(t, restored.URL, apitest.Request{Method: "GET", Path: "/v1/scheduler/jobs/" + id, Key: a.Key.Key}); r.Status != 200 {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of the %d jobs answered before the backup began are missing from the restore", missing, len(before))
	}
	t.Logf("%d jobs answered before the backup began, %d in all during the load", len(before), total)
}

// Scheduled backups: one at start and one every interval, the newest kept,
// the last one's time and size in /metrics; one that fails is logged at
// error and counted, and /readyz stays green.
func TestScheduledBackups(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocked := filepath.Join(dir, "not-a-directory")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, backupDir string
		fails           bool
	}{
		{"into a directory", filepath.Join(dir, "backups"), false},
		{"into a path that cannot be a directory", filepath.Join(blocked, "backups"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dbURL := "sqlite://" + filepath.Join(t.TempDir(), "live.db")
			newWorld(t, dbURL)
			srv := apitest.Start(t, dbURL, func(ctx context.Context, c apitest.Config) error {
				sc := testServeConfig(c)
				sc.backups = backup.Schedule{Dir: tc.backupDir, Every: 20 * time.Millisecond, Keep: 2}
				return serveWith(ctx, sc, io.Discard, c.Log)
			})
			want := "workshop_backup_last_size_bytes "
			if tc.fails {
				want = "workshop_backup_failures_total "
			}
			deadline := time.Now().Add(30 * time.Second)
			var metrics string
			for {
				metrics = string(apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/metrics"}).Body)
				files, _ := filepath.Glob(filepath.Join(tc.backupDir, "workshop-*.db"))
				enough := tc.fails || len(files) == 2
				if strings.Contains(metrics, want) && !strings.Contains(metrics, want+"0\n") && enough || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond) // polling a condition: the next backup
			}
			if !strings.Contains(metrics, want) || strings.Contains(metrics, want+"0\n") {
				t.Fatalf("metrics: want %s above 0, got\n%s", want, metrics)
			}
			if r := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/readyz"}); r.Status != http.StatusOK {
				t.Errorf("/readyz: got %d, want 200", r.Status)
			}
			if logged := strings.Contains(srv.Log.String(), `"level":"ERROR","msg":"backup failed"`); logged != tc.fails {
				t.Errorf("an error logged: got %v, want %v; log:\n%s", logged, tc.fails, srv.Log)
			}
			if !tc.fails {
				// Stopped, the server takes no more backups: at 20 ms apart,
				// one found here could otherwise be pruned before it is
				// checked (CI, session 8).
				if err := srv.Stop(); err != nil {
					t.Fatal(err)
				}
				files, _ := filepath.Glob(filepath.Join(tc.backupDir, "workshop-*.db"))
				if len(files) != 2 {
					t.Errorf("backups kept: got %v, want the newest 2", files)
				}
				for _, f := range files {
					if err := store.CheckSQLiteFile(t.Context(), f); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}
