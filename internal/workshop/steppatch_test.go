package workshop

import (
	"errors"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// codeOf is err's code, "" for no error.
func codeOf(err error) Code {
	if err == nil {
		return ""
	}
	return ErrorCode(err)
}

// ChangeStep's rules, one case each, in the order its errors are reported.
func TestChangeStep(t *testing.T) {
	t.Parallel()
	at := MicrosOf(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	job := Job{ID: "job_1", JobNumber: "RO-2026-0001", LocationID: "loc_1", Status: JobArrived}
	step := Step{ID: "stp_1", JobID: "job_1", LocationID: "loc_1", Label: "Brakes", Status: StepPending, TechIDs: []string{"tec_busy"},
		UpdatedAt: at - 10}
	facts := func() StepFacts {
		return StepFacts{
			Technicians: map[string]TechnicianLoad{
				"tec_free":  {Name: "Jonas Weber", LocationID: "loc_1", WIPLimit: 1},
				"tec_busy":  {Name: "Aylin Demir", LocationID: "loc_1", WIPLimit: 1, InProgress: []string{"stp_other"}},
				"tec_far":   {Name: "Lena Koch", LocationID: "loc_2", WIPLimit: 1},
				"tec_gone":  {LocationID: "loc_1", WIPLimit: 1, Deleted: true},
				"tec_roomy": {LocationID: "loc_1", WIPLimit: 2, InProgress: []string{"stp_other"}},
			},
			Bays: map[string]BaySlot{"bay_1": {Name: "Bay 1", LocationID: "loc_1", Status: "available"},
				"bay_fixing": {Name: "Lift 3", LocationID: "loc_1", Status: "maintenance"},
				"bay_far":    {Name: "Bay 9", LocationID: "loc_2", Status: "available"},
				"bay_taken":  {Name: "Bay 2", LocationID: "loc_1", Status: "available", InProgress: map[string]string{"stp_x": "job_2"}},
				"bay_ours":   {Name: "Bay 3", LocationID: "loc_1", Status: "available", InProgress: map[string]string{"stp_y": "job_1"}}},
			JobNumbers: map[string]string{"job_2": "RO-2026-0004", "job_1": "RO-2026-0001"},
		}
	}
	delivered := job
	delivered.Status = JobDelivered
	for _, c := range []struct {
		name  string
		job   Job
		patch StepPatch
		code  Code   // the error's code, "" for none
		field string // and the field of its first error
		words string // its detail, in staff words: names and job numbers, no ids
	}{
		{"delivered job", delivered, StepPatch{UpdatedAt: step.UpdatedAt, Label: ptr("x")}, CodeInvalidTransition, "",
			"Job RO-2026-0001 is delivered: its steps cannot change."},
		{"stale", job, StepPatch{UpdatedAt: step.UpdatedAt - 1, Label: ptr("x")}, CodeStaleUpdatedAt, "updatedAt", ""},
		{"technician of another location", job, StepPatch{UpdatedAt: step.UpdatedAt, TechIDs: &[]string{"tec_far"}}, CodeValidationFailed, "techIds",
			"techIds[0]: Lena Koch is not a technician of the job's location."},
		{"deleted technician", job, StepPatch{UpdatedAt: step.UpdatedAt, TechIDs: &[]string{"tec_gone"}}, CodeValidationFailed, "techIds", ""},
		{"unknown technician", job, StepPatch{UpdatedAt: step.UpdatedAt, TechIDs: &[]string{"tec_none"}}, CodeValidationFailed, "techIds",
			"techIds[0]: Technician tec_none is not a technician of the job's location."},
		{"bay of another location", job, StepPatch{UpdatedAt: step.UpdatedAt, BayID: ptr(ptr("bay_far"))}, CodeValidationFailed, "bayId",
			"Bay 9 is not a bay of the job's location."},
		{"bay in maintenance", job, StepPatch{UpdatedAt: step.UpdatedAt, BayID: ptr(ptr("bay_fixing"))}, CodeValidationFailed, "bayId",
			"Lift 3 is in maintenance and cannot be assigned."},
		{"backwards", job, StepPatch{UpdatedAt: step.UpdatedAt, Status: ptr(StepCompleted)}, CodeInvalidTransition, "", ""},
		{"over the limit", job, StepPatch{UpdatedAt: step.UpdatedAt, Status: ptr(StepInProgress)}, CodeValidationFailed, "techIds",
			"Aylin Demir already has 1 step in progress; their limit is 1."},
		{"within the limit", job, StepPatch{UpdatedAt: step.UpdatedAt, Status: ptr(StepInProgress), TechIDs: &[]string{"tec_roomy", "tec_free"}}, "", "", ""},
		{"a free bay", job, StepPatch{UpdatedAt: step.UpdatedAt, BayID: ptr(ptr("bay_1"))}, "", "", ""},
		{"assigned to a bay another job works in", job, StepPatch{UpdatedAt: step.UpdatedAt, BayID: ptr(ptr("bay_taken"))}, "", "", ""},
		{"started in a bay another job works in", job, StepPatch{UpdatedAt: step.UpdatedAt, BayID: ptr(ptr("bay_taken")),
			Status: ptr(StepInProgress), TechIDs: &[]string{}}, CodeValidationFailed, "bayId",
			"Bay 2 holds another job's vehicle: RO-2026-0004 has a step in progress there."},
		{"started in a bay its own job works in", job, StepPatch{UpdatedAt: step.UpdatedAt, BayID: ptr(ptr("bay_ours")),
			Status: ptr(StepInProgress), TechIDs: &[]string{}}, "", "", ""},
		{"scheduled once started", job, StepPatch{UpdatedAt: step.UpdatedAt, NotBefore: ptr(&OffsetTime{at.Time()}), Status: ptr(StepInProgress)},
			CodeValidationFailed, "notBefore", "notBefore may be set on a pending step only, not in the change that moves it to in progress."},
	} {
		t.Run(c.name, func(t *testing.T) {
			next, err := ChangeStep(c.job, step, c.patch, at, facts())
			if got := codeOf(err); got != c.code {
				t.Fatalf("ChangeStep = %v (code %q), want code %q", err, got, c.code)
			}
			var e *Error
			if c.field != "" && (!errors.As(err, &e) || e.Field != c.field) {
				t.Errorf("error %v, want it on %s", err, c.field)
			}
			if c.words != "" && (!errors.As(err, &e) || e.Detail != c.words) {
				t.Errorf("error %v, want the detail %q", err, c.words)
			}
			if err == nil && next.UpdatedAt <= step.UpdatedAt {
				t.Errorf("updatedAt %v, want later than %v", next.UpdatedAt, step.UpdatedAt)
			}
		})
	}

	// Unchanged: the step itself, its updatedAt kept.
	if next, err := ChangeStep(job, step, StepPatch{UpdatedAt: step.UpdatedAt, Label: ptr("Brakes")}, at, facts()); err != nil || next.UpdatedAt != step.UpdatedAt {
		t.Errorf("a patch that changes nothing = %v, %v; want the step as it was", next.UpdatedAt, err)
	}

	// A group: the first start takes tec_free's only slot, recorded in the
	// facts, and the second start on tec_free is refused.
	f := facts()
	first := Step{ID: "stp_a", LocationID: "loc_1", Status: StepPending, TechIDs: []string{"tec_free"}, UpdatedAt: at - 5}
	second := Step{ID: "stp_b", LocationID: "loc_1", Status: StepPending, TechIDs: []string{"tec_free"}, UpdatedAt: at - 5}
	started, err := ChangeStep(job, first, StepPatch{UpdatedAt: first.UpdatedAt, Status: ptr(StepInProgress)}, at, f)
	if err != nil {
		t.Fatal(err)
	}
	f.Record(job, first, started)
	if _, err := ChangeStep(job, second, StepPatch{UpdatedAt: second.UpdatedAt, Status: ptr(StepInProgress)}, at, f); ErrorCode(err) != CodeValidationFailed {
		t.Errorf("second start on a technician at their limit = %v, want wip_limit_exceeded", err)
	}
	// Completing the first frees the slot again.
	done, err := ChangeStep(job, started, StepPatch{UpdatedAt: started.UpdatedAt, Status: ptr(StepCompleted)}, at+1, f)
	if err != nil || done.CompletedAt == nil {
		t.Fatalf("complete = %+v, %v", done, err)
	}
	f.Record(job, started, done)
	if _, err := ChangeStep(job, second, StepPatch{UpdatedAt: second.UpdatedAt, Status: ptr(StepInProgress)}, at+2, f); err != nil {
		t.Errorf("start after the other step completed = %v, want it allowed", err)
	}
}

func TestFinishJob(t *testing.T) {
	t.Parallel()
	at := MicrosOf(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	ready := Job{ID: "job_1", Status: JobReady, UpdatedAt: at - 1}
	cancelled := Job{ID: "job_2", Status: JobCancelled, UpdatedAt: at - 1}
	for _, c := range []struct {
		name       string
		job        Job
		to         string
		tags       []string
		code       Code
		wantStatus string
		changed    bool
	}{
		{"deliver", ready, JobDelivered, nil, "", JobDelivered, true},
		{"cancel with a known tag", ready, JobCancelled, []string{"no_show"}, "", JobCancelled, true},
		{"cancel with an unknown tag", ready, JobCancelled, []string{"bogus"}, CodeValidationFailed, JobReady, false},
		{"cancel again", cancelled, JobCancelled, nil, "", JobCancelled, false},
		{"deliver a cancelled job", cancelled, JobDelivered, nil, CodeInvalidTransition, JobCancelled, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			next, err := FinishJob(c.job, c.to, c.tags, []string{"no_show"}, at)
			if codeOf(err) != c.code || next.Status != c.wantStatus || (next.UpdatedAt != c.job.UpdatedAt) != c.changed {
				t.Errorf("FinishJob = %s at %v, %v; want %s, changed %v, code %q", next.Status, next.UpdatedAt, err, c.wantStatus, c.changed, c.code)
			}
		})
	}
}

func TestChangeJob(t *testing.T) {
	t.Parallel()
	at := MicrosOf(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	booked := Job{ID: "job_1", Status: JobBooked, Priority: "normal", UpdatedAt: at - 1}
	arrival := ptr(&OffsetTime{Time: at.Time()})
	next, err := ChangeJob(booked, JobPatch{UpdatedAt: booked.UpdatedAt, ArrivalTime: arrival}, at)
	if err != nil || next.Status != JobArrived || next.UpdatedAt <= booked.UpdatedAt {
		t.Errorf("arrival = %s at %v, %v; want arrived, later", next.Status, next.UpdatedAt, err)
	}
	if same, err := ChangeJob(booked, JobPatch{UpdatedAt: booked.UpdatedAt, Priority: ptr("normal")}, at); err != nil || same.UpdatedAt != booked.UpdatedAt {
		t.Errorf("no change = %v, %v; want the job as it was", same.UpdatedAt, err)
	}
	if _, err := ChangeJob(booked, JobPatch{UpdatedAt: booked.UpdatedAt - 1}, at); ErrorCode(err) != CodeStaleUpdatedAt {
		t.Errorf("stale = %v, want stale_updated_at", err)
	}
}

// Recording late (contract section 9): actualStart and actualEnd, with the
// moves and corrections that may carry them and the refusals naming the
// field.
func TestChangeStepActuals(t *testing.T) {
	t.Parallel()
	now := MicrosOf(time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC))
	mins := func(m int) Micros { return now + Micros(m)*Micros(time.Minute/time.Microsecond) }
	arrived := &OffsetTime{Time: mins(-300).Time()}
	job := Job{ID: "job_1", LocationID: "loc_1", Status: JobInProgress, ArrivalTime: arrived, CreatedAt: mins(-600)}
	booked := Job{ID: "job_2", LocationID: "loc_1", Status: JobBooked, CreatedAt: mins(-400)}
	pending := Step{ID: "stp_1", JobID: "job_1", LocationID: "loc_1", Status: StepPending, UpdatedAt: mins(-1)}
	running := pending
	running.Status, running.StartedAt = StepInProgress, ptr(mins(-120))
	done := running
	done.Status, done.CompletedAt = StepCompleted, ptr(mins(-30))
	// Started and arrived 20 s into a minute, for times given to the minute.
	midMinute := mins(-120) + Micros(20*time.Second/time.Microsecond)
	runningMid := running
	runningMid.StartedAt = &midMinute
	arrivedMid := job
	arrivedMid.ArrivalTime = &OffsetTime{Time: midMinute.Time()}
	status := func(s string) *string { return &s }
	for _, c := range []struct {
		name               string
		job                Job
		step               Step
		status             *string
		start, end         *Micros
		precision          time.Duration
		field              string // the refused field, "" when accepted
		wantStart, wantEnd *Micros
	}{
		{name: "start written down late", job: job, step: pending, status: status(StepInProgress), start: ptr(mins(-90)), wantStart: ptr(mins(-90))},
		{name: "start stamped now", job: job, step: pending, status: status(StepInProgress), wantStart: ptr(now)},
		{name: "start within the skew", job: job, step: pending, status: status(StepInProgress), start: ptr(mins(4)), wantStart: ptr(mins(4))},
		{name: "start beyond the skew", job: job, step: pending, status: status(StepInProgress), start: ptr(mins(6)), field: "actualStart"},
		{name: "start before the arrival", job: job, step: pending, status: status(StepInProgress), start: ptr(mins(-301)), field: "actualStart"},
		{name: "booked job: start before its creation", job: booked, step: pending, status: status(StepInProgress), start: ptr(mins(-401)), field: "actualStart"},
		{name: "booked job: start after its creation", job: booked, step: pending, status: status(StepInProgress), start: ptr(mins(-399)), wantStart: ptr(mins(-399))},
		{name: "start on a step staying pending", job: job, step: pending, start: ptr(mins(-90)), field: "actualStart"},
		{name: "end with a move to in_progress", job: job, step: pending, status: status(StepInProgress), end: ptr(mins(-10)), field: "actualEnd"},
		{name: "correct a start in progress", job: job, step: running, start: ptr(mins(-100)), wantStart: ptr(mins(-100))},
		{name: "end of a step staying in progress", job: job, step: running, end: ptr(mins(-10)), field: "actualEnd"},
		{name: "end written down late", job: job, step: running, status: status(StepCompleted), end: ptr(mins(-10)), wantStart: ptr(mins(-120)), wantEnd: ptr(mins(-10))},
		{name: "end stamped now", job: job, step: running, status: status(StepCompleted), wantStart: ptr(mins(-120)), wantEnd: ptr(now)},
		{name: "end before the start", job: job, step: running, status: status(StepCompleted), end: ptr(mins(-121)), field: "actualEnd"},
		{name: "end in the future", job: job, step: running, status: status(StepCompleted), end: ptr(mins(10)), field: "actualEnd"},
		{name: "start with a move to completed", job: job, step: running, status: status(StepCompleted), start: ptr(mins(-100)), field: "actualStart"},
		{name: "correct both of a completed step", job: job, step: done, start: ptr(mins(-200)), end: ptr(mins(-100)), wantStart: ptr(mins(-200)), wantEnd: ptr(mins(-100))},
		{name: "correct the start past the end", job: job, step: done, start: ptr(mins(-20)), field: "actualStart"},
		{name: "correct the end before the start", job: job, step: done, end: ptr(mins(-130)), field: "actualEnd"},
		{name: "exact end in the start's minute, before it", job: job, step: runningMid, status: status(StepCompleted), end: ptr(mins(-120)), field: "actualEnd"},
		{name: "end to the minute of the start", job: job, step: runningMid, status: status(StepCompleted), end: ptr(mins(-120)), precision: time.Minute,
			wantStart: &midMinute, wantEnd: &midMinute},
		{name: "end to the minute before the start's", job: job, step: runningMid, status: status(StepCompleted), end: ptr(mins(-121)), precision: time.Minute, field: "actualEnd"},
		{name: "end to the minute after the start's", job: job, step: runningMid, status: status(StepCompleted), end: ptr(mins(-119)), precision: time.Minute,
			wantStart: &midMinute, wantEnd: ptr(mins(-119))},
		{name: "exact start in the arrival's minute, before it", job: arrivedMid, step: pending, status: status(StepInProgress), start: ptr(mins(-120)), field: "actualStart"},
		{name: "start to the minute of the arrival", job: arrivedMid, step: pending, status: status(StepInProgress), start: ptr(mins(-120)), precision: time.Minute, wantStart: &midMinute},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := StepPatch{UpdatedAt: c.step.UpdatedAt, Status: c.status, ActualStart: c.start, ActualEnd: c.end, Skew: 5 * time.Minute, Precision: c.precision}
			next, err := ChangeStep(c.job, c.step, p, now, StepFacts{})
			var e *Error
			if c.field != "" {
				if !errors.As(err, &e) || e.Code != CodeValidationFailed || e.Field != c.field {
					t.Fatalf("ChangeStep = %v, want validation_failed on %s", err, c.field)
				}
				return
			}
			if err != nil {
				t.Fatalf("ChangeStep = %v, want it accepted", err)
			}
			if !samePtr(next.StartedAt, c.wantStart) || !samePtr(next.CompletedAt, c.wantEnd) {
				t.Errorf("startedAt, completedAt = %v, %v; want %v, %v", next.StartedAt, next.CompletedAt, c.wantStart, c.wantEnd)
			}
			if next.UpdatedAt == c.step.UpdatedAt {
				t.Errorf("updatedAt unchanged: the change was not recorded")
			}
		})
	}
}
