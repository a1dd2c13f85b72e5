package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestKilledAttemptsMadeAgainWithinSeconds: two `workshop serve` processes
// on PostgreSQL; the first holds attempts in flight (its receiver does not
// answer; its timeout is long), and while it lives the second does not take
// them (the leases are renewed, past their length). The first is killed
// with SIGKILL: the second makes each held attempt again within 10 s of
// the kill, as the same delivery with the next attempt number, and no event
// gets a second delivery.
func TestKilledAttemptsMadeAgainWithinSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("holds attempts past their lease: the full run tests it")
	}
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		if db.Name != "postgres" {
			t.Skip("several serve processes share a database on PostgreSQL")
		}
		w := newWorld(t, db.URL)
		org := w.org("Lease Motors", workshop.PlanPro, 1)
		loc := org.Locations[0].ID
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		const path = "/lease"
		w.webhookTo(org.ID, "", rcv.URL+path)
		hold := make(chan struct{})
		t.Cleanup(func() {
			select {
			case <-hold:
			default:
				close(hold)
			}
		})
		var mu sync.Mutex
		held := map[string]int{} // delivery -> attempt, in flight
		inFlight := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(held)
		}
		rcv.Set(path, func(h *webhookstest.Hit) webhookstest.Answer {
			mu.Lock()
			defer mu.Unlock()
			held[h.Delivery] = h.Attempt
			return webhookstest.Answer{Status: http.StatusOK, Block: hold}
		})
		long := []string{"--webhook-timeout", "60s"}
		first := startServeProcess(t, db.URL, long...)
		client := &http.Client{Timeout: 30 * time.Second}
		const jobs = 5
		for i := range jobs {
			r := mpCreateJob(client, first.base, org.Key.Key, map[string]any{"locationId": loc, "vehiclePlate": fmt.Sprint("L-", i)})
			if r.err != nil || r.status != http.StatusCreated {
				t.Fatalf("create job: %d %v", r.status, r.err)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		if !waitUntil(ctx, func() bool { return inFlight() >= jobs }) {
			t.Fatalf("%d attempts in flight, want %d:\n%s", inFlight(), jobs, first.log())
		}

		// The second process runs past the leases' length: the renewed
		// leases keep it off the attempts still running.
		second := startServeProcess(t, db.URL, long...)
		past := time.Now().Add(8 * time.Second) // the lease is 5 s
		waited, cancelWait := context.WithDeadline(ctx, past)
		if waitUntil(waited, func() bool { return rcv.Received(path) > jobs }) {
			t.Fatalf("an attempt held by a living process was made again (%d attempts):\n%s", rcv.Received(path), second.log())
		}
		cancelWait()

		rcv.Set(path, webhookstest.OK())
		mu.Lock()
		if len(held) != jobs || rcv.Received(path) != jobs {
			t.Fatalf("%d deliveries in flight, %d attempts; want %d each", len(held), rcv.Received(path), jobs)
		}
		mu.Unlock()
		first.kill()
		killed := time.Now()
		close(hold) // the receiver lets the dead process's requests go

		for id, attempt := range held {
			var again *webhookstest.Hit
			if _, err := rcv.Wait(ctx, path, func(hs []*webhookstest.Hit) bool {
				for _, h := range hs {
					if h.Delivery == id && h.Attempt > attempt && h.Status == http.StatusOK {
						again = h
						return true
					}
				}
				return false
			}); err != nil {
				t.Fatalf("delivery %s: not made again after the kill: %v\n%s", id, err, second.log())
			}
			if again.Attempt != attempt+1 {
				t.Errorf("delivery %s: made again as attempt %d, want %d", id, again.Attempt, attempt+1)
			}
			if d := again.At.Sub(killed); d > 10*time.Second {
				t.Errorf("delivery %s: made again %s after the kill, want within 10 s", id, d.Round(time.Millisecond))
			}
		}
		perEvent := map[string]map[string]bool{}
		for _, h := range rcv.Hits(path) {
			if perEvent[h.EventID] == nil {
				perEvent[h.EventID] = map[string]bool{}
			}
			perEvent[h.EventID][h.Delivery] = true
		}
		for ev, ds := range perEvent {
			if len(ds) != 1 {
				t.Errorf("event %s: %d deliveries, want 1", ev, len(ds))
			}
		}
	})
}
