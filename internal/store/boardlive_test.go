package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The live board's view: each open status's oldest jobs up to the limit,
// the steps in progress with their job's number, technicians with their
// clock-in, bays; finished jobs and other locations stay out.
func TestBoardView(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Other", "Europe/Berlin")
		now := e.clk.Now()

		var booked []workshop.Job
		for range 4 {
			e.tick()
			booked = append(booked, e.createJob(t, e.loc.ID, withPromise(now.Add(time.Hour))))
		}
		e.tick()
		arrived := e.createJob(t, e.loc.ID, withArrival(now.Add(-time.Minute)))
		e.tick()
		working := e.createJob(t, e.loc.ID, withArrival(now.Add(-time.Minute)))
		// Made a tick apart: technicians and bays are listed by createdAt.
		tech := e.technician(t, e.loc.ID, 2)
		e.tick()
		idle := e.technician(t, e.loc.ID, 2)
		bay := e.bay(t, e.loc.ID)
		e.tick()
		free := e.bay(t, e.loc.ID)
		step := e.createStep(t, working.ID, "Brakes")
		e.createStep(t, working.ID, "Wash")
		techs, bayID := []string{tech.ID}, refOf(bay.ID)
		step = e.patchStep(t, step, store.StepPatch{TechIDs: &techs, BayID: &bayID})
		step = e.setStepStatus(t, step, workshop.StepInProgress)
		if _, err := e.st.ClockIn(ctx, e.v, tech.ID, now); err != nil {
			t.Fatalf("ClockIn: %v", err)
		}
		e.createJob(t, other.ID)
		e.technician(t, other.ID, 1)

		v, err := e.st.BoardView(ctx, e.loc.ID, 3, store.BoardFilter{})
		if err != nil {
			t.Fatalf("BoardView: %v", err)
		}
		ids := func(jobs []store.BoardJob) []string {
			var out []string
			for _, j := range jobs {
				out = append(out, j.ID)
			}
			return out
		}
		if got, want := ids(v.Jobs[workshop.JobBooked]), []string{booked[0].ID, booked[1].ID, booked[2].ID}; !slices.Equal(got, want) {
			t.Errorf("booked = %v, want the 3 oldest %v", got, want)
		}
		if got := ids(v.Jobs[workshop.JobArrived]); !slices.Equal(got, []string{arrived.ID}) {
			t.Errorf("arrived = %v, want %s", got, arrived.ID)
		}
		if got := v.Jobs[workshop.JobInProgress]; len(got) != 1 || got[0].ID != working.ID || got[0].JobNumber != working.JobNumber {
			t.Errorf("in progress = %+v, want %s", got, working.ID)
		}
		if len(v.Jobs[workshop.JobWaiting])+len(v.Jobs[workshop.JobReady]) != 0 {
			t.Errorf("waiting, ready = %v, %v; want none", v.Jobs[workshop.JobWaiting], v.Jobs[workshop.JobReady])
		}
		if j := v.Jobs[workshop.JobBooked][0]; j.PromiseTime == nil || !j.PromiseTime.Equal(now.Add(time.Hour)) {
			t.Errorf("promise of %s = %v, want %v", j.ID, j.PromiseTime, now.Add(time.Hour))
		}
		if len(v.Active) != 1 || v.Active[0].ID != step.ID || v.Active[0].JobNumber != working.JobNumber ||
			!slices.Equal(v.Active[0].TechIDs, []string{tech.ID}) || v.Active[0].BayID == nil || *v.Active[0].BayID != bay.ID {
			t.Errorf("active steps = %+v, want %s on %s by %s", v.Active, step.ID, bay.ID, tech.ID)
		}
		wantTechs := []store.BoardTech{{ID: tech.ID, Name: tech.Name, Status: tech.Status, ClockedIn: true},
			{ID: idle.ID, Name: idle.Name, Status: idle.Status}}
		if !slices.Equal(v.Techs, wantTechs) {
			t.Errorf("technicians = %+v, want %+v", v.Techs, wantTechs)
		}
		if len(v.Bays) != 2 || v.Bays[0].ID != bay.ID || v.Bays[0].JobNumber == nil || *v.Bays[0].JobNumber != working.JobNumber ||
			v.Bays[1].ID != free.ID || v.Bays[1].Name != free.Name || v.Bays[1].JobNumber != nil {
			t.Errorf("bays = %+v, want %s occupied by %s, %s free", v.Bays, bay.ID, working.JobNumber, free.ID)
		}

		// The promise watch's verdict comes with the job.
		e.exec(t, `INSERT INTO job_promises (job_id, location_id, projected_completion, late_minutes, at_risk_since) VALUES (?, ?, ?, ?, ?)`,
			booked[1].ID, e.loc.ID, now.Add(2*time.Hour).Format(time.RFC3339), 45, now.UnixMicro())
		if v, err = e.st.BoardView(ctx, e.loc.ID, 3, store.BoardFilter{}); err != nil {
			t.Fatalf("BoardView: %v", err)
		}
		if got := v.Jobs[workshop.JobBooked]; got[0].PlanLateMinutes != nil || got[1].PlanLateMinutes == nil || *got[1].PlanLateMinutes != 45 {
			t.Errorf("plan late minutes of the booked jobs = %v, %v; want none, 45", got[0].PlanLateMinutes, got[1].PlanLateMinutes)
		}

		// Filtered by technician or bay: the jobs with an unfinished step
		// of theirs, started or not; a finished step does not count.
		planned := e.createStep(t, booked[3].ID, "Tyres")
		idleTechs, freeBay := []string{idle.ID}, refOf(free.ID)
		e.patchStep(t, planned, store.StepPatch{TechIDs: &idleTechs, BayID: &freeBay})
		done := e.createStep(t, booked[2].ID, "Check")
		done = e.patchStep(t, done, store.StepPatch{TechIDs: &idleTechs})
		e.setStepStatus(t, e.setStepStatus(t, done, workshop.StepInProgress), workshop.StepCompleted)
		all := func(v store.BoardView) []string {
			var out []string
			for _, status := range store.BoardOpenStatuses {
				out = append(out, ids(v.Jobs[status])...)
			}
			return out
		}
		for _, tc := range []struct {
			name string
			f    store.BoardFilter
			want []string
		}{
			{"working technician", store.BoardFilter{TechID: tech.ID}, []string{working.ID}},
			{"technician with a step to do", store.BoardFilter{TechID: idle.ID}, []string{booked[3].ID}},
			{"occupied bay", store.BoardFilter{BayID: bay.ID}, []string{working.ID}},
			{"technician and bay", store.BoardFilter{TechID: idle.ID, BayID: free.ID}, []string{booked[3].ID}},
			{"technician in another's bay", store.BoardFilter{TechID: idle.ID, BayID: bay.ID}, nil},
			{"a technician's quoted id", store.BoardFilter{TechID: `%`}, nil},
		} {
			v, err := e.st.BoardView(ctx, e.loc.ID, 50, tc.f)
			if err != nil {
				t.Fatalf("BoardView(%s): %v", tc.name, err)
			}
			if got := all(v); !slices.Equal(got, tc.want) {
				t.Errorf("board of %s = %v, want %v", tc.name, got, tc.want)
			}
		}

		// Completed, the step leaves the floor; the job waits.
		e.setStepStatus(t, step, workshop.StepCompleted)
		if _, err := e.st.ClockOut(ctx, e.v, tech.ID, now.Add(time.Minute)); err != nil {
			t.Fatalf("ClockOut: %v", err)
		}
		v, err = e.st.BoardView(ctx, e.loc.ID, 50, store.BoardFilter{})
		if err != nil {
			t.Fatalf("BoardView: %v", err)
		}
		// (One booked job's only step was done above: it left "booked".)
		if len(v.Active) != 0 || len(v.Jobs[workshop.JobBooked]) != 3 || len(v.Jobs[workshop.JobWaiting]) != 1 || v.Techs[0].ClockedIn {
			t.Errorf("after the step: active %+v, booked %d, waiting %d, clocked in %v; want none, 3, 1, false",
				v.Active, len(v.Jobs[workshop.JobBooked]), len(v.Jobs[workshop.JobWaiting]), v.Techs[0].ClockedIn)
		}
	})
}

