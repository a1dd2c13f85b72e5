package main

import (
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/client"
	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A scripted day at one location through the generated client: jobs
// arrive, steps start in bays and complete, a bay goes into maintenance,
// a job is delivered; the board counts every status and the bays, the
// detail shows plan, actuals, hold and verification, and the workshop
// settings come as one object to a location key and as a list to an org key.
func TestScriptedDayOnTheBoard(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		org := w.org("Day Motors", workshop.PlanPro, 2)
		loc := org.Locations[0]
		lk := org.locationKey(w, 0)
		srv := startServer(t, db.URL)
		c := apitest.Client(t, srv.URL, lk.Key)
		ctx := t.Context()
		bay1, err := w.op.CreateBay(ctx, loc.ID, "Bay 1", []string{"lift"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bay2, err := w.op.CreateBay(ctx, loc.ID, "Bay 2", []string{"lift"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tech, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas", WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}

		create := func(body client.JobCreate) client.Job {
			t.Helper()
			r, err := c.CreateJobWithResponse(ctx, nil, body)
			if err != nil || r.JSON201 == nil {
				t.Fatalf("create job: %v, %d %s", err, r.StatusCode(), r.Body)
			}
			return *r.JSON201
		}
		addStep := func(job client.Job, label string, phase int) client.Step {
			t.Helper()
			r, err := c.CreateStepWithResponse(ctx, job.Id, nil, client.StepCreate{Label: &label, Phase: &phase, EstimatedDuration: ptr(60)})
			if err != nil || r.JSON201 == nil {
				t.Fatalf("create step: %v, %d %s", err, r.StatusCode(), r.Body)
			}
			return *r.JSON201
		}
		patchStep := func(st client.Step, p client.StepPatch) client.Step {
			t.Helper()
			ua := st.UpdatedAt
			p.UpdatedAt = &ua
			r, err := c.PatchStepWithResponse(ctx, st.JobId, st.Id, nil, p)
			if err != nil || r.JSON200 == nil {
				t.Fatalf("patch step: %v, %d %s", err, r.StatusCode(), r.Body)
			}
			return *r.JSON200
		}
		status := func(s client.StepStatus) *client.StepStatus { return &s }

		bookedJob := create(client.JobCreate{VehiclePlate: ptr("B-BK 1")})
		_ = bookedJob // a walk-in: arrived
		late := time.Now().Add(-time.Hour)
		lateJob := create(client.JobCreate{VehiclePlate: ptr("B-LT 2"), PromiseTime: nullableTime(late)})
		running := create(client.JobCreate{VehiclePlate: ptr("B-RN 3")})
		s1 := addStep(running, "Inspect", 0)
		s2 := addStep(running, "Repair", 1)
		s1 = patchStep(s1, client.StepPatch{TechIds: &[]string{tech.ID}, BayId: nullableString(bay1.ID), Status: status(client.StepStatusInProgress)})
		s1 = patchStep(s1, client.StepPatch{Status: status(client.StepStatusCompleted)}) // running is now waiting
		done := create(client.JobCreate{VehiclePlate: ptr("B-DN 4")})
		d1 := addStep(done, "Oil", 0)
		d1 = patchStep(d1, client.StepPatch{BayId: nullableString(bay2.ID), Status: status(client.StepStatusInProgress)})
		bayRead, err := c.GetBayWithResponse(ctx, bay2.ID, nil)
		if err != nil || bayRead.JSON200 == nil || !bayRead.JSON200.Occupied {
			t.Fatalf("bay 2 with a step in progress: %v %s, want occupied", err, bayRead.Body)
		}
		patchStep(d1, client.StepPatch{Status: status(client.StepStatusCompleted)})
		deliver, err := c.DeliverJobWithResponse(ctx, done.Id, nil)
		if err != nil || deliver.JSON200 == nil || deliver.JSON200.Status != client.JobStatusDelivered {
			t.Fatalf("deliver: %v %s", err, deliver.Body)
		}
		// Contract section 4: the job says when it was delivered, and that
		// it was not cancelled.
		if at, err := deliver.JSON200.DeliveredAt.Get(); err != nil || at != deliver.JSON200.UpdatedAt ||
			!deliver.JSON200.CancelledAt.IsNull() || len(deliver.JSON200.CancelReasonTags) != 0 {
			t.Errorf("delivered job: deliveredAt %v (%v), cancelledAt %v, cancelReasonTags %v; want deliveredAt = updatedAt, no cancellation",
				at, err, deliver.JSON200.CancelledAt, deliver.JSON200.CancelReasonTags)
		}
		bay1Read, err := c.GetBayWithResponse(ctx, bay1.ID, nil)
		if err != nil || bay1Read.JSON200 == nil {
			t.Fatal(err)
		}
		ua := bay1Read.JSON200.UpdatedAt
		if r, err := c.PatchBayWithResponse(ctx, bay1.ID, nil, client.BayPatch{UpdatedAt: &ua, Status: client.BayPatchStatusMaintenance}); err != nil || r.JSON200 == nil {
			t.Fatalf("bay into maintenance: %v %s", err, r.Body)
		}

		b, err := c.GetBoardWithResponse(ctx, nil)
		if err != nil || b.JSON200 == nil {
			t.Fatalf("board: %v %s", err, b.Body)
		}
		j := b.JSON200.Jobs
		got := map[string]int{"arrived": j.Arrived, "waiting": j.Waiting, "delivered": j.Delivered, "in_progress": j.InProgress,
			"booked": j.Booked, "ready": j.Ready, "cancelled": j.Cancelled, "total": j.Total, "late": j.Late}
		want := map[string]int{"arrived": 2, "waiting": 1, "delivered": 1, "in_progress": 0, "booked": 0, "ready": 0, "cancelled": 0, "total": 4, "late": 1}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("board jobs.%s = %d, want %d (all: %v)", k, got[k], v, got)
			}
		}
		if bays := b.JSON200.Bays; bays.Total != 2 || bays.Maintenance != 1 || bays.Occupied != 0 || bays.Free != 1 {
			t.Errorf("board bays = %+v, want total 2, maintenance 1, occupied 0, free 1", bays)
		}
		_ = lateJob

		detail, err := c.GetJobDetailWithResponse(ctx, running.Id)
		if err != nil || detail.JSON200 == nil {
			t.Fatalf("detail: %v %s", err, detail.Body)
		}
		d := detail.JSON200
		if len(d.Steps) != 2 || d.Steps[0].Id != s1.Id || d.Steps[1].Id != s2.Id {
			t.Fatalf("detail steps = %+v, want Inspect then Repair", d.Steps)
		}
		if !d.Steps[0].ActualStart.IsSpecified() || d.Steps[0].ActualEnd.IsNull() || !d.Steps[1].ActualStart.IsNull() {
			t.Errorf("detail actuals: step 1 %v-%v, step 2 start %v; want step 1 both set, step 2 not started",
				d.Steps[0].ActualStart, d.Steps[0].ActualEnd, d.Steps[1].ActualStart)
		}
		// The completed step's planned window is its estimate from its
		// actual start; the pending one's is the plan's, after it.
		p0, err0 := d.Steps[0].PlannedStart.Get()
		p1, err1 := d.Steps[1].PlannedStart.Get()
		if err0 != nil || err1 != nil || !p1.After(p0) {
			t.Errorf("detail plan: phase 1 starts %v, phase 0 %v; job %v-%v", d.Steps[1].PlannedStart, d.Steps[0].PlannedStart, d.PlannedStart, d.PlannedEnd)
		}
		if len(d.Holds) != 1 || !d.Holds[0].End.IsNull() {
			t.Errorf("detail holds = %+v, want one open waiting hold", d.Holds)
		}
		if d.Verification.Verified {
			t.Errorf("detail of a job with a pending step is verified")
		}
		delivered, err := c.GetJobDetailWithResponse(ctx, done.Id)
		if err != nil || delivered.JSON200 == nil || !delivered.JSON200.Verification.Verified {
			t.Errorf("detail of the delivered job: %v %s, want verified (vehicle history)", err, delivered.Body)
		}

		one, err := c.GetWorkshopSettingsWithResponse(ctx)
		if err != nil || one.JSON200 == nil {
			t.Fatalf("settings: %v %s", err, one.Body)
		}
		single, err := one.JSON200.AsWorkshopSettings()
		if err != nil || single.LocationId != loc.ID || single.Timezone == "" || len(single.OperatingHours) == 0 {
			t.Errorf("location key settings = %+v (%v), want its location's object", single, err)
		}
		all, err := apitest.Client(t, srv.URL, org.Key.Key).GetWorkshopSettingsWithResponse(ctx)
		if err != nil || all.JSON200 == nil {
			t.Fatalf("org settings: %v", err)
		}
		list, err := all.JSON200.AsWorkshopSettingsList()
		if err != nil || len(list.Data) != 2 {
			t.Errorf("org key settings = %+v (%v), want a list of 2 locations", list, err)
		}
	})
}

// PUT of a catalog item is an idempotent sync: 201, then 200 with the
// item unchanged (updatedAt too), then 200 with the change.
func TestCatalogPut(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		org := w.org("Catalog Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		c := apitest.Client(t, srv.URL, org.Key.Key)
		ctx := t.Context()
		body := client.CatalogItemPut{LocationId: &org.Locations[0].ID, Name: "Oil change", EstimatedDuration: 45, RequiredSkills: &[]string{"oil"}}
		first, err := c.PutCatalogItemWithResponse(ctx, "OIL", body)
		if err != nil || first.JSON201 == nil {
			t.Fatalf("first put: %v %d %s", err, first.StatusCode(), first.Body)
		}
		again, err := c.PutCatalogItemWithResponse(ctx, "OIL", body)
		if err != nil || again.JSON200 == nil || !again.JSON200.UpdatedAt.Equal(first.JSON201.UpdatedAt) || again.JSON200.Id != first.JSON201.Id {
			t.Errorf("same put again: %v %d %s, want 200 with the item unchanged", err, again.StatusCode(), again.Body)
		}
		body.EstimatedDuration = 60
		changed, err := c.PutCatalogItemWithResponse(ctx, "OIL", body)
		if err != nil || changed.JSON200 == nil || changed.JSON200.EstimatedDuration != 60 || !changed.JSON200.UpdatedAt.After(first.JSON201.UpdatedAt) {
			t.Errorf("changed put: %v %d %s, want 200 with estimatedDuration 60 and a later updatedAt", err, changed.StatusCode(), changed.Body)
		}
		bad, err := c.PutCatalogItemWithResponse(ctx, "bad code!", body)
		if err != nil || bad.StatusCode() != 400 {
			t.Errorf("bad service code: %v %d, want 400", err, bad.StatusCode())
		}
	})
}

func ptr[T any](v T) *T { return &v }

func nullableTime(t time.Time) nullable.Nullable[time.Time] { return nullable.NewNullableWithValue(t) }

func nullableString(s string) nullable.Nullable[string] { return nullable.NewNullableWithValue(s) }
