package store_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// groupCreate is one create of a group: its job and its Idempotency-Key.
type groupCreate struct {
	job   workshop.Job
	claim *store.IdempotencyKey
}

func createAsOneGroup(t *testing.T, e *jobEnv, creates []groupCreate) ([]workshop.Job, []bool, []bool, []error) {
	t.Helper()
	jobs, keys := make([]workshop.Job, len(creates)), make([]*store.IdempotencyKey, len(creates))
	for i, c := range creates {
		jobs[i], keys[i] = c.job, c.claim
	}
	out, together, errs := e.st.CreateJobsAsOneGroup(t.Context(), jobs, keys)
	got, created := make([]workshop.Job, len(out)), make([]bool, len(out))
	for i, o := range out {
		got[i], created[i] = o.Job, o.Created
	}
	return got, created, together, errs
}

func claimFor(orgID, key string) *store.IdempotencyKey {
	return &store.IdempotencyKey{OrgID: orgID, Key: key, Fingerprint: "fp-" + key, Response: renderCreated}
}

// A group writes its plain creates together, numbered in order per
// location, and leaves each unusual one to run alone with the one-create
// path's answer.
func TestCreateJobGroupWritesPlainCreatesTogether(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")
		closing := e.location(t, "Munich", "Europe/Berlin")
		if _, err := e.st.StartDayClose(ctx, store.DayCloseStart{LocationID: closing.ID, BusinessDate: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		foreign := createLocation(t, e.st, createOrg(t, e.st, workshop.PlanPro).ID)
		e.events(t)

		k1, k2, k1Again := claimFor(e.org.ID, "k1"), claimFor(e.org.ID, "k2"), claimFor(e.org.ID, "k1")
		creates := []groupCreate{
			{job: e.newJob(e.loc.ID), claim: k1},
			{job: e.newJob(other.ID)},
			{job: e.newJob(e.loc.ID, withExternalKey("dms-1")), claim: k2},
			{job: e.newJob(e.loc.ID)},
			{job: e.newJob(other.ID)},
			{job: e.newJob(e.loc.ID, withExternalKey("dms-1"))}, // the key of the third
			{job: e.newJob(foreign.ID)},                         // another organisation's location
			{job: e.newJob(closing.ID)},                         // mid-close
			{job: e.newJob(e.loc.ID), claim: k1Again},           // the first's Idempotency-Key
		}
		jobs, created, together, errs := createAsOneGroup(t, e, creates)

		// The group decides every create but the second of an externalKey
		// or an Idempotency-Key, which it defers to a group of its own.
		wantTogether := []bool{true, true, true, true, true, false, true, true, false}
		if !slices.Equal(together, wantTogether) {
			t.Errorf("written by the group = %v, want %v", together, wantTogether)
		}
		wantNumbers := []string{"RO-2026-0001", "RO-2026-0001", "RO-2026-0002", "RO-2026-0003", "RO-2026-0002"}
		for i, want := range wantNumbers {
			if errs[i] != nil || !created[i] {
				t.Errorf("create %d = created %v, %v, want a new job", i, created[i], errs[i])
				continue
			}
			if jobs[i].JobNumber != want || jobs[i].Status != workshop.JobBooked {
				t.Errorf("create %d = %s %s, want %s booked", i, jobs[i].JobNumber, jobs[i].Status, want)
			}
			if stored := e.job(t, jobs[i].ID); stored.JobNumber != want || stored.UpdatedAt != jobs[i].UpdatedAt {
				t.Errorf("stored job %d = %s at %v, want %s at %v", i, stored.JobNumber, stored.UpdatedAt, want, jobs[i].UpdatedAt)
			}
		}
		if errs[5] != nil || created[5] || jobs[5].ID != jobs[2].ID {
			t.Errorf("create with a taken externalKey = %s created %v, %v, want the stored %s", jobs[5].ID, created[5], errs[5], jobs[2].ID)
		}
		wantInvalid(t, errs[6], "locationId")
		wantCode(t, errs[7], workshop.CodeDayCloseInProgress)
		wantCode(t, errs[8], workshop.CodeIdempotencyInProgress)

		evs := e.wantEvents(t, "group", slices.Repeat([]string{workshop.EventJobCreated}, 5)...)
		for i, ev := range evs {
			if data := eventData(t, ev); data["id"] != jobs[i].ID || data["job_number"] != wantNumbers[i] {
				t.Errorf("event %d = job %v %v, want %s %s", i, data["id"], data["job_number"], jobs[i].ID, wantNumbers[i])
			}
		}
		for key, job := range map[string]workshop.Job{"k1": jobs[0], "k2": jobs[2]} {
			rec := readRecord(t, e.st, e.org.ID, key)
			if !rec.Found || rec.StatusCode != 201 || !strings.Contains(rec.Body, job.ID) || !strings.Contains(rec.Body, job.JobNumber) {
				t.Errorf("IdempotencyRecord(%s) = %+v, want the 201 of %s %s", key, rec, job.ID, job.JobNumber)
			}
		}
		if j := e.createJob(t, e.loc.ID); j.JobNumber != "RO-2026-0004" {
			t.Errorf("number after the group = %s, want RO-2026-0004", j.JobNumber)
		}
	})
}

