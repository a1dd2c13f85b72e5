package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// whEnv is a store on a movable clock with an organisation of two
// locations, for the webhook tests.
type whEnv struct {
	env
	loc2 workshop.Location
}

func newWhEnv(t *testing.T, db storetest.Database) whEnv {
	e := newEnv(t, db)
	return whEnv{env: e, loc2: createLocation(t, e.st, e.org.ID)}
}

func (e whEnv) hook(t *testing.T, orgID, locationID string, events ...string) workshop.Webhook {
	t.Helper()
	now := workshop.MicrosOf(e.clk.Now())
	w, err := e.st.CreateWebhook(t.Context(), workshop.Webhook{ID: workshop.NewID(workshop.PrefixWebhook), OrgID: orgID, LocationID: locationID,
		URL: "https://hooks.example.com/" + locationID, Events: events, SigningSecret: workshop.NewSigningSecret(), IsActive: true,
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	return w
}

// walkIn stores a job in the location: one job.created event.
func walkIn(t testing.TB, st *store.Store, orgID, locationID string, now workshop.Micros) workshop.Job {
	t.Helper()
	res, err := st.CreateJob(context.Background(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: orgID, LocationID: locationID,
		Priority: "normal", Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, true)
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	return res.Job
}

// fanOutAll fans out until no event is left.
func fanOutAll(t testing.TB, st *store.Store) {
	t.Helper()
	for {
		has, err := st.HasEventsToFanOut(context.Background())
		if err != nil {
			t.Fatalf("HasEventsToFanOut: %v", err)
		}
		if !has {
			return
		}
		if _, _, err := st.FanOut(context.Background(), 100); err != nil {
			t.Fatalf("FanOut: %v", err)
		}
	}
}

func deliveriesOf(t *testing.T, st *store.Store, orgID, webhookID string) []workshop.Delivery {
	t.Helper()
	var out []workshop.Delivery
	p := workshop.PageRequest{Limit: 200}
	for {
		page, err := st.Deliveries(t.Context(), store.Visibility{OrgID: orgID}, webhookID, p)
		if err != nil {
			t.Fatalf("Deliveries: %v", err)
		}
		out = append(out, page.Data...)
		if page.NextCursor == nil {
			return out
		}
		p2, err := workshop.ParsePageRequest(nil, *page.NextCursor)
		if err != nil {
			t.Fatal(err)
		}
		p.After = p2.After
	}
}

func claim(t *testing.T, st *store.Store, token string, limit int) []store.Attempt {
	t.Helper()
	as, err := st.ClaimDeliveries(t.Context(), store.Claim{Token: token, Lease: time.Minute, Limit: limit, PerWebhook: 1000, MaxAttempts: 3})
	if err != nil {
		t.Fatalf("ClaimDeliveries: %v", err)
	}
	return as
}

func TestWebhookRegistrations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		ctx := t.Context()
		orgWide := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		scoped := e.hook(t, e.org.ID, e.loc.ID, workshop.EventJobCreated, workshop.EventJobUpdated)
		other := createOrg(t, e.st, workshop.PlanPro)
		foreign := e.hook(t, other.ID, "", workshop.EventJobCreated)

		got, err := e.st.Webhook(ctx, store.Visibility{OrgID: e.org.ID}, scoped.ID)
		if err != nil || got.LocationID != e.loc.ID || !slices.Equal(got.Events, scoped.Events) || got.SigningSecret != scoped.SigningSecret || !got.IsActive {
			t.Errorf("Webhook = %+v, %v; want %+v", got, err, scoped)
		}
		for _, c := range []struct {
			name string
			v    store.Visibility
			want []string
		}{
			{"org key", store.Visibility{OrgID: e.org.ID}, []string{orgWide.ID, scoped.ID}},
			{"location key of the scoped one", store.Visibility{OrgID: e.org.ID, LocationID: e.loc.ID}, []string{scoped.ID}},
			{"location key of another location", store.Visibility{OrgID: e.org.ID, LocationID: e.loc2.ID}, nil},
			{"other org", store.Visibility{OrgID: other.ID}, []string{foreign.ID}},
		} {
			page, err := e.st.Webhooks(ctx, c.v, workshop.PageRequest{Limit: 1})
			var ids []string
			for err == nil {
				for _, w := range page.Data {
					ids = append(ids, w.ID)
				}
				if page.NextCursor == nil {
					break
				}
				p, _ := workshop.ParsePageRequest(nil, *page.NextCursor)
				page, err = e.st.Webhooks(ctx, c.v, workshop.PageRequest{Limit: 1, After: p.After})
			}
			slices.Sort(ids)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if err != nil || !slices.Equal(ids, want) {
				t.Errorf("%s: Webhooks = %v, %v; want %v", c.name, ids, err, want)
			}
		}
		_, err = e.st.Webhook(ctx, store.Visibility{OrgID: e.org.ID, LocationID: e.loc2.ID}, scoped.ID)
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.Webhook(ctx, store.Visibility{OrgID: e.org.ID}, foreign.ID)
		wantCode(t, err, workshop.CodeNotFound)

		// A patch that changes nothing keeps updatedAt; a change moves it on.
		e.clk.Advance(time.Second)
		same, err := e.st.PatchWebhook(ctx, store.Visibility{OrgID: e.org.ID}, scoped.ID, store.WebhookPatch{Events: scoped.Events}, at(time.Second))
		if err != nil || same.UpdatedAt != scoped.UpdatedAt {
			t.Errorf("no-op patch: updatedAt %v, %v; want %v", same.UpdatedAt, err, scoped.UpdatedAt)
		}
		url, secret := "https://new.example.com/x", workshop.NewSigningSecret()
		changed, err := e.st.PatchWebhook(ctx, store.Visibility{OrgID: e.org.ID}, scoped.ID,
			store.WebhookPatch{URL: &url, Events: []string{workshop.EventStepCompleted}, SigningSecret: &secret}, at(time.Second))
		if err != nil || changed.URL != url || changed.SigningSecret != secret || !slices.Equal(changed.Events, []string{workshop.EventStepCompleted}) ||
			changed.UpdatedAt <= scoped.UpdatedAt {
			t.Errorf("patch = %+v, %v; want the new url, events, secret and a later updatedAt", changed, err)
		}
		_, err = e.st.PatchWebhook(ctx, store.Visibility{OrgID: other.ID}, scoped.ID, store.WebhookPatch{URL: &url}, at(time.Second))
		wantCode(t, err, workshop.CodeNotFound)

		// Delete: gone with its deliveries; another org's is not found.
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(time.Second))
		fanOutAll(t, e.st)
		if n := len(deliveriesOf(t, e.st, e.org.ID, orgWide.ID)); n != 1 {
			t.Fatalf("deliveries before the delete: %d, want 1", n)
		}
		wantCode(t, e.st.DeleteWebhook(ctx, store.Visibility{OrgID: other.ID}, orgWide.ID), workshop.CodeNotFound)
		if err := e.st.DeleteWebhook(ctx, store.Visibility{OrgID: e.org.ID}, orgWide.ID); err != nil {
			t.Fatalf("DeleteWebhook: %v", err)
		}
		_, err = e.st.Deliveries(ctx, store.Visibility{OrgID: e.org.ID}, orgWide.ID, workshop.PageRequest{Limit: 10})
		wantCode(t, err, workshop.CodeNotFound)
		var left int
		if err := storetest.RawDB(t, db.URL).QueryRow(`SELECT COUNT(*) FROM deliveries WHERE webhook_id = '` + orgWide.ID + `'`).Scan(&left); err != nil || left != 0 {
			t.Errorf("deliveries left after the delete: %d, %v; want 0", left, err)
		}
	})
}

