package store_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestSweepCustomerData: only the customer fields of jobs closed longer
// ago than the retention are erased, once (two processes' sweeps of the
// same day do it once), each with job.updated, and in the job's earlier
// events too; a location mid-close waits for its close.
func TestSweepCustomerData(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		ctx := t.Context()
		other := store.Visibility{OrgID: e.org.ID}
		second := storetest.Open(t, db.URL, db.Options...) // a second process on the same database
		withCustomer := func(j *workshop.Job) {
			j.CustomerName, j.CustomerPhone, j.CustomerEmail = refOf("Maria Lopez"), refOf("+49 30 1234"), refOf("maria@example.com")
		}
		old := e.createJob(t, e.loc.ID, withCustomer)
		recent := e.createJob(t, e.loc.ID, withCustomer)
		open := e.createJob(t, e.loc.ID, withCustomer)
		if _, err := e.st.DeliverJob(ctx, other, old.ID, e.now()); err != nil {
			t.Fatal(err)
		}
		e.setClock(e.clk.Now().Add(20 * 24 * time.Hour))
		if _, err := e.st.DeliverJob(ctx, other, recent.ID, e.now()); err != nil {
			t.Fatal(err)
		}
		e.keepCustomerData(t, 30)
		e.setClock(e.clk.Now().Add(11 * 24 * time.Hour)) // old closed 31 days ago, recent 11
		e.events(t)

		e.exec(t, `UPDATE locations SET day_state = ? WHERE id = ?`, workshop.DayClosing, e.loc.ID)
		got, err := e.st.SweepCustomerData(ctx, e.clk.Now())
		if err != nil || got.Waiting != 1 || got.Jobs != 0 {
			t.Errorf("sweep mid-close: got %+v, %v; want the location waiting", got, err)
		}
		e.exec(t, `UPDATE locations SET day_state = ? WHERE id = ?`, workshop.DayOpen, e.loc.ID)

		first, err := e.st.SweepCustomerData(ctx, e.clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		again, err := second.SweepCustomerData(ctx, e.clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		if first.Jobs != 1 || again.Jobs != 0 || again.Locations != 0 {
			t.Errorf("sweeps: first %+v, second process %+v; want one job erased once", first, again)
		}
		list := e.wantEvents(t, "sweep", workshop.EventJobUpdated)
		if len(list) == 1 {
			data := eventData(t, list[0])
			if data["id"] != old.ID || data["customer_name"] != nil || data["customer_email"] != nil || data["customer_phone"] != nil {
				t.Errorf("job.updated data: %v, want %s with the customer fields null", data, old.ID)
			}
		}
		if j := e.job(t, old.ID); workshop.HasCustomer(j) {
			t.Errorf("old job after the sweep: %v %v %v, want no customer data", j.CustomerName, j.CustomerPhone, j.CustomerEmail)
		}
		for _, id := range []string{recent.ID, open.ID} {
			if j := e.job(t, id); !workshop.HasCustomer(j) {
				t.Errorf("job %s (%s) lost its customer data", id, j.Status)
			}
		}
		earlier, err := e.st.EventsAfter(ctx, 0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range earlier {
			data := eventData(t, ev)
			if data["id"] == old.ID && (data["customer_name"] != nil || data["customer_phone"] != nil || data["customer_email"] != nil) {
				t.Errorf("event %s %s still carries customer data: %v", ev.Name, ev.ID, data)
			}
			if data["id"] == recent.ID && ev.Name == workshop.EventJobCreated && data["customer_name"] != "Maria Lopez" {
				t.Errorf("event %s of the recent job lost its customer data: %v", ev.Name, data)
			}
		}
	})
}