// The watcher's reads: the outbox's marks after a seq, its last seq, and
// the plan versions, which move with writes that record no event (a
// technician made or removed).
func TestBoardWatchReads(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Other", "Europe/Berlin")
		last, err := e.st.LastEventSeq(ctx)
		if err != nil {
			t.Fatalf("LastEventSeq: %v", err)
		}
		before, err := e.st.PlanVersions(ctx, []string{e.loc.ID, other.ID, "loc_none"})
		if err != nil || len(before) != 2 {
			t.Fatalf("PlanVersions = %v, %v; want both locations", before, err)
		}
		e.createJob(t, e.loc.ID)
		e.createJob(t, other.ID)
		marks, err := e.st.EventMarksAfter(ctx, last, 10)
		if err != nil {
			t.Fatalf("EventMarksAfter: %v", err)
		}
		if len(marks) != 2 || marks[0].LocationID != e.loc.ID || marks[1].LocationID != other.ID || marks[0].Seq <= last || marks[1].Seq <= marks[0].Seq {
			t.Errorf("marks after %d = %+v, want the two creates in order", last, marks)
		}
		if now, err := e.st.LastEventSeq(ctx); err != nil || now != marks[1].Seq {
			t.Errorf("LastEventSeq = %d, %v; want %d", now, err, marks[1].Seq)
		}
		tech := e.technician(t, other.ID, 1)
		if err := e.st.DeleteTechnician(ctx, tech.ID); err != nil {
			t.Fatalf("DeleteTechnician: %v", err)
		}
		after, err := e.st.PlanVersions(ctx, []string{other.ID})
		if err != nil || len(after) != 1 || after[other.ID] <= before[other.ID]+1 {
			t.Errorf("PlanVersions after a job and a technician = %v, %v; want past %d", after, err, before[other.ID]+1)
		}
		// Many locations: one statement, padded.
		many := []string{}
		for range 20 {
			many = append(many, e.loc.ID)
		}
		if got, err := e.st.PlanVersions(ctx, append(many, other.ID)); err != nil || len(got) != 2 {
			t.Errorf("PlanVersions of 21 ids = %v, %v; want 2 locations", got, err)
		}
	})
}