// TestFanOutExactlyOnce writes events from many goroutines while several
// stores (processes) fan out concurrently: every event reaches each
// matching registration exactly once and no other.
func TestFanOutExactlyOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		other := createOrg(t, e.st, workshop.PlanPro)
		otherLoc := createLocation(t, e.st, other.ID)
		hooks := []workshop.Webhook{
			e.hook(t, e.org.ID, "", workshop.EventJobCreated),
			e.hook(t, e.org.ID, e.loc.ID, workshop.EventJobCreated),
			e.hook(t, e.org.ID, e.loc2.ID, workshop.EventJobCreated),
			e.hook(t, e.org.ID, "", workshop.EventStepCompleted), // not subscribed
			e.hook(t, other.ID, "", workshop.EventJobCreated),
		}
		inactive := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		no := false
		if _, err := e.st.PatchWebhook(t.Context(), store.Visibility{OrgID: e.org.ID}, inactive.ID, store.WebhookPatch{IsActive: &no}, at(0)); err != nil {
			t.Fatal(err)
		}
		stores := []*store.Store{e.st, storetest.Open(t, db.URL), storetest.Open(t, db.URL)}

		const writers, perWriter = 4, 25
		locs := []workshop.Location{e.loc, e.loc2, otherLoc}
		var writing sync.WaitGroup
		for w := range writers {
			writing.Go(func() {
				for i := range perWriter {
					l := locs[(w+i)%len(locs)]
					_, err := stores[w%len(stores)].CreateJob(context.Background(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: l.OrgID,
						LocationID: l.ID, Priority: "normal", Source: "other", CreatedAt: at(0), UpdatedAt: at(0), Steps: []workshop.Step{}}, true)
					if err != nil {
						t.Errorf("CreateJob: %v", err)
						return
					}
				}
			})
		}
		stop := make(chan struct{})
		var fanning sync.WaitGroup
		for _, st := range stores {
			fanning.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, _, err := st.FanOut(context.Background(), 7); err != nil {
						t.Errorf("FanOut: %v", err)
						return
					}
				}
			})
		}
		writing.Wait()
		close(stop)
		fanning.Wait()
		fanOutAll(t, e.st)

		got := map[string][]string{} // webhook -> job ids delivered
		for _, h := range append(hooks, inactive) {
			for _, d := range deliveriesOf(t, e.st, h.OrgID, h.ID) {
				if d.Status != workshop.DeliveryPending || d.Attempts != 0 || d.NextAttemptAt == nil {
					t.Errorf("new delivery %+v: want pending, no attempt, due", d)
				}
				got[h.ID] = append(got[h.ID], d.EventID)
			}
		}
		events, err := e.st.EventsAfter(t.Context(), 0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != writers*perWriter {
			t.Fatalf("events: %d, want %d", len(events), writers*perWriter)
		}
		for _, h := range append(hooks, inactive) {
			var want []string
			for _, ev := range events {
				if h.IsActive && h.OrgID == ev.OrgID && h.Subscribes(ev.Name, ev.LocationID) {
					want = append(want, ev.ID)
				}
			}
			if h.ID == inactive.ID {
				want = nil
			}
			g := slices.Clone(got[h.ID])
			slices.Sort(g)
			slices.Sort(want)
			if !slices.Equal(g, want) {
				t.Errorf("registration %s (location %q, %v): got %d deliveries, want %d (each matching event once)", h.ID, h.LocationID, h.Events, len(g), len(want))
			}
		}
	})
}