// A number taken explicitly is skipped by the group: its create takes the
// next free number, and every create of the group is made.
func TestCreateJobGroupSkipsATakenNumber(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		e.createJob(t, e.loc.ID, withNumber("RO-2026-0002"))
		e.events(t)

		jobs, created, together, errs := createAsOneGroup(t, e, []groupCreate{{job: e.newJob(e.loc.ID)}, {job: e.newJob(e.loc.ID)}, {job: e.newJob(e.loc.ID)}})
		if slices.Contains(together, false) {
			t.Errorf("written by the group = %v, want all", together)
		}
		var numbers []string
		for i := range jobs {
			if errs[i] != nil || !created[i] {
				t.Errorf("create %d = created %v, %v, want a new job", i, created[i], errs[i])
			}
			numbers = append(numbers, jobs[i].JobNumber)
		}
		slices.Sort(numbers)
		if want := []string{"RO-2026-0001", "RO-2026-0003", "RO-2026-0004"}; !slices.Equal(numbers, want) {
			t.Errorf("numbers = %v, want %v", numbers, want)
		}
		e.wantEvents(t, "after the group", workshop.EventJobCreated, workshop.EventJobCreated, workshop.EventJobCreated)
	})
}

// An explicit number taken in the location, or by an earlier create of the
// same group, refuses its create; the others are made.
func TestCreateJobGroupRefusesATakenExplicitNumber(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		e.createJob(t, e.loc.ID, withNumber("WS-1"))
		e.events(t)
		jobs, created, _, errs := createAsOneGroup(t, e, []groupCreate{{job: e.newJob(e.loc.ID, withNumber("WS-1"))},
			{job: e.newJob(e.loc.ID, withNumber("WS-2"))}, {job: e.newJob(e.loc.ID, withNumber("WS-2"))}, {job: e.newJob(e.loc.ID)}})
		wantFieldCode(t, errs[0], "jobNumber", "taken")
		wantFieldCode(t, errs[2], "jobNumber", "taken")
		if errs[1] != nil || !created[1] || jobs[1].JobNumber != "WS-2" || errs[3] != nil || !created[3] {
			t.Errorf("creates 1 and 3 = %s %v %v, %s %v %v; want WS-2 and a numbered job made", jobs[1].JobNumber, created[1], errs[1],
				jobs[3].JobNumber, created[3], errs[3])
		}
		e.wantEvents(t, "after the group", workshop.EventJobCreated, workshop.EventJobCreated)
	})
}

// A create under an Idempotency-Key that is stored already is a retry of an
// answered request: it is refused (the API replays the stored response)
// and takes no number, and the rest of its group is written.
func TestCreateJobGroupRefusesARetry(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		stored := claimFor(e.org.ID, "stored")
		if err := e.st.SaveIdempotentResponse(ctx, *stored, 200, []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
		e.events(t)

		retry := claimFor(e.org.ID, "stored")
		jobs, created, together, errs := createAsOneGroup(t, e, []groupCreate{
			{job: e.newJob(e.loc.ID), claim: claimFor(e.org.ID, "fresh")}, {job: e.newJob(e.loc.ID), claim: retry}, {job: e.newJob(e.loc.ID)}})
		if slices.Contains(together, false) {
			t.Errorf("answered by the group = %v, want all", together)
		}
		wantCode(t, errs[1], workshop.CodeIdempotencyInProgress)
		if created[1] {
			t.Errorf("retry: created, want not created")
		}
		for i, want := range map[int]string{0: "RO-2026-0001", 2: "RO-2026-0002"} {
			if errs[i] != nil || !created[i] || jobs[i].JobNumber != want {
				t.Errorf("create %d = %s created %v, %v, want %s", i, jobs[i].JobNumber, created[i], errs[i], want)
			}
		}
		e.wantEvents(t, "after the group", workshop.EventJobCreated, workshop.EventJobCreated)
		if j := e.createJob(t, e.loc.ID); j.JobNumber != "RO-2026-0003" {
			t.Errorf("next number = %s, want RO-2026-0003", j.JobNumber)
		}
	})
}