// TestClaimsAreExclusive: two stores claiming at once never get the same
// delivery, and between them get every one.
func TestClaimsAreExclusive(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		hooks := []workshop.Webhook{e.hook(t, e.org.ID, "", workshop.EventJobCreated), e.hook(t, e.org.ID, "", workshop.EventJobCreated)}
		const jobs = 60
		for range jobs {
			walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		}
		fanOutAll(t, e.st)
		stores := []*store.Store{storetest.Open(t, db.URL, store.WithClock(e.clk.Now)), storetest.Open(t, db.URL, store.WithClock(e.clk.Now))}
		var mu sync.Mutex
		claimed := map[string]string{} // delivery -> token
		var wg sync.WaitGroup
		var dup atomic.Int32
		for i, st := range stores {
			wg.Go(func() {
				for n := 0; ; n++ {
					token := fmt.Sprintf("claimer-%d-%d", i, n)
					as, err := st.ClaimDeliveries(context.Background(), store.Claim{Token: token, Lease: time.Minute, Limit: 3, PerWebhook: 2, MaxAttempts: 5})
					if err != nil {
						t.Errorf("claim: %v", err)
						return
					}
					if len(as) == 0 {
						return
					}
					mu.Lock()
					perHook := map[string]int{}
					for _, a := range as {
						if prev, ok := claimed[a.DeliveryID]; ok {
							t.Errorf("delivery %s claimed by %s and %s", a.DeliveryID, prev, token)
							dup.Add(1)
						}
						claimed[a.DeliveryID] = token
						if a.Attempt != 1 || a.URL == "" || a.Event.ID == "" || len(a.Event.Data) == 0 {
							t.Errorf("claimed %+v: want attempt 1 with the url and the event", a)
						}
						if perHook[a.WebhookID]++; perHook[a.WebhookID] > 2 {
							t.Errorf("claim %s: more than PerWebhook=2 deliveries of %s", token, a.WebhookID)
						}
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(claimed) != jobs*len(hooks) {
			t.Errorf("claimed %d deliveries, want %d", len(claimed), jobs*len(hooks))
		}
	})
}

// TestRetrySchedule follows one delivery on a fake clock through its
// schedule to exhausted, a lease that runs out, and a redelivery.
func TestRetrySchedule(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		ctx := t.Context()
		h := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		fanOutAll(t, e.st)
		delays := []time.Duration{time.Minute, 5 * time.Minute}
		v := store.Visibility{OrgID: e.org.ID}
		state := func() workshop.Delivery {
			t.Helper()
			ds := deliveriesOf(t, e.st, e.org.ID, h.ID)
			if len(ds) != 1 {
				t.Fatalf("deliveries: %d, want 1", len(ds))
			}
			return ds[0]
		}
		fail := func(a store.Attempt, token string) {
			t.Helper()
			n, err := e.st.RecordAttempts(ctx, []store.AttemptResult{{DeliveryID: a.DeliveryID, Token: token, RoundAttempt: a.RoundAttempt,
				StatusCode: 500, Error: "the endpoint answered 500"}}, delays)
			if err != nil || n != 1 {
				t.Fatalf("RecordAttempts = %d, %v; want 1", n, err)
			}
		}

		as := claim(t, e.st, "a", 10)
		if len(as) != 1 || as[0].Attempt != 1 {
			t.Fatalf("first claim: %+v, want attempt 1", as)
		}
		if again := claim(t, e.st, "b", 10); len(again) != 0 {
			t.Errorf("a leased delivery was claimed again: %+v", again)
		}
		fail(as[0], "a")
		if d := state(); d.Status != workshop.DeliveryFailed || d.Attempts != 1 || d.NextAttemptAt == nil || *d.NextAttemptAt != at(time.Minute) ||
			d.LastStatusCode == nil || *d.LastStatusCode != 500 {
			t.Errorf("after attempt 1: %+v, want failed, retry at +1m, last status 500", d)
		}
		e.clk.Advance(59 * time.Second)
		if as := claim(t, e.st, "c", 10); len(as) != 0 {
			t.Errorf("claimed before the retry delay: %+v", as)
		}
		e.clk.Advance(time.Second)
		as = claim(t, e.st, "d", 10)
		if len(as) != 1 || as[0].Attempt != 2 {
			t.Fatalf("second claim: %+v, want attempt 2", as)
		}
		// The lease runs out (the dispatcher died): due again, as attempt 3
		// in the second attempt's place of the schedule, and the dead claim
		// can no longer record its result.
		e.clk.Advance(time.Minute + time.Second)
		as2 := claim(t, e.st, "e", 10)
		if len(as2) != 1 || as2[0].Attempt != 3 || as2[0].RoundAttempt != 2 || as2[0].DeliveryID != as[0].DeliveryID {
			t.Fatalf("claim after the lease ran out: %+v, want the same delivery, attempt 3, second of its schedule", as2)
		}
		if n, err := e.st.RecordAttempts(ctx, []store.AttemptResult{{DeliveryID: as[0].DeliveryID, Token: "d", RoundAttempt: 2, Succeeded: true, StatusCode: 200}}, delays); err != nil || n != 0 {
			t.Errorf("a result under a lost lease: recorded %d, %v; want 0", n, err)
		}
		fail(as2[0], "e")
		if d := state(); d.Status != workshop.DeliveryFailed || d.NextAttemptAt == nil || *d.NextAttemptAt != workshop.MicrosOf(e.clk.Now().Add(5*time.Minute)) {
			t.Errorf("after the attempt made again: %+v, want failed, retry in 5m (the schedule unchanged)", d)
		}
		e.clk.Advance(5 * time.Minute)
		as2 = claim(t, e.st, "e2", 10)
		if len(as2) != 1 || as2[0].Attempt != 4 || as2[0].RoundAttempt != 3 {
			t.Fatalf("claim of the last attempt: %+v, want attempt 4, third of its schedule", as2)
		}
		fail(as2[0], "e2")
		d := state()
		if d.Status != workshop.DeliveryExhausted || d.Attempts != 4 || d.NextAttemptAt != nil || d.LastError == nil {
			t.Errorf("after the last attempt: %+v, want exhausted after 4 attempts, nothing scheduled", d)
		}
		e.clk.Advance(24 * time.Hour)
		if as := claim(t, e.st, "f", 10); len(as) != 0 {
			t.Errorf("an exhausted delivery was claimed: %+v", as)
		}

		// Redelivery: a fresh schedule, attempts go on counting.
		re, err := e.st.Redeliver(ctx, v, h.ID, d.ID, workshop.MicrosOf(e.clk.Now()))
		if err != nil || re.Status != workshop.DeliveryPending || re.Attempts != 4 || re.NextAttemptAt == nil {
			t.Fatalf("Redeliver = %+v, %v; want pending, 4 attempts, scheduled now", re, err)
		}
		as = claim(t, e.st, "g", 10)
		if len(as) != 1 || as[0].Attempt != 5 || as[0].RoundAttempt != 1 {
			t.Fatalf("claim after the redelivery: %+v, want attempt 5, first of its schedule", as)
		}
		fail(as[0], "g")
		if d := state(); d.Status != workshop.DeliveryFailed || *d.NextAttemptAt != workshop.MicrosOf(e.clk.Now().Add(time.Minute)) {
			t.Errorf("after the redelivered attempt: %+v, want failed, retry in 1m", d)
		}
		_, err = e.st.Redeliver(ctx, v, h.ID, "dlv_nope", at(0))
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.Redeliver(ctx, store.Visibility{OrgID: createOrg(t, e.st, workshop.PlanPro).ID}, h.ID, d.ID, at(0))
		wantCode(t, err, workshop.CodeNotFound)

		// The last attempt of a schedule lost with its dispatcher: made
		// again, as the next attempt, still the last of the schedule.
		e.clk.Advance(time.Minute)
		as = claim(t, e.st, "h", 10)
		if len(as) != 1 || as[0].RoundAttempt != 2 {
			t.Fatalf("claim: %+v, want the second attempt of the schedule", as)
		}
		fail(as[0], "h")
		e.clk.Advance(5 * time.Minute)
		as = claim(t, e.st, "i", 10)
		if len(as) != 1 || as[0].RoundAttempt != 3 || as[0].Attempt != 7 {
			t.Fatalf("claim: %+v, want attempt 7, the last of the schedule", as)
		}
		e.clk.Advance(2 * time.Minute)
		as = claim(t, e.st, "j", 10)
		if len(as) != 1 || as[0].RoundAttempt != 3 || as[0].Attempt != 8 {
			t.Fatalf("claim after the last attempt was lost: %+v, want attempt 8, still the last of the schedule", as)
		}
		fail(as[0], "j")
		if d := state(); d.Status != workshop.DeliveryExhausted {
			t.Errorf("after the last attempt made again: %+v, want exhausted", d)
		}
	})
}

// TestLeaseRenewal: a renewed lease keeps the delivery from other claims
// past its first end; only the claim that holds it renews it.
func TestLeaseRenewal(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		fanOutAll(t, e.st)
		as := claim(t, e.st, "a", 10) // leased for a minute
		if len(as) != 1 {
			t.Fatalf("claim: %+v, want 1", as)
		}
		renew := func(token string, want int) {
			t.Helper()
			n, err := e.st.RenewLeases(t.Context(), map[string][]string{token: {as[0].DeliveryID}}, time.Minute)
			if err != nil || n != want {
				t.Fatalf("RenewLeases(%s) = %d, %v; want %d", token, n, err, want)
			}
		}
		e.clk.Advance(50 * time.Second)
		renew("a", 1)
		renew("b", 0)
		e.clk.Advance(50 * time.Second) // past the first lease, within the renewed one
		if got := claim(t, e.st, "b", 10); len(got) != 0 {
			t.Errorf("a renewed lease was claimed: %+v", got)
		}
		e.clk.Advance(11 * time.Second) // the holder stopped renewing
		got := claim(t, e.st, "b", 10)
		if len(got) != 1 || got[0].DeliveryID != as[0].DeliveryID || got[0].Attempt != 2 || got[0].RoundAttempt != 1 {
			t.Fatalf("claim after the renewals stopped: %+v, want the same delivery, attempt 2, first of its schedule", got)
		}
		renew("a", 0) // the lost holder cannot take it back
	})
}

// TestDeactivationPausesDeliveries: an inactive registration's deliveries
// are not claimed (nor redelivered); activating it resumes them.
func TestDeactivationPausesDeliveries(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		ctx := t.Context()
		h := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		v := store.Visibility{OrgID: e.org.ID}
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		fanOutAll(t, e.st)
		no, yes := false, true
		if _, err := e.st.PatchWebhook(ctx, v, h.ID, store.WebhookPatch{IsActive: &no}, at(0)); err != nil {
			t.Fatal(err)
		}
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0)) // not fanned out to an inactive registration
		fanOutAll(t, e.st)
		ds := deliveriesOf(t, e.st, e.org.ID, h.ID)
		if len(ds) != 1 || ds[0].NextAttemptAt != nil || ds[0].Status != workshop.DeliveryPending {
			t.Fatalf("deliveries of the inactive registration: %+v, want the one made before, paused", ds)
		}
		if as := claim(t, e.st, "a", 10); len(as) != 0 {
			t.Errorf("claimed a delivery of an inactive registration: %+v", as)
		}
		_, err := e.st.Redeliver(ctx, v, h.ID, ds[0].ID, at(0))
		wantCode(t, err, workshop.CodeInvalidTransition)
		if _, err := e.st.PatchWebhook(ctx, v, h.ID, store.WebhookPatch{IsActive: &yes}, at(0)); err != nil {
			t.Fatal(err)
		}
		if as := claim(t, e.st, "b", 10); len(as) != 1 || as[0].DeliveryID != ds[0].ID {
			t.Errorf("after activation: claimed %+v, want %s", as, ds[0].ID)
		}
	})
}

// TestEventsCommittedHook: the hook runs after a commit that recorded
// events, not after other writes.
func TestEventsCommittedHook(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		var calls atomic.Int32
		stop := e.st.OnEventsCommitted(func() { calls.Add(1) })
		e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		if n := calls.Load(); n != 0 {
			t.Errorf("after a write without events: %d calls, want 0", n)
		}
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		if n := calls.Load(); n != 1 {
			t.Errorf("after a write with an event: %d calls, want 1", n)
		}
		stop()
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		if n := calls.Load(); n != 1 {
			t.Errorf("after stop: %d calls, want 1", n)
		}
	})
}

// openTx begins a transaction on a connection of its own to the database
// of url, beside the store's; rolled back when the test ends unless
// committed before.
func openTx(t *testing.T, url string) *sql.Tx {
	t.Helper()
	tx, err := storetest.RawDB(t, url).BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() }) //nolint:errcheck
	return tx
}

// onPostgres runs fn on PostgreSQL only, with a webhook environment: the
// order in which events' transactions end matters there alone (SQLite has
// one writer, so events commit in seq order).
func onPostgres(t *testing.T, fn func(t *testing.T, db storetest.Database, e whEnv)) {
	t.Helper()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		if db.Name != "postgres" {
			t.Skip("SQLite has one writer: events commit in seq order")
		}
		fn(t, db, newWhEnv(t, db))
	})
}

// TestFanOutWaitsForEarlierTransactions: on PostgreSQL an event can take its
// seq in a transaction that commits after a later event's. The fan-out
// waits for it rather than skip it: both are delivered, once each.
func TestFanOutWaitsForEarlierTransactions(t *testing.T) {
	t.Parallel()
	onPostgres(t, func(t *testing.T, db storetest.Database, e whEnv) {
		ctx := t.Context()
		h := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		slow := openTx(t, db.URL)
		if _, err := slow.ExecContext(ctx, `INSERT INTO events (id, org_id, location_id, event, occurred_at, data) VALUES ($1, $2, $3, $4, $5, '{}')`,
			workshop.NewID(workshop.PrefixEvent), e.org.ID, e.loc.ID, workshop.EventJobCreated, int64(at(0))); err != nil {
			t.Fatal(err)
		}
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0)) // a larger seq, committed first
		if _, _, err := e.st.FanOut(ctx, 100); err != nil {
			t.Fatal(err)
		}
		if err := slow.Commit(); err != nil {
			t.Fatal(err)
		}
		fanOutAll(t, e.st)
		events, err := e.st.EventsAfter(ctx, 0, 10)
		if err != nil || len(events) != 2 {
			t.Fatalf("events: %d, %v; want 2", len(events), err)
		}
		got := map[string]int{}
		for _, d := range deliveriesOf(t, e.st, e.org.ID, h.ID) {
			got[d.EventID]++
		}
		for _, ev := range events {
			if got[ev.ID] != 1 {
				t.Errorf("event seq %d: %d deliveries, want 1", ev.Seq, got[ev.ID])
			}
		}
	})
}

// TestFanOutLooksPastOtherDatabases: on PostgreSQL a transaction running
// in another database of the server does not hold deliveries back, while
// an older one of this database still does.
func TestFanOutLooksPastOtherDatabases(t *testing.T) {
	t.Parallel()
	onPostgres(t, func(t *testing.T, db storetest.Database, e whEnv) {
		ctx := t.Context()
		e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		holdXID := func(url string) *sql.Tx {
			t.Helper()
			tx := openTx(t, url)
			if _, err := tx.ExecContext(ctx, `SELECT pg_current_xact_id()`); err != nil {
				t.Fatal(err)
			}
			return tx
		}
		// fanned fans out until n events went, or gives up after 10 s;
		// other tests' transactions may end between the fan-out's
		// snapshot and its look at who runs where.
		fanned := func(n int) bool {
			t.Helper()
			got := 0
			for deadline := time.Now().Add(10 * time.Second); got < n && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				events, _, err := e.st.FanOut(ctx, 100)
				if err != nil {
					t.Fatal(err)
				}
				got += events
			}
			return got == n
		}

		elsewhere := holdXID(storetest.PostgresURL(t))
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		if !fanned(1) {
			t.Errorf("an event waited for a transaction of another database")
		}

		here := holdXID(db.URL)
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		if events, _, err := e.st.FanOut(ctx, 100); err != nil || events != 0 {
			t.Errorf("with an older transaction of this database running: fanned out %d events (%v), want 0", events, err)
		}
		if err := here.Commit(); err != nil {
			t.Fatal(err)
		}
		if !fanned(1) {
			t.Errorf("the event was not fanned out once this database's older transaction ended")
		}
		if err := elsewhere.Commit(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReleaseGivesAttemptsBack: a released claim is due again at once with
// its attempt not counted, and only its own claim can release it; results
// are recorded per claim, in groups, only under the lease.
func TestReleaseGivesAttemptsBack(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		for range 3 {
			walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		}
		fanOutAll(t, e.st)
		ctx := context.Background()
		claim := func(token string) []store.Attempt {
			t.Helper()
			as, err := e.st.ClaimDeliveries(ctx, store.Claim{Token: token, Lease: time.Hour, Limit: 10, PerWebhook: 10, MaxAttempts: 5})
			if err != nil {
				t.Fatalf("claim %s: %v", token, err)
			}
			return as
		}
		first := claim("a")
		if len(first) != 3 {
			t.Fatalf("claimed %d, want 3", len(first))
		}
		ids := []string{first[0].DeliveryID, first[1].DeliveryID}
		if err := e.st.Release(ctx, "not-a", ids); err != nil {
			t.Fatal(err)
		}
		if got := claim("b"); len(got) != 0 {
			t.Fatalf("after a release by another claim, claimed %d, want 0 (still leased)", len(got))
		}
		if err := e.st.Release(ctx, "a", ids); err != nil {
			t.Fatal(err)
		}
		again := claim("c")
		if len(again) != 2 {
			t.Fatalf("after the release, claimed %d, want the 2 released", len(again))
		}
		for _, a := range again {
			if a.Attempt != 1 || a.RoundAttempt != 1 {
				t.Errorf("released delivery claimed again as attempt %d (round %d), want 1 (1)", a.Attempt, a.RoundAttempt)
			}
		}
		results := []store.AttemptResult{
			{DeliveryID: again[0].DeliveryID, Token: "c", RoundAttempt: 1, Succeeded: true, StatusCode: 200},
			{DeliveryID: again[1].DeliveryID, Token: "c", RoundAttempt: 1, Succeeded: true, StatusCode: 200},
			{DeliveryID: first[2].DeliveryID, Token: "stale", RoundAttempt: 1, Succeeded: true, StatusCode: 200},
		}
		n, err := e.st.RecordAttempts(ctx, results, []time.Duration{time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("recorded %d results, want 2 (the one under another lease left alone)", n)
		}
	})
}

// TestClaimPausesDeliveriesOfInactiveRegistrations: a delivery left due for
// a registration deactivated meanwhile (a fan-out racing the deactivation)
// is not claimed but paused, and resumes with the registration.
func TestClaimPausesDeliveriesOfInactiveRegistrations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		h := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		walkIn(t, e.st, e.org.ID, e.loc.ID, at(0))
		fanOutAll(t, e.st)
		// The race's outcome: inactive, its delivery still due.
		if _, err := storetest.RawDB(t, db.URL).Exec(`UPDATE webhooks SET is_active = false WHERE id = '` + h.ID + `'`); err != nil {
			t.Fatal(err)
		}
		if as := claim(t, e.st, "a", 10); len(as) != 0 {
			t.Fatalf("claimed a delivery of an inactive registration: %+v", as)
		}
		ds := deliveriesOf(t, e.st, e.org.ID, h.ID)
		if len(ds) != 1 || ds[0].NextAttemptAt != nil || ds[0].Status != workshop.DeliveryPending {
			t.Fatalf("deliveries after the claim: %+v, want one pending and paused", ds)
		}
		yes := true
		if _, err := e.st.PatchWebhook(t.Context(), store.Visibility{OrgID: e.org.ID}, h.ID, store.WebhookPatch{IsActive: &yes}, at(0)); err != nil {
			t.Fatal(err)
		}
		if as := claim(t, e.st, "b", 10); len(as) != 1 {
			t.Errorf("after activation: claimed %d, want 1", len(as))
		}
	})
}

// TestFanOutClaimsWhatItMakes: a fan-out with a claim leases the new
// deliveries it has room for (per registration too) and returns them ready
// to attempt; the rest are left due for any claim.
func TestFanOutClaimsWhatItMakes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newWhEnv(t, db)
		a := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		b := e.hook(t, e.org.ID, "", workshop.EventJobCreated)
		var jobs []string
		for range 3 {
			jobs = append(jobs, walkIn(t, e.st, e.org.ID, e.loc.ID, at(0)).ID)
		}
		cl := &store.Claim{Token: "fan", Lease: time.Hour, Limit: 4, PerWebhook: 3, MaxAttempts: 5, Slots: map[string]int{b.ID: 1}}
		// On PostgreSQL events wait for every older transaction of the server
		// (other tests') to end, so they may come in parts: each part's claim
		// gets what the earlier ones left of the room.
		var out store.FannedOut
		for out.Events < 3 {
			part, err := e.st.FanOutAndClaim(t.Context(), 100, cl)
			if err != nil {
				t.Fatal(err)
			}
			out.Events, out.Deliveries = out.Events+part.Events, out.Deliveries+part.Deliveries
			out.Attempts = append(out.Attempts, part.Attempts...)
			cl.Limit -= len(part.Attempts)
			for _, at := range part.Attempts {
				cl.Slots[at.WebhookID] = cl.Room(at.WebhookID) - 1
			}
			time.Sleep(time.Millisecond)
		}
		if out.Events != 3 || out.Deliveries != 6 {
			t.Fatalf("fanned out %d events into %d deliveries, want 3 into 6", out.Events, out.Deliveries)
		}
		per := map[string]int{}
		for _, at := range out.Attempts {
			per[at.WebhookID]++
			if at.DeliveryID == "" || at.Attempt != 1 || at.RoundAttempt != 1 || at.URL == "" || len(at.Secrets) != 1 ||
				len(at.Event.Data) == 0 || at.Event.OccurredAt == 0 || !slices.Contains(jobs, jobIDOf(t, at.Event.Data)) {
				t.Errorf("claimed attempt %+v: want attempt 1 of a new delivery with its url, secret and event", at)
			}
		}
		if per[a.ID] != 3 || per[b.ID] != 1 {
			t.Errorf("claimed %v per registration, want 3 of %s (PerWebhook) and 1 of %s (its slot)", per, a.ID, b.ID)
		}
		rest := claim(t, e.st, "other", 10)
		if len(rest) != 2 {
			t.Fatalf("another claim got %d, want the 2 left unclaimed", len(rest))
		}
		res := []store.AttemptResult{{DeliveryID: out.Attempts[0].DeliveryID, Token: "fan", RoundAttempt: 1, Succeeded: true, StatusCode: 200}}
		if n, err := e.st.RecordAttempts(context.Background(), res, []time.Duration{time.Minute}); err != nil || n != 1 {
			t.Errorf("recording under the fan-out's lease: %d, %v; want 1 recorded", n, err)
		}
	})
}

func jobIDOf(t *testing.T, data []byte) string {
	t.Helper()
	var row struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &row); err != nil {
		t.Fatalf("event data %s: %v", data, err)
	}
	return row.ID
}
